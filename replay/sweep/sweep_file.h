/*
 * sweep_file.h — the sweep file: which runs a sweep is made of.
 *
 * One key per line followed by its values, blanks between them; '#'
 * starts a comment.  List keys may repeat: their values add up.
 *
 *   trace        PATH [NAME]     a trace directory or .vmr (repeatable);
 *                                relative paths are taken from the sweep
 *                                file's directory; NAME labels it in tables
 *                                and figures (default: the directory's name,
 *                                or its parent's when it is called "ctf")
 *   trace-set    NAME DIR…       repeated captures of one workload, the
 *                                replicates of each of its cells: each DIR
 *                                is a capture (a trace directory, its ctf/,
 *                                or a .vmr) or a directory of them; every
 *                                capture is a trace of the sweep named
 *                                NAME-CAPTURE (CAPTURE alone when it starts
 *                                with NAME), and tables and figures show
 *                                the set as one trace, NAME
 *   policy       NAME… | all     default: all (vmreplay run --list-policies)
 *   swappiness   N…              0-200; default 1 36 71 106 141 176 200 and
 *                                the swappiness each trace (each capture of
 *                                a set) was captured at
 *   memory-limit SIZE… | P%… | none | captured   required; P% is P percent
 *                                of the trace's distinct pages (so one
 *                                sweep fits traces of any size); fixed
 *                                sizes round down to whole pages,
 *                                percentages up; none: no memcg limit
 *                                (kernel policies only: pressure then comes
 *                                from node-memory); captured: the limit the
 *                                capture ran under (none if it had none),
 *                                where the kernel's own counters compare
 *   node-memory  SIZE… | P%…     simulated RAM, like memory-limit; default:
 *                                the run's default
 *   swap         PRESET…         swap presets; default: the run's default
 *   seed         N… | A-B…       default 1
 *   events       yes|no|first-seed   record each reclaim invocation, in
 *                                every run or only in each condition's
 *                                first seed (default no)
 *   timeline     yes|no|first-seed   record nr_isolated / throttling, the same
 *
 * Policies that take no swappiness (lru) ignore swappiness, node-memory,
 * swap, events and timeline; deterministic ones ignore seed.
 */
#ifndef SWEEP_FILE_H
#define SWEEP_FILE_H

#include <stddef.h>
#include <stdint.h>

struct sweep_trace {
	char *path;                    /* resolved against the file's directory */
	char *name;
	char *set;                     /* its trace set's name, or its own name */
	int line;
};

struct sweep_size {
	uint64_t bytes;                /* when !is_pct and !is_none */
	double pct;                    /* when is_pct               */
	int is_pct;
	int is_none;                   /* memory-limit none         */
	int is_captured;               /* memory-limit captured     */
};

struct sweep_spec {
	char *file;
	struct sweep_trace *traces;
	size_t nr_traces;
	char **policies;               /* NULL: all */
	int *policy_lines;
	size_t nr_policies;
	int *swappiness;
	size_t nr_swappiness;
	int default_swappiness;        /* no swappiness line: add the captured */
	struct sweep_size *memory;
	size_t nr_memory;
	struct sweep_size *node_memory;
	size_t nr_node_memory;
	char **swap;
	size_t nr_swap;
	uint64_t *seeds;
	size_t nr_seeds;
	int events, timeline;          /* enum sweep_record */
};

enum sweep_record { SWEEP_RECORD_NONE, SWEEP_RECORD_ALL, SWEEP_RECORD_FIRST_SEED };

/* Limits that catch typos rather than restrict real use. */
#define SWEEP_MAX_SEEDS    10000
#define SWEEP_MAX_VALUES   1000         /* per key */

/*
 * Parses PATH.  Returns 0, or -1 with "PATH:LINE: KEY: reason" in err
 * (bad data: vmreplay sweep exits 1).
 */
int sweep_file_read(const char *path, struct sweep_spec *s, char *err, size_t errlen);
/* The same on TEXT already in memory; PATH names it in messages and
 * anchors relative trace paths. */
int sweep_file_parse(const char *path, const char *text, struct sweep_spec *s,
		     char *err, size_t errlen);
void sweep_file_free(struct sweep_spec *s);

#endif
