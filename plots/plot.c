/* plot.c — write a sweep's figure data and draw it with gnuplot (plot.h). */
#include "plot.h"
#include "input.h"
#include "atomic.h"
#include "kernel_points.h"
#include "sweep/sweep.h"
#include "table.h"
#include "units.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

const char *const plot_default_metrics[] = {
	"pgsteal_file", "pgsteal_anon", "pgscan_file", "pgscan_anon",
	"workingset_refault_file", "workingset_refault_anon",
};
const size_t plot_nr_default_metrics = sizeof(plot_default_metrics) / sizeof(plot_default_metrics[0]);

/* ---- small helpers ----------------------------------------------------- */

static int fail(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

static int add_figure(struct figure_list *l, const char *stem, const char *data, int latex,
		      const char *caption, const char *trace, const char *cond)
{
	struct figure *g = realloc(l->f, (l->n + 1) * sizeof(*g));
	if (!g)
		return -1;
	l->f = g;
	struct figure *f = &l->f[l->n++];
	snprintf(f->stem, sizeof(f->stem), "%s", stem);
	snprintf(f->data, sizeof(f->data), "%s", data);
	snprintf(f->caption, sizeof(f->caption), "%s", caption);
	snprintf(f->trace, sizeof(f->trace), "%s", trace);
	snprintf(f->cond, sizeof(f->cond), "%s", cond);
	f->latex = latex;
	return 0;
}

static int add_omitted(struct figure_list *l, const char *trace, const char *cond, const char *metric)
{
	struct omitted *g = realloc(l->o, (l->no + 1) * sizeof(*g));
	if (!g)
		return -1;
	l->o = g;
	struct omitted *o = &l->o[l->no++];
	snprintf(o->trace, sizeof(o->trace), "%s", trace);
	snprintf(o->cond, sizeof(o->cond), "%s", cond);
	snprintf(o->metric, sizeof(o->metric), "%s", metric);
	return 0;
}

void figure_list_free(struct figure_list *l)
{
	free(l->o);
	free(l->f);
	memset(l, 0, sizeof(*l));
}

/* ---- gnuplot jobs --------------------------------------------------------- */

struct job {
	char script[64];
	char *vars;                    /* the -e text                        */
	char stem[1024];               /* relative to out                    */
	char data[1024];
	char caption[1536];
	char trace[65], cond[512];
	int latex;
	char stage[4200];              /* where gnuplot draws it: OUT/.stage/N */
};

struct jobs {
	struct job *j;
	size_t n;
};

static struct job *new_job(struct jobs *js, const char *script)
{
	struct job *g = realloc(js->j, (js->n + 1) * sizeof(*g));
	if (!g)
		return NULL;
	js->j = g;
	struct job *j = &js->j[js->n++];
	memset(j, 0, sizeof(*j));
	snprintf(j->script, sizeof(j->script), "%s", script);
	return j;
}

static const char *base_name(const char *stem)
{
	const char *slash = strrchr(stem, '/');
	return slash ? slash + 1 : stem;
}

/* The variables every job passes: where it draws (its staging folder,
 * absolute, as the LaTeX pass changes directory), then VARS. */
static int job_vars(struct job *j, const char *out, size_t index, int latex, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
static int job_vars(struct job *j, const char *out, size_t index, int latex, const char *fmt, ...)
{
	char *rest;
	va_list ap;
	va_start(ap, fmt);
	int n = vasprintf(&rest, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -1;
	snprintf(j->stage, sizeof(j->stage), "%s/.stage/%zu", out, index);
	const char *name = base_name(j->stem);
	j->latex = latex;
	if (latex)
		n = asprintf(&j->vars, "outprefix='%s/%s'; latexdir='%s/latex'; latexname='%s'; %s",
			     j->stage, name, j->stage, name, rest);
	else
		n = asprintf(&j->vars, "outprefix='%s/%s'; %s", j->stage, name, rest);
	free(rest);
	return n < 0 ? -1 : 0;
}

static void free_jobs(struct jobs *js)
{
	for (size_t i = 0; i < js->n; i++)
		free(js->j[i].vars);
	free(js->j);
}

static int nonempty(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && st.st_size > 0;
}

/* Runs every job, JOBS at a time; each one's stderr goes to a log that
 * is quoted if it fails.  gnuplot reports errors on stderr and a
 * non-zero status, but only warns (status 0) about a plot with no data,
 * so the outputs are checked too. */
static int run_jobs(struct jobs *js, const struct plot_opts *o, const char *out,
		    struct figure_list *figs, char *err, size_t errlen)
{
	size_t next = 0, running = 0, failed = 0;
	pid_t *pids = calloc(js->n + 1, sizeof(*pids));
	if (!pids)
		return fail(err, errlen, "out of memory");
	while (next < js->n || running) {
		while (running < (o->jobs ? o->jobs : 1) && next < js->n && !failed) {
			struct job *j = &js->j[next];
			char script[4200], log[4400];
			snprintf(script, sizeof(script), "%s/%s", o->scripts, j->script);
			snprintf(log, sizeof(log), "%s/gnuplot.log", j->stage);
			char latexdir[4300];
			snprintf(latexdir, sizeof(latexdir), "%s/latex", j->stage);
			if (mkdir_p(latexdir) != 0)
				return free(pids), fail(err, errlen, "%s: cannot create: %s", latexdir,
							strerror(errno));
			pid_t pid = fork();
			if (pid < 0)
				return free(pids), fail(err, errlen, "fork: %s", strerror(errno));
			if (pid == 0) {
				int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0666);
				if (fd >= 0) {
					dup2(fd, STDERR_FILENO);
					dup2(fd, STDOUT_FILENO);
				}
				execlp("gnuplot", "gnuplot", "-e", j->vars, script, (char *)NULL);
				fprintf(stderr, "cannot run gnuplot: %s (make deps installs it)\n", strerror(errno));
				_exit(127);
			}
			pids[next++] = pid;
			running++;
		}
		if (!running)
			break;
		int status;
		pid_t pid = wait(&status);
		if (pid < 0)
			break;
		size_t i;
		for (i = 0; i < js->n && pids[i] != pid; i++)
			;
		if (i == js->n)
			continue;
		running--;
		struct job *j = &js->j[i];
		char log[4400], keep[4400];
		snprintf(log, sizeof(log), "%s/gnuplot.log", j->stage);
		snprintf(keep, sizeof(keep), "%s/%s.log", out, j->stem);
		int ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
		/* Every output whole, then moved into place: a crash or a
		 * warning-only failure leaves the previous figure, never an
		 * empty one. */
		static const char *const ext[] = { ".pdf", ".svg", ".png", ".tex", ".pdf" };
		const char *name = base_name(j->stem);
		char from[5][5400], to[5][5400], dir[1100];
		snprintf(dir, sizeof(dir), "%.*s", (int)(name - j->stem), j->stem);
		int nout = j->latex ? 5 : 3;
		for (int e = 0; e < nout; e++) {
			snprintf(from[e], sizeof(from[e]), "%s/%s%s%s", j->stage, e >= 3 ? "latex/" : "",
				 name, ext[e]);
			snprintf(to[e], sizeof(to[e]), "%s/%s%s%s%s", out, dir, e >= 3 ? "latex/" : "",
				 name, ext[e]);
			ok = ok && nonempty(from[e]);
		}
		for (int e = 0; e < nout && ok; e++)
			if (rename(from[e], to[e]) != 0)
				ok = 0;
		if (!ok)
			rename(log, keep);
		for (int e = 0; e < nout; e++)
			unlink(from[e]);
		unlink(log);
		char latexdir[4300];
		snprintf(latexdir, sizeof(latexdir), "%s/latex", j->stage);
		rmdir(latexdir);
		rmdir(j->stage);
		if (!ok) {
			snprintf(log, sizeof(log), "%s", keep);
			if (!failed++) {
				char line[512] = "";
				FILE *f = fopen(log, "r");
				if (f) {
					if (!fgets(line, sizeof(line), f))
						line[0] = 0;
					fclose(f);
				}
				line[strcspn(line, "\n")] = 0;
				fail(err, errlen, "gnuplot %s for %s failed: %s (log: %s)", j->script,
				     j->stem, line[0] ? line : "no output", log);
			}
			continue;
		}
		unlink(keep);
		pids[i] = -1;          /* done and good */
	}
	char stage[4200];
	snprintf(stage, sizeof(stage), "%s/.stage", out);
	rmdir(stage);
	/* Listed in the order they were planned, not the order they ended. */
	for (size_t i = 0; i < js->n && !failed; i++)
		if (pids[i] == -1 && add_figure(figs, js->j[i].stem, js->j[i].data, js->j[i].latex,
						js->j[i].caption, js->j[i].trace, js->j[i].cond) != 0)
			failed = (size_t)(fail(err, errlen, "out of memory") != 0);
	free(pids);
	return failed ? -1 : 0;
}

/* ---- what the figures show ---------------------------------------------- */

/* A condition: what all curves of one figure share. */
static int same_condition(const struct stats_group *a, const struct stats_group *b)
{
	return strcmp(a->trace, b->trace) == 0 && a->memory_limit == b->memory_limit &&
	       a->node_memory == b->node_memory && strcmp(a->swap, b->swap) == 0;
}

static void condition_dir(const struct stats_group *g, char *buf, size_t len)
{
	size_t used = g->memory_limit
		? (size_t)snprintf(buf, len, "%s/limit-%" PRIu64 "K", g->trace, g->memory_limit / 1024)
		: (size_t)snprintf(buf, len, "%s/limit-none", g->trace);
	if (g->node_memory && used < len)
		used += snprintf(buf + used, len - used, "_node-%" PRIu64 "K", g->node_memory / 1024);
	if (strcmp(g->swap, "-") && used < len) {
		used += snprintf(buf + used, len - used, "_swap-");
		/* "ssd,size=2G" is a fine swap device and a poor file name. */
		for (const char *s = g->swap; *s && used + 1 < len; s++)
			buf[used++] = (*s == ',' || *s == '=' || *s == '/') ? '_' : *s;
		buf[used] = 0;
	}
}

static void condition_text(const struct stats_group *g, char *buf, size_t len)
{
	char mem[32], node[32];
	table_format_limit(g->memory_limit, mem, sizeof(mem));
	size_t used = snprintf(buf, len, "%s, memory limit %s", g->trace, mem);
	if (g->node_memory && used < len) {
		table_format_size(g->node_memory, node, sizeof(node));
		used += snprintf(buf + used, len - used, ", node memory %s", node);
	}
	if (strcmp(g->swap, "-") && used < len)
		snprintf(buf + used, len - used, ", swap %s", g->swap);
}

static long metric_index(const struct stats *st, const char *name)
{
	for (size_t i = 0; i < st->nr_metrics; i++)
		if (strcmp(st->metrics[i], name) == 0)
			return (long)i;
	return -1;
}

/* The policies of the sweep, in the order they first appear (the plan's,
 * which is --list-policies' order): a policy's colour is its place here,
 * the same in every figure. */
struct policies {
	const char *name[256];
	size_t n;
};

/* The figures' data: ten significant digits (no 6050.8000000000002),
 * "-" for a value that is not there (an sd of one run, no test). */
static void put_real(FILE *f, double v)
{
	if (isfinite(v))
		fprintf(f, "\t%.10g", v);
	else
		fputs("\t-", f);
}

static size_t policy_colour(const struct policies *p, const char *name)
{
	for (size_t i = 0; i < p->n; i++)
		if (strcmp(p->name[i], name) == 0)
			return i + 1;
	return 1;
}

static int cmp_row_swappiness(const void *a, const void *b, void *arg)
{
	const struct stats *st = arg;
	int x = st->groups[(*(const struct stats_row *const *)a)->group].swappiness;
	int y = st->groups[(*(const struct stats_row *const *)b)->group].swappiness;
	return (x > y) - (x < y);
}

/* What a metric's data file holds, for its figure. */
struct metric_data {
	char pols[2048], cols[512];    /* the policies, in block order, and colours */
	const char *block[256];
	int has_change[256];           /* a finite change from the baseline */
	size_t nr_blocks;
	size_t npoints;                /* the most points of a curve        */
	double max;                    /* the largest value drawn           */
	int nonzero;                   /* some mean is not 0                */
};

/* Writes a swappiness.gp data file of metric M in the condition of C. */
static int write_metric_data(const struct stats *st, const struct stats_group *c, size_t m,
			     const struct policies *all, const char *path, struct metric_data *md,
			     char *err, size_t errlen)
{
	struct atomic_file af;
	if (atomic_open(&af, path, err, errlen) != 0)
		return -1;
	const struct stats_row **rows = calloc(st->nr_rows + 1, sizeof(*rows));
	if (!rows) {
		atomic_abort(&af);
		return fail(err, errlen, "out of memory");
	}
	fprintf(af.fp, "# %s versus swappiness; one block per policy; - where a value is not there\n"
		"# swappiness\tmean\tci_low\tci_high\tn\tsd\tsignificant\tp_holm\tpolicy\tbaseline\t"
		"change_pct\tchange_ci_low_pct\tchange_ci_high_pct\n", st->metrics[m]);
	memset(md, 0, sizeof(*md));
	for (size_t p = 0; p < all->n; p++) {
		size_t nr = 0;
		for (size_t i = 0; i < st->nr_rows; i++) {
			const struct stats_row *r = &st->rows[i];
			const struct stats_group *g = &st->groups[r->group];
			if (r->metric == m && g->swappiness >= 0 && same_condition(g, c) &&
			    strcmp(g->policy, all->name[p]) == 0)
				rows[nr++] = r;
		}
		if (!nr)
			continue;
		qsort_r(rows, nr, sizeof(*rows), cmp_row_swappiness, (void *)st);
		if (md->nr_blocks)
			fputs("\n\n", af.fp);
		md->block[md->nr_blocks++] = all->name[p];
		md->npoints = nr > md->npoints ? nr : md->npoints;
		for (size_t i = 0; i < nr; i++) {
			const struct stats_row *r = rows[i];
			/* n = 1: no interval; a zero-length bar, not a gap. */
			double lo = isnan(r->ci_low) ? r->mean : r->ci_low;
			double hi = isnan(r->ci_high) ? r->mean : r->ci_high;
			double bm = r->base >= 0 ? fabs(st->rows[r->base].mean) : NAN;
			double pct = 100 * r->rel_diff, plo = bm > 0 ? 100 * r->diff_lo / bm : NAN,
			       phi = bm > 0 ? 100 * r->diff_hi / bm : NAN;
			if (isnan(plo))
				plo = phi = pct;
			fprintf(af.fp, "%d", st->groups[r->group].swappiness);
			put_real(af.fp, r->mean);
			put_real(af.fp, lo);
			put_real(af.fp, hi);
			fprintf(af.fp, "\t%zu", r->n);
			put_real(af.fp, r->sd);
			fprintf(af.fp, "\t%d", r->significant);
			put_real(af.fp, r->p_holm);
			fprintf(af.fp, "\t%s\t%s", all->name[p],
				r->base >= 0 ? st->groups[st->rows[r->base].group].policy : "-");
			/* swappiness.gp reads "-" as an undefined point (NaN) */
			const double ch[3] = { pct, plo, phi };
			for (int k = 0; k < 3; k++)
				put_real(af.fp, ch[k]);
			md->has_change[md->nr_blocks - 1] |= isfinite(pct);
			fputc('\n', af.fp);
			md->nonzero |= r->mean != 0;
			md->max = fmax(md->max, fmax(hi, r->mean));
		}
		snprintf(md->pols + strlen(md->pols), sizeof(md->pols) - strlen(md->pols), "%s%s",
			 md->nr_blocks > 1 ? " " : "", all->name[p]);
		snprintf(md->cols + strlen(md->cols), sizeof(md->cols) - strlen(md->cols), "%s%zu",
			 md->nr_blocks > 1 ? " " : "", policy_colour(all, all->name[p]));
	}
	free(rows);
	if (!md->nr_blocks) {
		atomic_abort(&af);
		return 0;
	}
	return atomic_commit_nosync(&af, err, errlen) == 0 ? 1 : -1;
}

/* ---- per-event data: CDF and timeline -------------------------------- */

struct column_file {
	double *x;
	size_t n;
};

/* Appends to OUT the numbers of column NAME of the TSV at PATH, scaled. */
static int read_column(const char *path, const char *name, double scale, struct column_file *out,
		       char *err, size_t errlen)
{
	FILE *f = input_open(path, err, errlen);
	if (!f)
		return -1;
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	int col = -1, lineno = 0, rc = 0;
	while ((len = getline(&line, &cap, f)) > 0) {
		lineno++;
		if (line[len - 1] != '\n') {  /* a file cut short: its last row is not whole */
			rc = fail(err, errlen, "%s: line %d: the file ends in the middle of a line", path, lineno);
			goto out;
		}
		line[len - 1] = 0;
		int i = 0;
		char *save, *tok = strtok_r(line, "\t", &save);
		for (; tok; tok = strtok_r(NULL, "\t", &save), i++) {
			if (lineno == 1) {
				if (strcmp(tok, name) == 0)
					col = i;
				continue;
			}
			if (i != col)
				continue;
			char *end;
			double v = strtod(tok, &end);
			if (end == tok || *end || !isfinite(v)) {
				rc = fail(err, errlen, "%s: line %d: %s: '%s' is not a number", path,
					  lineno, name, tok);
				goto out;
			}
			if ((out->n & (out->n - 1)) == 0) {
				double *g = realloc(out->x, (out->n ? 2 * out->n : 1024) * sizeof(*g));
				if (!g) {
					rc = fail(err, errlen, "out of memory");
					goto out;
				}
				out->x = g;
			}
			out->x[out->n++] = v * scale;
		}
		if (lineno == 1 && col < 0) {
			rc = fail(err, errlen, "%s: line 1: no column '%s'", path, name);
			goto out;
		}
	}
out:
	free(line);
	fclose(f);
	return rc;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* The sweeps being drawn: their plans, to find each run's event files. */
struct sweeps {
	char *const *dir;
	struct sweep_plan *plan;
	size_t n;
};

/* The next run of POLICY at SWAPPINESS in condition C; *FROM is a cursor
 * over all sweeps' runs, *DIR gets the run's sweep directory. */
static const struct sweep_run *runs_of(const struct sweeps *sw, const struct stats_group *c,
				       const char *policy, int swappiness, size_t *from,
				       const char **dir)
{
	size_t base = 0;
	for (size_t d = 0; d < sw->n; base += sw->plan[d++].nr_runs) {
	const struct sweep_plan *plan = &sw->plan[d];
	if (*from >= base + plan->nr_runs)
		continue;
	for (size_t i = *from - base; i < plan->nr_runs; i++) {
		const struct sweep_run *r = &plan->runs[i];
		if (strcmp(plan->traces[r->trace].name, c->trace) || r->memory_limit != c->memory_limit ||
		    r->node_memory != c->node_memory || strcmp(r->swap[0] ? r->swap : "-", c->swap) ||
		    strcmp(r->policy, policy) || r->swappiness != swappiness)
			continue;
		*from = base + i + 1;
		*dir = sw->dir[d];
		return r;
	}
	*from = base + plan->nr_runs;
	}
	return NULL;
}

/* CDF data of COLUMN over every events file of each policy's runs at
 * SWAPPINESS; returns the number of policies with events (0: no file). */
static int write_cdf(const struct sweeps *sw,
		     const struct stats_group *c, const struct policies *pols, int swappiness,
		     const char *column, double scale, const char *path, char *names, size_t nlen,
		     char *cols, size_t clen, size_t *seeds, char *err, size_t errlen)
{
	struct atomic_file af;
	if (atomic_open(&af, path, err, errlen) != 0)
		return -1;
	fprintf(af.fp, "# CDF of %s per reclaim invocation; one block per policy\n# value\tfraction\n", column);
	names[0] = cols[0] = 0;
	int blocks = 0;
	*seeds = 0;
	for (size_t p = 0; p < pols->n; p++) {
		struct column_file v = { 0 };
		size_t from = 0, files = 0;
		const struct sweep_run *r;
		const char *dir;
		while ((r = runs_of(sw, c, pols->name[p], swappiness, &from, &dir))) {
			char ev[4200];
			snprintf(ev, sizeof(ev), "%s/events/%s.tsv", dir, r->id);
			if (!r->events || access(ev, F_OK) != 0)
				continue;
			if (read_column(ev, column, scale, &v, err, errlen) != 0) {
				free(v.x);
				atomic_abort(&af);
				return -1;
			}
			files++;
		}
		if (!files || !v.n) {
			free(v.x);
			continue;
		}
		*seeds = files > *seeds ? files : *seeds;
		qsort(v.x, v.n, sizeof(*v.x), cmp_double);
		if (blocks++)
			fputs("\n\n", af.fp);
		/* One point per distinct value: the step's top. */
		for (size_t i = 0; i < v.n; i++)
			if (i + 1 == v.n || v.x[i + 1] != v.x[i])
				fprintf(af.fp, "%.10g\t%.10g\n", v.x[i], (double)(i + 1) / v.n);
		free(v.x);
		snprintf(names + strlen(names), nlen - strlen(names), "%s%s", blocks > 1 ? " " : "",
			 pols->name[p]);
		snprintf(cols + strlen(cols), clen - strlen(cols), "%s%zu", blocks > 1 ? " " : "",
			 policy_colour(pols, pols->name[p]));
	}
	if (!blocks) {
		atomic_abort(&af);
		return 0;
	}
	return atomic_commit_nosync(&af, err, errlen) == 0 ? blocks : -1;
}

/*
 * A timeline has a sample per isolation change: hundreds of thousands in
 * a busy run, more than a figure can show or a reader wants to download.
 * Past TIMELINE_POINTS samples they are binned by time, each bin keeping
 * its maxima: a spike of isolation survives, which an average or a
 * subsample could hide.  (throttled_total only grows: its max is its
 * last value.)
 */
#define TIMELINE_POINTS 4000

static void write_binned(FILE *f, const struct column_file *v)
{
	size_t n = v[0].n;
	if (n <= TIMELINE_POINTS) {
		for (size_t i = 0; i < n; i++)
			fprintf(f, "%.9g\t%.10g\t%.10g\t%.10g\n", v[0].x[i], v[1].x[i], v[2].x[i], v[3].x[i]);
		return;
	}
	double t0 = v[0].x[0], span = v[0].x[n - 1] - t0;
	size_t bins = TIMELINE_POINTS / 2, i = 0;
	for (size_t b = 0; b < bins && i < n; b++) {
		double end = t0 + span * (b + 1) / bins;
		double m[4] = { v[0].x[i], v[1].x[i], v[2].x[i], v[3].x[i] };
		size_t k = 0;
		for (; i < n && (v[0].x[i] <= end || b + 1 == bins); i++, k++)
			for (int c = 1; c < 4; c++)
				m[c] = v[c].x[i] > m[c] ? v[c].x[i] : m[c];
		if (k)
			fprintf(f, "%.9g\t%.10g\t%.10g\t%.10g\n", m[0], m[1], m[2], m[3]);
	}
}

/* Timeline data: the first run (lowest seed) of each policy at SWAPPINESS
 * that recorded one. */
static int write_timeline(const struct sweeps *sw,
			  const struct stats_group *c, const struct policies *pols, int swappiness,
			  const char *path, char *names, size_t nlen, char *cols, size_t clen,
			  long *seed, char *err, size_t errlen)
{
	static const char *const colname[] = { "time_ns", "nr_isolated_anon", "nr_isolated_file",
					       "throttled_total" };
	struct atomic_file af;
	if (atomic_open(&af, path, err, errlen) != 0)
		return -1;
	fputs("# isolation and throttling over virtual time; one block per policy;\n"
	      "# past 4000 samples, each line is the maximum over a bin starting at time_ms\n"
	      "# time_ms\tnr_isolated_anon\tnr_isolated_file\tthrottled_total\n", af.fp);
	names[0] = cols[0] = 0;
	int blocks = 0;
	*seed = -1;
	for (size_t p = 0; p < pols->n; p++) {
		size_t from = 0;
		const struct sweep_run *r, *best = NULL;
		const char *dir, *best_dir = NULL;
		char tl[4200];
		while ((r = runs_of(sw, c, pols->name[p], swappiness, &from, &dir))) {
			snprintf(tl, sizeof(tl), "%s/timeline/%s.tsv", dir, r->id);
			if (r->timeline && access(tl, F_OK) == 0 && (!best || r->seed < best->seed)) {
				best = r;
				best_dir = dir;
			}
		}
		if (!best)
			continue;
		snprintf(tl, sizeof(tl), "%s/timeline/%s.tsv", best_dir, best->id);
		struct column_file v[4] = { { 0 } };
		int bad = 0;
		for (int k = 0; k < 4 && !bad; k++)
			bad = read_column(tl, colname[k], k == 0 ? 1e-6 : 1, &v[k], err, errlen) != 0;
		if (!bad && (v[1].n != v[0].n || v[2].n != v[0].n || v[3].n != v[0].n))
			bad = fail(err, errlen, "%s: rows of unequal length", tl);
		if (!bad && v[0].n) {
			if (blocks++)
				fputs("\n\n", af.fp);
			write_binned(af.fp, v);
			snprintf(names + strlen(names), nlen - strlen(names), "%s%s", blocks > 1 ? " " : "",
				 pols->name[p]);
			snprintf(cols + strlen(cols), clen - strlen(cols), "%s%zu", blocks > 1 ? " " : "",
				 policy_colour(pols, pols->name[p]));
			*seed = best->seed;
		}
		for (int k = 0; k < 4; k++)
			free(v[k].x);
		if (bad) {
			atomic_abort(&af);
			return -1;
		}
	}
	if (!blocks) {
		atomic_abort(&af);
		return 0;
	}
	return atomic_commit_nosync(&af, err, errlen) == 0 ? blocks : -1;
}

/* ---- the figures of one condition ------------------------------------- */

static int swept(const struct stats *st, const struct stats_group *c, int *nearest60)
{
	int seen[201] = { 0 }, n = 0;
	for (size_t g = 0; g < st->nr_groups; g++)
		if (same_condition(&st->groups[g], c) && st->groups[g].swappiness >= 0)
			seen[st->groups[g].swappiness] = 1;
	*nearest60 = -1;
	for (int s = 0; s <= 200; s++)
		if (seen[s]) {
			n++;
			/* The CDF and timeline show one swappiness: the one
			 * nearest the kernel's default, 60. */
			if (*nearest60 < 0 || abs(s - 60) < abs(*nearest60 - 60))
				*nearest60 = s;
		}
	return n;
}

/* The replicates of a condition, for captions: "mean of 3 captures (3
 * seeds each)" or "mean of 5 seeds of one trace (the simulator's noise,
 * not the workload's)"; and which tests marked means come from. */
static void replicates_text(const struct stats *st, const struct stats_group *c, char *buf,
			    size_t len, char *test, size_t tlen)
{
	size_t nmin = SIZE_MAX, nmax = 0, runs = 0;
	int caps = 0, seeds = 0, paired = 0, welch = 0;
	for (size_t i = 0; i < st->nr_rows; i++) {
		const struct stats_row *r = &st->rows[i];
		if (!same_condition(&st->groups[r->group], c) || st->groups[r->group].swappiness < 0)
			continue;
		nmin = r->n < nmin ? r->n : nmin;
		nmax = r->n > nmax ? r->n : nmax;
		runs = r->runs > runs ? r->runs : runs;
		caps |= r->rep == STATS_REP_CAPTURES;
		seeds |= r->rep == STATS_REP_SEEDS;
		paired |= r->test == STATS_TESTED && r->method == STATS_PAIRED;
		welch |= r->test == STATS_TESTED && r->method == STATS_WELCH;
	}
	char n[32];
	if (nmin == nmax)
		snprintf(n, sizeof(n), "%zu", nmax);
	else
		snprintf(n, sizeof(n), "%zu-%zu", nmin == SIZE_MAX ? 0 : nmin, nmax);
	if (caps && !seeds)
		snprintf(buf, len, "mean of %s captures (%zu seeds each)", n, nmax ? (runs + nmax - 1) / nmax : 1);
	else if (caps)
		snprintf(buf, len, "mean of %s captures or, with one capture, seeds", n);
	else if (nmax > 1)
		snprintf(buf, len, "mean of %s seeds of one trace (the simulator's noise, not the workload's)", n);
	else
		snprintf(buf, len, "one run");
	snprintf(test, tlen, "%s", paired && welch ? "paired t on the same captures, or Welch"
		 : paired ? "paired t on the same captures" : "Welch's t");
}

/* The kernel's counter of metric K in condition C: one point per
 * capture, at the swappiness it was captured at.  Returns the points
 * written; 0 writes no file. */
static int write_kernel(const struct kernel_points *kp, const struct stats_group *c, size_t k,
			const char *path, char *kind, size_t klen, double *max, char *err, size_t errlen)
{
	size_t n = 0;
	for (size_t i = 0; i < kp->n; i++)
		n += kernel_points_match(&kp->c[i], c) && !isnan(kp->c[i].value[k]);
	if (!n)
		return 0;
	struct atomic_file af;
	if (atomic_open(&af, path, err, errlen) != 0)
		return -1;
	fputs("# the captured kernel's own counter, one line per capture\n"
	      "# swappiness\tvalue\tcapture\n", af.fp);
	for (size_t i = 0; i < kp->n; i++) {
		const struct kernel_capture *x = &kp->c[i];
		if (!kernel_points_match(x, c) || isnan(x->value[k]))
			continue;
		fprintf(af.fp, "%d\t%.10g\t%s\n", x->swappiness, x->value[k], x->name);
		snprintf(kind, klen, "%s", x->lru_kind);
		*max = fmax(*max, x->value[k]);
	}
	return atomic_commit_nosync(&af, err, errlen) == 0 ? (int)n : -1;
}

static int is_block(const struct metric_data *md, const char *policy)
{
	for (size_t i = 0; i < md->nr_blocks; i++)
		if (strcmp(md->block[i], policy) == 0)
			return (int)i + 1;
	return 0;
}

/* One panel per policy against its baseline ("V:B", block numbers);
 * a policy with no baseline here that is nobody's baseline either gets
 * one of its own ("V").  Where the kernel's points go: the panels with
 * the kind of LRU the kernel ran. */
static void make_panels(const struct metric_data *md, const struct baseline_rules *rules, const char *kind,
			int relative, char *panels, size_t plen, char *kin, size_t klen)
{
	int is_base[256] = { 0 }, has_panel[256] = { 0 };
	char base[64];
	panels[0] = kin[0] = 0;
	for (size_t i = 0; i < md->nr_blocks; i++) {
		int b = baseline_of(rules, md->block[i], base, sizeof(base)) ? is_block(md, base) : 0;
		if (b) {
			is_base[b - 1] = 1;
			has_panel[i] = b;
		}
	}
	for (size_t i = 0; i < md->nr_blocks; i++) {
		if (!has_panel[i] && is_base[i])
			continue;
		/* A change from a baseline of 0 is no number: no panel. */
		if (relative && (!has_panel[i] || !md->has_change[i]))
			continue;
		size_t used = strlen(panels);
		if (has_panel[i])
			snprintf(panels + used, plen - used, "%s%zu:%d", used ? " " : "", i + 1, has_panel[i]);
		else
			snprintf(panels + used, plen - used, "%s%zu", used ? " " : "", i + 1);
		int k = kind[0] && (strcmp(md->block[i], kind) == 0 ||
				    (has_panel[i] && strcmp(md->block[has_panel[i] - 1], kind) == 0));
		used = strlen(kin);
		snprintf(kin + used, klen - used, "%s%d", used ? " " : "", k);
	}
}

/* TEXT for a gnuplot single-quoted string, where '' is a quote. */
static const char *gpq(const char *text, char *buf, size_t len)
{
	size_t k = 0;
	for (; *text && k + 2 < len; text++) {
		if (*text == '\'')
			buf[k++] = '\'';
		buf[k++] = *text;
	}
	buf[k] = 0;
	return buf;
}

static const char *yformat(double max)
{
	return max >= 1e4 ? "%.1s%c" : "%g";
}

struct ctx {
	const struct stats *st;
	const struct sweeps *sw;
	const struct plot_opts *o;
	const struct kernel_points *kp;
	const struct policies *pols;
	struct jobs *js;
	struct figure_list *figs;
	const char *absout;
};

static int condition_figures(const struct ctx *x, const struct stats_group *c, char *err, size_t errlen)
{
	const struct stats *st = x->st;
	const struct plot_opts *o = x->o;
	struct jobs *js = x->js;
	char rel[300], dir[4200], ctext[512], path[4200], reps[256], test[64];
	condition_dir(c, rel, sizeof(rel));
	condition_text(c, ctext, sizeof(ctext));
	replicates_text(st, c, reps, sizeof(reps), test, sizeof(test));
	snprintf(dir, sizeof(dir), "%s/%s/latex", x->absout, rel);
	if (mkdir_p(dir) != 0)
		return fail(err, errlen, "%s: cannot create: %s", dir, strerror(errno));
	int near60;
	swept(st, c, &near60);

	char ov_files[6 * 4300] = "", ov_metrics[2048] = "", ov_units[512] = "", ov_kf[6 * 4300] = "",
	     ov_k[64] = "", ov_fmt[128] = "", ov_pols[2048] = "", ov_cols[512] = "", ov_show[256] = "";
	int ov_n = 0, ov_ok = 1, any_kernel = 0;
	size_t ov_points = 0;
	for (size_t k = 0; k < o->nr_metrics; k++) {
		long m = metric_index(st, o->metrics[k]);
		if (m < 0)
			continue;
		struct metric_data md;
		snprintf(path, sizeof(path), "%s/%s/%s.tsv", x->absout, rel, o->metrics[k]);
		int have = write_metric_data(st, c, (size_t)m, x->pols, path, &md, err, errlen);
		if (have < 0)
			return -1;
		if (!have)
			continue;
		char kpath[4300], kind[16] = "";
		snprintf(kpath, sizeof(kpath), "%s/%s/%s.kernel.tsv", x->absout, rel, o->metrics[k]);
		double kmax = 0;
		int nk = write_kernel(x->kp, c, k, kpath, kind, sizeof(kind), &kmax, err, errlen);
		if (nk < 0)
			return -1;
		if (!md.nonzero && kmax == 0) {
			/* Nothing to see: 0 in every run (and in the kernel). */
			unlink(path);
			if (nk)
				unlink(kpath);
			if (add_omitted(x->figs, c->trace, ctext, o->metrics[k]) != 0)
				return fail(err, errlen, "out of memory");
			continue;
		}
		any_kernel |= nk > 0;
		char label[128], panels[1024], kin[512], note[512], qnote[1100];
		double scale;
		metric_label(o->metrics[k], label, sizeof(label), &scale);
		int relative = o->relative;
		make_panels(&md, o->baselines, nk ? kind : "", relative, panels, sizeof(panels), kin,
			    sizeof(kin));
		if (relative && !panels[0]) {
			/* Nothing has a change to draw (every baseline 0 here):
			 * the values, from 0, say it. */
			relative = 0;
			make_panels(&md, o->baselines, nk ? kind : "", 0, panels, sizeof(panels), kin,
				    sizeof(kin));
		}
		/* The kernel has no baseline: it is not in the relative view. */
		int drawk = nk > 0 && !relative;
		snprintf(note, sizeof(note), "%s, %g%% CI; * Holm-adjusted p < %g (%s)%s", reps,
			 100 * st->conf_level, st->alpha, test, drawk ? "; x: the captured kernel" : "");
		struct job *j = new_job(js, "swappiness.gp");
		if (!j)
			return fail(err, errlen, "out of memory");
		snprintf(j->stem, sizeof(j->stem), "%s/%s", rel, o->metrics[k]);
		snprintf(j->data, sizeof(j->data), "%s/%s.tsv", rel, o->metrics[k]);
		snprintf(j->trace, sizeof(j->trace), "%s", c->trace);
		snprintf(j->cond, sizeof(j->cond), "%s", ctext);
		snprintf(j->caption, sizeof(j->caption), "%s versus swappiness, %s: %s, with %g%% "
			 "confidence intervals; one panel per policy against its baseline%s; * marks "
			 "a mean that differs from its baseline (%s, Holm-adjusted p < %g over the "
			 "headline metrics)%s.", label, ctext, reps, 100 * st->conf_level,
			 relative ? ", as its change from the baseline in % (where the baseline is "
			 "not 0)" : ", from 0", test,
			 st->alpha, drawk ? "; x is the captured kernel's own counter, at the swappiness "
			 "each capture ran at" : "");
		if (job_vars(j, x->absout, js->n - 1, 1, "datafile='%s'; policies='%s'; colours='%s'; "
			     "panels='%s'; metric='%s'; ylabel='%s'; subtitle='%s'; note='%s'; "
			     "npoints=%zu; scale=%g; relative=%d; yformat='%s'%s%s%s%s%s", path, md.pols,
			     md.cols, panels, o->metrics[k], label, ctext, gpq(note, qnote, sizeof(qnote)),
			     md.npoints, scale,
			     relative, relative ? "%g" : yformat(fmax(md.max, kmax) * scale),
			     drawk ? "; kernelfile='" : "", drawk ? kpath : "", drawk ? "'; kernelpanels='" : "",
			     drawk ? kin : "", drawk ? "'" : "") != 0)
			return fail(err, errlen, "out of memory");
		/* The overview: the same policies in every panel, the base
		 * ones (no "+patch": the kernel's choice of LRU). */
		if (ov_n == 0) {
			snprintf(ov_pols, sizeof(ov_pols), "%s", md.pols);
			snprintf(ov_cols, sizeof(ov_cols), "%s", md.cols);
			for (size_t b = 0; b < md.nr_blocks; b++)
				if (!strchr(md.block[b], '+'))
					snprintf(ov_show + strlen(ov_show), sizeof(ov_show) - strlen(ov_show),
						 "%s%zu", ov_show[0] ? " " : "", b + 1);
		} else if (strcmp(ov_pols, md.pols) != 0) {
			ov_ok = 0;
		}
		if (ov_n < 6) {
			const char *u = metric_unit(o->metrics[k]);
			snprintf(ov_files + strlen(ov_files), sizeof(ov_files) - strlen(ov_files), "%s%s",
				 ov_n ? " " : "", path);
			snprintf(ov_metrics + strlen(ov_metrics), sizeof(ov_metrics) - strlen(ov_metrics),
				 "%s%s", ov_n ? " " : "", o->metrics[k]);
			snprintf(ov_units + strlen(ov_units), sizeof(ov_units) - strlen(ov_units),
				 "%s%s", ov_n ? " " : "", *u ? u : "ratio");
			snprintf(ov_kf + strlen(ov_kf), sizeof(ov_kf) - strlen(ov_kf), "%s%s",
				 ov_n ? " " : "", nk ? kpath : path);
			snprintf(ov_k + strlen(ov_k), sizeof(ov_k) - strlen(ov_k), "%s%d", ov_n ? " " : "",
				 nk > 0);
			snprintf(ov_fmt + strlen(ov_fmt), sizeof(ov_fmt) - strlen(ov_fmt), "%s%s",
				 ov_n ? " " : "", yformat(fmax(md.max, kmax)));
			ov_points = md.npoints > ov_points ? md.npoints : ov_points;
			ov_n++;
		}
	}
	if (ov_n > 1 && ov_ok && ov_show[0]) {
		struct job *j = new_job(js, "overview.gp");
		if (!j)
			return fail(err, errlen, "out of memory");
		char note[512], qnote[1100];
		snprintf(note, sizeof(note), "%s, %g%% CI; * as in the single figures%s", reps,
			 100 * st->conf_level, any_kernel ? "; x: the captured kernel" : "");
		snprintf(j->stem, sizeof(j->stem), "%s/overview", rel);
		snprintf(j->data, sizeof(j->data), "%s/", rel);
		snprintf(j->trace, sizeof(j->trace), "%s", c->trace);
		snprintf(j->cond, sizeof(j->cond), "%s", ctext);
		snprintf(j->caption, sizeof(j->caption), "Overview, %.200s: %.400s versus swappiness "
			 "for the base policies (each variant is in its own figure), %s, %g%% "
			 "confidence intervals, from 0%s.", ctext, ov_metrics, reps, 100 * st->conf_level,
			 any_kernel ? "; x: the captured kernel's own counters" : "");
		if (job_vars(j, x->absout, js->n - 1, 1, "datafiles='%s'; metrics='%s'; units='%s'; "
			     "kernelfiles='%s'; kernels='%s'; yformats='%s'; policies='%s'; colours='%s'; "
			     "show='%s'; subtitle='%s'; note='%s'; npoints=%zu", ov_files, ov_metrics,
			     ov_units, ov_kf, ov_k, ov_fmt, ov_pols, ov_cols, ov_show, ctext,
			     gpq(note, qnote, sizeof(qnote)), ov_points) != 0)
			return fail(err, errlen, "out of memory");
	}

	int at = o->cdf_swappiness >= 0 ? o->cdf_swappiness : near60;
	if (at < 0)
		return 0;
	static const struct { const char *stem, *column, *label, *what; double scale; } cdfs[] = {
		{ "cdf_scanned", "nr_scanned", "pages scanned per reclaim invocation (pages)",
		  "pages scanned per reclaim invocation", 1 },
		{ "cdf_latency", "duration_ns", "latency of a reclaim invocation (us)",
		  "the latency of each reclaim invocation", 1e-3 },
	};
	for (size_t k = 0; k < 2; k++) {
		char pn[2048], pc[512];
		size_t seeds;
		snprintf(path, sizeof(path), "%s/%s/%s.tsv", x->absout, rel, cdfs[k].stem);
		int have = write_cdf(x->sw, c, x->pols, at, cdfs[k].column, cdfs[k].scale, path, pn,
				     sizeof(pn), pc, sizeof(pc), &seeds, err, errlen);
		if (have < 0)
			return -1;
		if (!have)
			continue;
		struct job *j = new_job(js, "cdf.gp");
		if (!j)
			return fail(err, errlen, "out of memory");
		snprintf(j->stem, sizeof(j->stem), "%s/%s", rel, cdfs[k].stem);
		snprintf(j->data, sizeof(j->data), "%s/%s.tsv", rel, cdfs[k].stem);
		snprintf(j->trace, sizeof(j->trace), "%s", c->trace);
		snprintf(j->cond, sizeof(j->cond), "%s", ctext);
		snprintf(j->caption, sizeof(j->caption), "Empirical CDF of %s at swappiness %d, %s; "
			 "every invocation (direct, kswapd, memcg) of %zu run%s pooled, one curve "
			 "per policy.", cdfs[k].what, at, ctext, seeds, seeds == 1 ? "" : "s");
		if (job_vars(j, x->absout, js->n - 1, 1, "datafile='%s'; policies='%s'; colours='%s'; "
			     "xlabel='%s'; subtitle='swappiness %d, %s'", path, pn, pc, cdfs[k].label,
			     at, ctext) != 0)
			return fail(err, errlen, "out of memory");
	}
	char pn[2048], pc[512];
	long seed;
	snprintf(path, sizeof(path), "%s/%s/timeline.tsv", x->absout, rel);
	int have = write_timeline(x->sw, c, x->pols, at, path, pn, sizeof(pn), pc, sizeof(pc), &seed,
				  err, errlen);
	if (have < 0)
		return -1;
	if (have) {
		struct job *j = new_job(js, "timeline.gp");
		if (!j)
			return fail(err, errlen, "out of memory");
		snprintf(j->stem, sizeof(j->stem), "%s/timeline", rel);
		snprintf(j->data, sizeof(j->data), "%s/timeline.tsv", rel);
		snprintf(j->trace, sizeof(j->trace), "%s", c->trace);
		snprintf(j->cond, sizeof(j->cond), "%s", ctext);
		snprintf(j->caption, sizeof(j->caption), "Pages isolated from the LRU lists (anon + "
			 "file) and the running count of reclaim throttle events over the run's "
			 "virtual time, swappiness %d, seed %ld, %s; one curve per policy.", at, seed, ctext);
		if (job_vars(j, x->absout, js->n - 1, 1, "datafile='%s'; policies='%s'; colours='%s'; "
			     "subtitle='swappiness %d, seed %ld, %s'", path, pn, pc, at, seed, ctext) != 0)
			return fail(err, errlen, "out of memory");
	}
	return 0;
}

/* Miss ratio versus memory for the policies without swappiness, drawn by
 * missratio.gp (columns trace, memory_mib, miss_ratio by name). */
static int memory_figure(const struct stats *st, const char *out, struct jobs *js,
			 char *err, size_t errlen)
{
	long m = metric_index(st, "miss_ratio");
	if (m < 0)
		return 0;
	size_t npol = 0;
	for (size_t g = 0; g < st->nr_groups; g++) {
		if (st->groups[g].swappiness >= 0)
			continue;
		size_t h;
		for (h = 0; h < g; h++)
			if (st->groups[h].swappiness < 0 && strcmp(st->groups[h].policy, st->groups[g].policy) == 0)
				break;
		npol += h == g;
	}
	char path[4200];
	snprintf(path, sizeof(path), "%s/missratio.tsv", out);
	struct atomic_file af;
	if (atomic_open(&af, path, err, errlen) != 0)
		return -1;
	fputs("trace\tpolicy\tmemory_limit\tmemory_mib\tmiss_ratio\tn\n", af.fp);
	size_t rows = 0;
	for (size_t i = 0; i < st->nr_rows; i++) {
		const struct stats_row *r = &st->rows[i];
		const struct stats_group *g = &st->groups[r->group];
		if (r->metric != (size_t)m || g->swappiness >= 0)
			continue;
		/* With one such policy a curve is a trace; with several, a
		 * trace and a policy. */
		if (npol > 1)
			fprintf(af.fp, "%s %s", g->trace, g->policy);
		else
			fputs(g->trace, af.fp);
		fprintf(af.fp, "\t%s\t%" PRIu64 "\t%.10g\t%.10g\t%zu\n", g->policy, g->memory_limit,
			g->memory_limit / 1048576.0, r->mean, r->n);
		rows++;
	}
	if (!rows) {
		atomic_abort(&af);
		return 0;
	}
	if (atomic_commit_nosync(&af, err, errlen) != 0)
		return -1;
	struct job *j = new_job(js, "missratio.gp");
	if (!j)
		return fail(err, errlen, "out of memory");
	snprintf(j->stem, sizeof(j->stem), "missratio");
	snprintf(j->data, sizeof(j->data), "missratio.tsv");
	snprintf(j->caption, sizeof(j->caption), "Miss ratio versus memory size of the exact LRU "
		 "reference replay, one curve per trace.");
	if (job_vars(j, out, js->n - 1, 0, "datafile='%s'", path) != 0)
		return fail(err, errlen, "out of memory");
	return 0;
}

int plot_sweep(const struct stats *st, const struct plot_opts *o, struct figure_list *figs,
	       char *err, size_t errlen)
{
	memset(figs, 0, sizeof(*figs));
	if (strchr(o->out, '\''))
		return fail(err, errlen, "%s: paths with a single quote cannot be passed to gnuplot",
			    o->out);
	char absout[PATH_MAX];
	if (mkdir_p(o->out) != 0 || !realpath(o->out, absout))
		return fail(err, errlen, "%s: cannot create: %s", o->out, strerror(errno));
	if (strchr(absout, '\''))
		return fail(err, errlen, "%s: paths with a single quote cannot be passed to gnuplot",
			    absout);
	struct kernel_points kp;
	if (kernel_points_load(&kp, o->dirs, o->nr_dirs, o->metrics, o->nr_metrics, err, errlen) != 0)
		return -1;
	struct sweeps sw = { .dir = o->dirs, .n = 0 };
	if (!(sw.plan = calloc(o->nr_dirs + 1, sizeof(*sw.plan)))) {
		kernel_points_free(&kp);
		return fail(err, errlen, "out of memory");
	}
	int rc = 0;
	for (; sw.n < o->nr_dirs && rc == 0; sw.n++)
		rc = sweep_plan_read(o->dirs[sw.n], &sw.plan[sw.n], err, errlen);
	if (rc) {
		sw.n--;
		goto out;
	}
	struct policies pols = { .n = 0 };
	for (size_t g = 0; g < st->nr_groups && pols.n < 256; g++) {
		size_t i;
		for (i = 0; i < pols.n && strcmp(pols.name[i], st->groups[g].policy); i++)
			;
		if (i == pols.n)
			pols.name[pols.n++] = st->groups[g].policy;
	}
	struct jobs js = { 0 };
	struct ctx x = { .st = st, .sw = &sw, .o = o, .kp = &kp, .pols = &pols, .js = &js,
			 .figs = figs, .absout = absout };
	rc = memory_figure(st, absout, &js, err, errlen);
	for (size_t g = 0; g < st->nr_groups && rc == 0; g++) {
		if (st->groups[g].swappiness < 0)
			continue;
		size_t h;
		for (h = 0; h < g; h++)
			if (st->groups[h].swappiness >= 0 && same_condition(&st->groups[h], &st->groups[g]))
				break;
		if (h == g)
			rc = condition_figures(&x, &st->groups[g], err, errlen);
	}
	if (rc == 0)
		rc = run_jobs(&js, o, absout, figs, err, errlen);
	free_jobs(&js);
out:
	for (size_t d = 0; d < sw.n; d++)
		sweep_plan_free(&sw.plan[d]);
	free(sw.plan);
	kernel_points_free(&kp);
	if (rc == 0)
		rc = plot_write_index(absout, figs, err, errlen);
	return rc;
}
