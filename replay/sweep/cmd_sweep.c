/* cmd_sweep.c — `vmreplay sweep`: run a sweep here, or on a Slurm cluster. */
#include "cli.h"
#include "ingest/ingest.h"
#include "slurm.h"
#include "sweep.h"
#include "sweep_exec.h"
#include "vmr/vmr.h"
#include "atomic.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

static const char usage[] =
	"usage: vmreplay sweep [options] FILE\n"
	"       vmreplay sweep --slurm [--chunk N] [--sbatch ARG]... [--wait] FILE\n"
	"\n"
	"Expands the sweep file FILE (traces x policies x swappiness x memory\n"
	"limits x swap presets x seeds) into independent runs and runs those\n"
	"without a result yet, on all cores or as one Slurm job array. Each trace\n"
	"is ingested once; each result is written whole or not at all, so an\n"
	"interrupted sweep, restarted, redoes only the missing runs.\n"
	"\n"
	"  -d, --dir DIR       the sweep directory (default: FILE without its\n"
	"                      extension, plus .results)\n"
	"  -j, --jobs N        runs at once (default: the online CPUs)\n"
	"  -n, --dry-run       write the plan, print it (TSV) and run nothing\n"
	"  -q, --quiet         no progress line and no summary\n"
	"      --slurm         submit the missing runs as one Slurm job array\n"
	"      --chunk N       runs per array task (default 1, or more to keep the\n"
	"                      array within 1000 tasks)\n"
	"      --sbatch ARG    pass ARG to sbatch (repeatable): --sbatch=--partition=short\n"
	"      --wait          wait for the job to end and check every run's result\n"
	"  -h, --help          this help\n"
	"\n"
	"The sweep file format: replay/sweep/sweep_file.h. Then: vmreplay stats DIR,\n"
	"vmreplay plot DIR. Exit status: 0 every run has its result, 1 bad sweep\n"
	"file or a run failed, 2 usage, 130 interrupted.\n";

static int self_exe(char *buf, size_t len)
{
	ssize_t n = readlink("/proc/self/exe", buf, len - 1);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	return 0;
}

static void default_dir(const char *file, char *buf, size_t len)
{
	snprintf(buf, len, "%s", file);
	char *slash = strrchr(buf, '/'), *dot = strrchr(buf, '.');
	if (dot && (!slash || dot > slash + 1))
		*dot = 0;
	snprintf(buf + strlen(buf), len - strlen(buf), ".results");
}

/* Ingests (or copies) every trace into DIR/traces/NAME.vmr, once. */
static int prepare_traces(const char *dir, const struct sweep_spec *s,
			  struct sweep_trace_info *info, int progress, char *err, size_t errlen)
{
	for (size_t i = 0; i < s->nr_traces; i++) {
		const struct sweep_trace *t = &s->traces[i];
		char target[4200], path[4200];
		snprintf(target, sizeof(target), "%s/traces/%s.vmr", dir, t->name);
		struct stat st;
		if (stat(t->path, &st) != 0) {
			snprintf(err, errlen, "%s:%d: trace: %s: %s", s->file, t->line, t->path,
				 strerror(errno));
			return -1;
		}
		struct vmr v;
		size_t pl = strlen(t->path);
		/* A trace directory, or an archive of one: ingested. */
		if (S_ISDIR(st.st_mode) || pl < 4 || strcmp(t->path + pl - 4, ".vmr") != 0) {
			struct ingest_opts o = { .trace = t->path, .output = target, .use_cache = 1,
						 .progress = progress };
			struct ingest_report rep;
			char e[2048];
			if (ingest(&o, &rep, path, sizeof(path), e, sizeof(e)) != 0) {
				snprintf(err, errlen, "%s:%d: trace: %s", s->file, t->line, e);
				return -1;
			}
		} else {
			/* A .vmr: verified, then copied whole beside the others. */
			char e[2048];
			struct atomic_file af;
			if (vmr_open(&v, t->path, e, sizeof(e)) != 0) {
				snprintf(err, errlen, "%s:%d: trace: %s", s->file, t->line, e);
				return -1;
			}
			int bad = atomic_open(&af, target, e, sizeof(e)) != 0;
			if (!bad) {
				bad = fwrite(v.map, 1, v.map_size, af.fp) != v.map_size;
				bad = atomic_commit(&af, e, sizeof(e)) != 0 || bad;
			}
			vmr_close(&v);
			if (bad) {
				snprintf(err, errlen, "%.3000s: %.1000s", target, e);
				return -1;
			}
		}
		char e[2048];
		if (vmr_open(&v, target, e, sizeof(e)) != 0) {
			snprintf(err, errlen, "%s", e);
			return -1;
		}
		struct sweep_trace_info *ti = &info[i];
		char buf[64];
		memset(ti, 0, sizeof(*ti));
		snprintf(ti->name, sizeof(ti->name), "%s", t->name);
		snprintf(ti->set, sizeof(ti->set), "%s", t->set);
		vmr_hash_hex(v.hdr->trace_hash, ti->hash);
		/* What it was captured under: its swappiness joins the sweep's
		 * default values, its limit is memory-limit captured. */
		if (vmr_meta_get(&v, "swappiness", buf, sizeof(buf)) && buf[0]) {
			ti->has_swappiness = 1;
			ti->swappiness = atoi(buf);
			if (ti->swappiness < 0 || ti->swappiness > 200)
				ti->has_swappiness = 0;
		}
		ti->captured_limit = vmr_meta_get(&v, "memory_limit", buf, sizeof(buf))
			? strtoull(buf, NULL, 10) : 0;
		ti->pages = v.hdr->nr_pages;
		ti->page_size = vmr_meta_get(&v, "page_size", buf, sizeof(buf)) ? strtoull(buf, NULL, 10) : 4096;
		if (!ti->page_size)
			ti->page_size = 4096;
		int empty = v.hdr->nr_accesses == 0;
		vmr_close(&v);
		if (empty) {
			snprintf(err, errlen, "%s:%d: trace: %s holds no memory accesses to replay",
				 s->file, t->line, t->path);
			return -1;
		}
	}
	return 0;
}

/* One sweep at a time per directory: two would clean each other's
 * staging files.  The lock goes with the process, however it dies. */
static int lock_dir(const char *dir, char *err, size_t errlen)
{
	char path[4200];
	snprintf(path, sizeof(path), "%s/.lock", dir);
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
	if (fd < 0) {
		snprintf(err, errlen, "%.3000s: %s", path, strerror(errno));
		return -1;
	}
	if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
		snprintf(err, errlen, "%.3000s: another vmreplay sweep is running in this directory", dir);
		close(fd);
		return -1;
	}
	return fd;
}

static unsigned online_cpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (unsigned)n : 1;
}

/* What a Slurm array task does: its share of the job's list. */
static int run_task(const char *dir, const char *todo, size_t chunk, size_t task, const char *exe)
{
	struct sweep_plan plan;
	char err[2048];
	if (sweep_plan_read(dir, &plan, err, sizeof(err)) != 0)
		return cli_error(EXIT_FAIL, "sweep", "%s", err);
	size_t *runs, n;
	if (slurm_task_runs(todo, chunk, task, &plan, &runs, &n, err, sizeof(err)) != 0) {
		sweep_plan_free(&plan);
		return cli_error(EXIT_FAIL, "sweep", "%s", err);
	}
	/* A requeued task finds some of its runs done already. */
	size_t *missing, nm, invalid, k = 0;
	if (sweep_missing(dir, &plan, &missing, &nm, &invalid, 1) == 0) {
		for (size_t i = 0; i < n; i++)
			for (size_t j = 0; j < nm; j++)
				if (missing[j] == runs[i]) {
					runs[k++] = runs[i];
					break;
				}
		n = k;
		free(missing);
	}
	const char *cpus = getenv("SLURM_CPUS_PER_TASK");
	struct sweep_exec_opts o = { .dir = dir, .exe = exe, .jobs = cpus ? (unsigned)atoi(cpus) : 1 };
	struct sweep_exec_report rep;
	int rc = n ? sweep_exec(&plan, runs, n, &o, &rep) : 0;
	free(runs);
	sweep_plan_free(&plan);
	if (rc != 0)
		return cli_error(EXIT_FAIL, "sweep", "array task %zu: %s", task,
				 rep.interrupted ? "interrupted" : rep.first_error);
	fprintf(stderr, "vmreplay sweep: array task %zu: %zu runs done\n", task, n);
	return EXIT_OK;
}

int cmd_sweep(int argc, char **argv)
{
	enum { OPT_SLURM = 256, OPT_CHUNK, OPT_SBATCH, OPT_WAIT, OPT_TASK, OPT_TODO };
	static const struct option opts[] = {
		{ "dir", required_argument, 0, 'd' },
		{ "jobs", required_argument, 0, 'j' },
		{ "dry-run", no_argument, 0, 'n' },
		{ "quiet", no_argument, 0, 'q' },
		{ "slurm", no_argument, 0, OPT_SLURM },
		{ "chunk", required_argument, 0, OPT_CHUNK },
		{ "sbatch", required_argument, 0, OPT_SBATCH },
		{ "wait", no_argument, 0, OPT_WAIT },
		{ "task", required_argument, 0, OPT_TASK },
		{ "todo", required_argument, 0, OPT_TODO },
		{ "help", no_argument, 0, 'h' },
		{ 0, 0, 0, 0 }
	};
	const char *dir_opt = NULL, *todo = NULL;
	uint64_t jobs = 0, chunk = 0, task = 0;
	int dry = 0, quiet = 0, slurm = 0, wait = 0, have_task = 0, c, rc = EXIT_FAIL;
	char **sbatch = calloc(argc + 1, sizeof(*sbatch));
	size_t nr_sbatch = 0;
	if (!sbatch)
		return cli_error(EXIT_FAIL, "sweep", "out of memory");
	while ((c = getopt_long(argc, argv, "d:j:nqh", opts, NULL)) != -1) {
		switch (c) {
		case 'd': dir_opt = optarg; break;
		case 'j':
			if (cli_parse_u64(optarg, 1, 4096, &jobs) != 0) {
				free(sbatch);
				return cli_error(EXIT_USAGE, "sweep", "--jobs: '%s' is not 1-4096", optarg);
			}
			break;
		case 'n': dry = 1; break;
		case 'q': quiet = 1; break;
		case OPT_SLURM: slurm = 1; break;
		case OPT_CHUNK:
			if (cli_parse_u64(optarg, 1, SWEEP_MAX_RUNS, &chunk) != 0) {
				free(sbatch);
				return cli_error(EXIT_USAGE, "sweep", "--chunk: '%s' is not a run count", optarg);
			}
			break;
		case OPT_SBATCH: sbatch[nr_sbatch++] = optarg; break;
		case OPT_WAIT: wait = 1; break;
		case OPT_TASK:
			if (cli_parse_u64(optarg, 0, SWEEP_MAX_RUNS, &task) != 0) {
				free(sbatch);
				return cli_error(EXIT_USAGE, "sweep", "--task: '%s' is not an array index", optarg);
			}
			have_task = 1;
			break;
		case OPT_TODO: todo = optarg; break;
		case 'h': fputs(usage, stdout); free(sbatch); return EXIT_OK;
		default: free(sbatch); return cli_bad_option("sweep", argv, "d:j:nqh");
		}
	}
	char exe[PATH_MAX];
	if (self_exe(exe, sizeof(exe)) != 0) {
		free(sbatch);
		return cli_error(EXIT_FAIL, "sweep", "cannot find my own executable (/proc/self/exe)");
	}
	if (optind != argc - 1) {
		free(sbatch);
		if (optind >= argc)
			return cli_error(EXIT_USAGE, "sweep", "a sweep file is required");
		return cli_error(EXIT_USAGE, "sweep", "'%s': one sweep file only", argv[optind + 1]);
	}
	if (have_task || todo) {
		free(sbatch);
		if (!have_task || !todo || !chunk)
			return cli_error(EXIT_USAGE, "sweep", "--task, --todo and --chunk go together "
					 "(they are what a Slurm array task runs)");
		return run_task(argv[optind], todo, chunk, task, exe);
	}
	if (!slurm && (chunk || nr_sbatch || wait)) {
		free(sbatch);
		return cli_error(EXIT_USAGE, "sweep", "--chunk, --sbatch and --wait go with --slurm");
	}

	const char *file = argv[optind];
	char err[4096] = "", dirbuf[PATH_MAX], dir[PATH_MAX];
	struct sweep_spec spec;
	if (sweep_file_read(file, &spec, err, sizeof(err)) != 0) {
		free(sbatch);
		return cli_error(EXIT_FAIL, "sweep", "%s", err);
	}
	if (!dir_opt) {
		default_dir(file, dirbuf, sizeof(dirbuf));
		dir_opt = dirbuf;
	}
	struct sweep_trace_info *info = calloc(spec.nr_traces, sizeof(*info));
	struct policy_list pl = { 0 };
	struct sweep_plan plan = { 0 };
	size_t *missing = NULL, nmissing = 0, invalid = 0;
	int lock = -1;
	int progress = !quiet && isatty(STDERR_FILENO);
	if (!info) {
		cli_error(EXIT_FAIL, "sweep", "out of memory");
		goto out;
	}
	if (sweep_mkdirs(dir_opt, err, sizeof(err)) != 0 || !realpath(dir_opt, dir)) {
		if (!err[0])
			snprintf(err, sizeof(err), "%.3000s: %s", dir_opt, strerror(errno));
		cli_error(EXIT_FAIL, "sweep", "%s", err);
		goto out;
	}
	if ((lock = lock_dir(dir, err, sizeof(err))) < 0 ||
	    policy_list_load(exe, &pl, err, sizeof(err)) != 0 ||
	    prepare_traces(dir, &spec, info, progress, err, sizeof(err)) != 0 ||
	    sweep_expand(&spec, &pl, info, &plan, err, sizeof(err)) != 0 ||
	    sweep_plan_write(dir, &plan, err, sizeof(err)) != 0) {
		cli_error(EXIT_FAIL, "sweep", "%s", err);
		goto out;
	}
	if (dry) {
		char path[PATH_MAX + 16];
		snprintf(path, sizeof(path), "%s/plan.tsv", dir);
		FILE *f = fopen(path, "r");
		char buf[65536];
		size_t n;
		while (f && (n = fread(buf, 1, sizeof(buf), f)) > 0)
			fwrite(buf, 1, n, stdout);
		if (f)
			fclose(f);
		rc = EXIT_OK;
		goto out;
	}
	if (!slurm)
		sweep_exec_clean(dir);
	if (sweep_missing(dir, &plan, &missing, &nmissing, &invalid, !quiet) != 0) {
		cli_error(EXIT_FAIL, "sweep", "out of memory");
		goto out;
	}
	if (nmissing == 0) {
		if (!quiet)
			fprintf(stderr, "vmreplay sweep: all %zu runs have their results in %s/results\n",
				plan.nr_runs, dir);
		rc = EXIT_OK;
		goto out;
	}
	if (slurm) {
		struct slurm_opts so = { .dir = dir, .exe = exe, .chunk = chunk, .sbatch_args = sbatch,
					 .nr_sbatch_args = nr_sbatch, .wait = wait, .progress = progress };
		char jobid[128];
		/* The job may run for days; nothing here needs the lock. */
		close(lock);
		lock = -1;
		if (slurm_submit(&plan, missing, nmissing, &so, jobid, sizeof(jobid), err, sizeof(err)) != 0) {
			cli_error(EXIT_FAIL, "sweep", "%s", err);
			goto out;
		}
		if (!wait)
			printf("%s\n", jobid);
		else if (!quiet)
			fprintf(stderr, "vmreplay sweep: job %s done: all %zu runs have their results "
				"in %s/results\n", jobid, plan.nr_runs, dir);
		rc = EXIT_OK;
		goto out;
	}
	struct sweep_exec_opts eo = { .dir = dir, .exe = exe, .jobs = jobs ? (unsigned)jobs : online_cpus(),
				      .progress = progress };
	struct sweep_exec_report rep;
	int failed = sweep_exec(&plan, missing, nmissing, &eo, &rep);
	if (rep.interrupted) {
		cli_error(EXIT_FAIL, "sweep", "interrupted: %zu of %zu runs have results; run the "
			  "same command again to do the rest", plan.nr_runs - nmissing + rep.done, plan.nr_runs);
		rc = 128 + rep.interrupted;
		goto out;
	}
	if (failed) {
		cli_error(EXIT_FAIL, "sweep", "%s%s", rep.first_error,
			  rep.failed > 1 ? " (and more runs failed)" : "");
		goto out;
	}
	if (!quiet) {
		char d[32];
		sweep_format_duration(rep.seconds, d, sizeof(d));
		fprintf(stderr, "vmreplay sweep: %zu runs (%zu done before, %zu now in %s on %u cores); "
			"results in %s/results\n", plan.nr_runs, plan.nr_runs - nmissing, rep.done, d,
			eo.jobs, dir);
	}
	rc = EXIT_OK;
out:
	if (lock >= 0)
		close(lock);
	free(missing);
	sweep_plan_free(&plan);
	policy_list_free(&pl);
	free(info);
	sweep_file_free(&spec);
	free(sbatch);
	return rc;
}
