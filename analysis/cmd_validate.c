/*
 * cmd_validate.c — `vmreplay validate`: replays many captured sessions as
 * they were captured and scores how well the replays predict the kernel
 * (validate.h has the rules).
 */
#include "analyze.h"
#include "atomic.h"
#include "cli.h"
#include "ingest/ingest.h"
#include "kcounter.h"
#include "mm/policy.h"
#include "progress.h"
#include "run.h"
#include "validate.h"

#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int cmd_validate(int argc, char **argv);

static const char usage[] =
	"usage: vmreplay validate [options] CAPTURE...\n"
	"\n"
	"Replays each captured session as it was captured (its limit,\n"
	"swappiness, RAM, swap device and the latencies the capture measured)\n"
	"and scores the replays against the kernel: per workload, swappiness and\n"
	"counter, the kernel's median [min-max] over the captures of that cell\n"
	"against the replays' median.  A cell passes when the replay median is\n"
	"within 25% of the kernel median (kernel CV below 0.25) or inside the\n"
	"kernel's min-max (where it varies more); a swappiness trend is right\n"
	"when the replay moves the way the kernel clearly does.\n"
	"\n"
	"A CAPTURE is a capture's directory (or its ctf/), or a directory of\n"
	"them.  Captures group by directory name without -swN and a trailing\n"
	"-N (the replicate): compile-sw100-2 is workload compile, swappiness 100.\n"
	"\n"
	"  -p, --policy NAME       the policy replayed (default: classic, or for\n"
	"                          captures of an MGLRU kernel the MGLRU it ran:\n"
	"                          mglru, +k6.12 up to Linux 6.12 (+k6.12.118\n"
	"                          from 6.12.118 on), +no-mm-walk for\n"
	"                          lru_gen/enabled 0x0001)\n"
	"  -m, --metric NAME       a counter to score (repeatable; default pgscan,\n"
	"                          pgsteal and workingset_refault, anon and file)\n"
	"  -f, --format FMT        text (default), markdown, tsv or json\n"
	"  -o, --out FILE          write there (whole or not at all) instead of stdout\n"
	"  -q, --quiet             no progress line\n"
	"  -h, --help              this help\n"
	"\n"
	"Exit status: 0 ok (whatever the score), 1 bad input or a failed replay,\n"
	"2 usage.\n";

static int is_capture(const char *dir)
{
	static const char *const marks[] = { "ctf", "ust", "kernel", "metadata", "ctf.tar.xz",
					      "ctf.tar.zst", "ctf.tar.gz" };
	char p[4400];
	struct stat st;
	for (size_t i = 0; i < sizeof(marks) / sizeof(marks[0]); i++) {
		snprintf(p, sizeof(p), "%s/%s", dir, marks[i]);
		if (stat(p, &st) == 0)
			return 1;
	}
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Appends DIR (a capture) or its capture subdirectories, sorted. */
static int expand(const char *dir, char ***list, size_t *n, char *err, size_t errlen)
{
	struct stat st;
	if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "%s: %s", dir, errno ? strerror(errno) : "not a directory");
		return -1;
	}
	char **found = NULL;
	size_t nf = 0;
	if (is_capture(dir)) {
		found = malloc(sizeof(*found));
		if (!found || !(found[0] = strdup(dir)))
			goto oom;
		nf = 1;
	} else {
		DIR *d = opendir(dir);
		if (!d) {
			snprintf(err, errlen, "%s: %s", dir, strerror(errno));
			return -1;
		}
		struct dirent *de;
		while ((de = readdir(d))) {
			if (de->d_name[0] == '.')
				continue;
			char sub[4200];
			if ((size_t)snprintf(sub, sizeof(sub), "%s/%s", dir, de->d_name) >= sizeof(sub))
				continue;
			if (stat(sub, &st) != 0 || !S_ISDIR(st.st_mode) || !is_capture(sub))
				continue;
			char **g = realloc(found, (nf + 1) * sizeof(*g));
			if (!g) {
				closedir(d);
				goto oom;
			}
			found = g;
			if (!(found[nf] = strdup(sub))) {
				closedir(d);
				goto oom;
			}
			nf++;
		}
		closedir(d);
		if (!nf) {
			snprintf(err, errlen, "%s: neither a capture nor a directory of captures", dir);
			free(found);
			return -1;
		}
		qsort(found, nf, sizeof(*found), cmp_str);
	}
	char **g = realloc(*list, (*n + nf) * sizeof(*g));
	if (!g)
		goto oom;
	*list = g;
	memcpy(*list + *n, found, nf * sizeof(*found));
	*n += nf;
	free(found);
	return 0;
oom:
	for (size_t i = 0; i < nf; i++)
		free(found[i]);
	free(found);
	snprintf(err, errlen, "out of memory");
	return -1;
}

static int vm_index(const char *name)
{
	for (int i = 0; i < NR_VM_ITEMS; i++)
		if (strcmp(vmstat_text[i], name) == 0)
			return i;
	return -1;
}

/* One capture: the kernel's counters, and those of its replay. */
/* 0 scored, 1 not a captured session, -1 failed. */
static int score_capture(const char *dir, const struct reclaim_policy *forced, struct scoreboard *sb,
			 struct vsession *s, char *err, size_t errlen)
{
	char input[4200], path[4200], buf[256];
	snprintf(input, sizeof(input), "%s/ctf", dir);
	struct stat st;
	if (stat(input, &st) != 0)
		snprintf(input, sizeof(input), "%s", dir);
	struct vmr v;
	if (ingest_open_input(input, &v, path, sizeof(path), 0, 0, err, errlen) != 0)
		return -1;
	int rc = -1;
	struct analysis ka = { 0 };
	struct engine *e = NULL;
	if (!vmr_meta_get(&v, "capture_cgroup", buf, sizeof(buf)) || v.nr_memcg < 2) {
		/* Only a session vmreplay capture recorded has the kernel's own
		 * counters for the workload's cgroup. */
		snprintf(err, errlen, "%s: not a captured session (no capture metadata or no "
			 "memory.stat snapshots: make it with vmreplay capture)", dir);
		rc = 1;
		goto out;
	}
	if (analyze_vmr(&v, &ka, err, errlen) != 0)
		goto out;
	memset(s, 0, sizeof(*s));
	snprintf(s->path, sizeof(s->path), "%s", dir);
	validate_workload_name(dir, vmr_meta_get(&v, "workload", buf, sizeof(buf)), s->workload,
			       sizeof(s->workload));
	s->swappiness = vmr_meta_get(&v, "swappiness", buf, sizeof(buf)) ? atoi(buf) : 60;
	char rel[64], lru[32];
	if (!vmr_meta_get(&v, "kernel_release", rel, sizeof(rel)))
		snprintf(rel, sizeof(rel), "?");
	if (!vmr_meta_get(&v, "lru_kind", lru, sizeof(lru)))
		snprintf(lru, sizeof(lru), "?");
	/* the release up to its local suffix (6.18.44-fc-v857: 6.18.44) */
	rel[strcspn(rel, "-+ ")] = '\0';
	snprintf(s->kernel_id, sizeof(s->kernel_id), "%s %s", rel, lru);
	const struct reclaim_policy *pol = forced;
	if (!pol) {
		int mglru = vmr_meta_get(&v, "lru_kind", buf, sizeof(buf)) && strcmp(buf, "mglru") == 0;
		char caps[32];
		pol = mglru ? mglru_policy_as_captured(vmr_meta_get(&v, "kernel_release", buf, sizeof(buf)),
						       vmr_meta_get(&v, "capture_lru_gen_enabled", caps,
								    sizeof(caps))) :
			      policy_find("classic");
	}
	snprintf(s->policy, sizeof(s->policy), "%s", pol->name);
	for (int c = 0; c < sb->nr_counters; c++) {
		struct kcounter k = kernel_counter(&v, &ka, sb->counters[c]);
		s->have_kernel[c] = k.have;
		s->kernel[c] = k.v;
	}

	struct run_request req = { .policy = pol, .swappiness = -1, .seed = 1 };
	struct engine_params p;
	if (run_setup(&v, &req, &p, err, errlen) != 0)
		goto out;
	e = malloc(sizeof(*e));
	if (!e || engine_init(e, &v, &p, err, errlen) != 0) {
		if (!e)
			snprintf(err, errlen, "out of memory");
		free(e);
		e = NULL;
		goto out;
	}
	if (engine_run(e) != 0) {
		snprintf(err, errlen, "%s: out of memory during the replay", dir);
		goto out;
	}
	for (int c = 0; c < sb->nr_counters; c++)
		s->replay[c] = (double)e->vm[vm_index(sb->counters[c])];
	rc = 0;
out:
	if (e) {
		engine_free(e);
		free(e);
	}
	analysis_free(&ka);
	vmr_close(&v);
	return rc;
}

int cmd_validate(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "policy", required_argument, 0, 'p' },
		{ "metric", required_argument, 0, 'm' },
		{ "format", required_argument, 0, 'f' },
		{ "out", required_argument, 0, 'o' },
		{ "quiet", no_argument, 0, 'q' },
		{ "help", no_argument, 0, 'h' },
		{ 0, 0, 0, 0 }
	};
	struct scoreboard sb = { 0 };
	const struct reclaim_policy *forced = NULL;
	const char *out = "-";
	enum vfmt fmt = VFMT_TEXT;
	int progress = 1, c;
	while ((c = getopt_long(argc, argv, "p:m:f:o:qh", opts, NULL)) != -1) {
		switch (c) {
		case 'p':
			if (!(forced = policy_find(optarg)))
				return cli_error(EXIT_USAGE, "validate", "--policy: unknown policy '%s' (see "
						 "vmreplay run --list-policies)", optarg);
			break;
		case 'm':
			if (vm_index(optarg) < 0)
				return cli_error(EXIT_USAGE, "validate", "--metric: '%s' is not a counter "
						 "(analysis/RESULTS.md)", optarg);
			if (sb.nr_counters == VALIDATE_MAX_COUNTERS)
				return cli_error(EXIT_USAGE, "validate", "--metric: at most %d counters",
						 VALIDATE_MAX_COUNTERS);
			sb.counters[sb.nr_counters++] = optarg;
			break;
		case 'f':
			if (strcmp(optarg, "text") == 0) fmt = VFMT_TEXT;
			else if (strcmp(optarg, "markdown") == 0) fmt = VFMT_MARKDOWN;
			else if (strcmp(optarg, "tsv") == 0) fmt = VFMT_TSV;
			else if (strcmp(optarg, "json") == 0) fmt = VFMT_JSON;
			else return cli_error(EXIT_USAGE, "validate", "--format: '%s' is not text, markdown, "
					      "tsv or json", optarg);
			break;
		case 'o': out = optarg; break;
		case 'q': progress = 0; break;
		case 'h': fputs(usage, stdout); return EXIT_OK;
		default: return cli_bad_option("validate", argv, "p:m:f:o:qh");
		}
	}
	if (optind >= argc)
		return cli_error(EXIT_USAGE, "validate", "no capture given");
	if (!sb.nr_counters)
		for (int i = 0; i < validate_nr_default_counters; i++)
			sb.counters[sb.nr_counters++] = validate_default_counters[i];

	char err[2048];
	char **dirs = NULL;
	int *named = NULL;           /* given on the command line, not found in a folder */
	size_t nr = 0;
	int rc = EXIT_OK;
	for (int i = optind; i < argc; i++) {
		size_t before = nr;
		if (expand(argv[i], &dirs, &nr, err, sizeof(err)) != 0) {
			rc = cli_error(EXIT_FAIL, "validate", "%s", err);
			goto done;
		}
		int *g = realloc(named, (nr ? nr : 1) * sizeof(*g));
		if (!g) {
			rc = cli_error(EXIT_FAIL, "validate", "out of memory");
			goto done;
		}
		named = g;
		for (size_t k = before; k < nr; k++)
			named[k] = nr - before == 1 && strcmp(dirs[k], argv[i]) == 0;
	}
	sb.s = calloc(nr, sizeof(*sb.s));
	if (!sb.s) {
		rc = cli_error(EXIT_FAIL, "validate", "out of memory");
		goto done;
	}
	struct progress pr;
	progress_init(&pr, progress, "validate", "captures");
	progress_set_total(&pr, nr);
	for (size_t i = 0; i < nr; i++) {
		int r = score_capture(dirs[i], forced, &sb, &sb.s[sb.nr_sessions], err, sizeof(err));
		if (r < 0 || (r > 0 && named[i])) {
			progress_done(&pr, i);
			rc = cli_error(EXIT_FAIL, "validate", "%s", err);
			goto done;
		}
		sb.nr_sessions += r == 0;   /* a folder's other traces are passed over */
		progress_update(&pr, i + 1);
	}
	progress_done(&pr, nr);
	if (!sb.nr_sessions) {
		rc = cli_error(EXIT_FAIL, "validate", "no captured session among the inputs");
		goto done;
	}
	if (scoreboard_compute(&sb) != 0) {
		rc = cli_error(EXIT_FAIL, "validate", "out of memory");
		goto done;
	}
	struct atomic_file af;
	if (atomic_open(&af, out, err, sizeof(err)) != 0) {
		rc = cli_error(EXIT_FAIL, "validate", "%s", err);
		goto done;
	}
	scoreboard_print(af.fp, &sb, fmt);
	if (atomic_commit(&af, err, sizeof(err)) != 0)
		rc = cli_error(EXIT_FAIL, "validate", "%s", err);
done:
	for (size_t i = 0; i < nr; i++)
		free(dirs[i]);
	free(dirs);
	free(named);
	scoreboard_free(&sb);
	return rc;
}
