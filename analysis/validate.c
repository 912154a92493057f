/* validate.c — the fidelity scoreboard (validate.h). */
#include "validate.h"
#include "cli.h"

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *const validate_default_counters[] = {
	"pgscan_anon", "pgscan_file", "pgsteal_anon", "pgsteal_file",
	"workingset_refault_anon", "workingset_refault_file",
};
const int validate_nr_default_counters = 6;

void validate_workload_name(const char *path, const char *meta_workload, char *out, size_t len)
{
	char buf[1024];
	snprintf(buf, sizeof(buf), "%s", path);
	size_t n = strlen(buf);
	while (n > 1 && buf[n - 1] == '/')
		buf[--n] = '\0';
	/* a trace's ctf/ folder stands for its capture */
	if (n >= 4 && strcmp(buf + n - 4, "/ctf") == 0)
		buf[n -= 4] = '\0';
	const char *base = strrchr(buf, '/');
	base = base ? base + 1 : buf;
	char name[sizeof(buf)];
	snprintf(name, sizeof(name), "%s", base);
	/* NAME-swN[-R] */
	char *sw = strstr(name, "-sw");
	while (sw) {
		char *p = sw + 3;
		if (*p >= '0' && *p <= '9') {
			while (*p >= '0' && *p <= '9')
				p++;
			if (*p == '\0' || *p == '-') {
				*sw = '\0';
				break;
			}
		}
		sw = strstr(sw + 1, "-sw");
	}
	if (name[0] && strcmp(name, base) != 0) {
		snprintf(out, len, "%s", name);
		return;
	}
	snprintf(out, len, "%s", meta_workload && *meta_workload ? meta_workload : name);
}

static int cmp_session(const void *a, const void *b)
{
	const struct vsession *x = a, *y = b;
	int c = strcmp(x->kernel_id, y->kernel_id);
	if (c)
		return c;
	c = strcmp(x->policy, y->policy);
	if (c)
		return c;
	c = strcmp(x->workload, y->workload);
	if (c)
		return c;
	if (x->swappiness != y->swappiness)
		return x->swappiness < y->swappiness ? -1 : 1;
	return strcmp(x->path, y->path);
}

static double median(double *v, size_t n)
{
	gsl_sort(v, 1, n);
	return gsl_stats_median_from_sorted_data(v, 1, n);
}

static void score_cell(struct vcell *c, const double *k, const double *r, size_t n)
{
	double *kk = malloc(n * sizeof(double)), *rr = malloc(n * sizeof(double));
	memset(c, 0, sizeof(*c));
	c->n = n;
	if (!kk || !rr || !n) {
		free(kk);
		free(rr);
		return;
	}
	memcpy(kk, k, n * sizeof(double));
	memcpy(rr, r, n * sizeof(double));
	double mean = gsl_stats_mean(kk, 1, n);
	c->k_cv = n > 1 && mean > 0 ? gsl_stats_sd_m(kk, 1, n, mean) / mean : 0;
	c->k_median = median(kk, n);
	c->k_min = kk[0];
	c->k_max = kk[n - 1];
	c->r_median = median(rr, n);
	c->rel_error = c->k_median > 0 ? (c->r_median - c->k_median) / c->k_median : NAN;
	if (c->k_cv < 0.25)
		c->pass = c->k_median > 0 ? fabs(c->rel_error) <= 0.25 : c->r_median == 0;
	else
		c->pass = c->r_median >= c->k_min && c->r_median <= c->k_max;
	free(kk);
	free(rr);
}

int scoreboard_compute(struct scoreboard *sb)
{
	qsort(sb->s, sb->nr_sessions, sizeof(*sb->s), cmp_session);
	sb->g = calloc(sb->nr_sessions ? sb->nr_sessions : 1, sizeof(*sb->g));
	double *k = malloc((sb->nr_sessions + 1) * sizeof(double));
	double *r = malloc((sb->nr_sessions + 1) * sizeof(double));
	if (!sb->g || !k || !r) {
		free(k);
		free(r);
		return -1;
	}
	sb->nr_groups = sb->cells = sb->cells_passed = sb->trends = sb->trends_right = 0;
	for (size_t i = 0; i < sb->nr_sessions;) {
		size_t j = i;
		while (j < sb->nr_sessions && strcmp(sb->s[j].workload, sb->s[i].workload) == 0 &&
		       strcmp(sb->s[j].kernel_id, sb->s[i].kernel_id) == 0 &&
		       strcmp(sb->s[j].policy, sb->s[i].policy) == 0 &&
		       sb->s[j].swappiness == sb->s[i].swappiness)
			j++;
		struct vgroup *g = &sb->g[sb->nr_groups++];
		snprintf(g->workload, sizeof(g->workload), "%s", sb->s[i].workload);
		snprintf(g->kernel_id, sizeof(g->kernel_id), "%s", sb->s[i].kernel_id);
		snprintf(g->policy, sizeof(g->policy), "%s", sb->s[i].policy);
		g->swappiness = sb->s[i].swappiness;
		for (int c = 0; c < sb->nr_counters; c++) {
			size_t n = 0;
			for (size_t x = i; x < j; x++)
				if (sb->s[x].have_kernel[c]) {
					k[n] = sb->s[x].kernel[c];
					r[n] = sb->s[x].replay[c];
					n++;
				}
			score_cell(&g->cell[c], k, r, n);
			if (n) {
				sb->cells++;
				sb->cells_passed += g->cell[c].pass;
			}
		}
		i = j;
	}
	/* Trends between neighbouring swappiness values of one workload. */
	for (size_t i = 0; i + 1 < sb->nr_groups; i++) {
		struct vgroup *a = &sb->g[i], *b = &sb->g[i + 1];
		if (strcmp(a->workload, b->workload) != 0 || strcmp(a->kernel_id, b->kernel_id) != 0 ||
		    strcmp(a->policy, b->policy) != 0)
			continue;
		for (int c = 0; c < sb->nr_counters; c++) {
			const struct vcell *x = &a->cell[c], *y = &b->cell[c];
			if (!x->n || !y->n)
				continue;
			a->k_dir[c] = y->k_min > x->k_max ? 1 : y->k_max < x->k_min ? -1 : 0;
			a->r_dir[c] = y->r_median > x->r_median ? 1 : y->r_median < x->r_median ? -1 : 0;
			a->trend[c] = !a->k_dir[c] || a->k_dir[c] == a->r_dir[c] ? 1 : -1;
			sb->trends++;
			sb->trends_right += a->trend[c] > 0;
		}
	}
	free(k);
	free(r);
	return 0;
}

void scoreboard_free(struct scoreboard *sb)
{
	free(sb->s);
	free(sb->g);
	sb->s = NULL;
	sb->g = NULL;
	sb->nr_sessions = sb->nr_groups = 0;
}

static const char *dir_mark(int d)
{
	return d > 0 ? "up" : d < 0 ? "down" : "flat";
}

static void num(char *buf, size_t len, double v)
{
	if (isnan(v))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.0f", v);
}

static void pct(char *buf, size_t len, double v)
{
	if (isnan(v))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%+.0f%%", 100 * v);
}

void scoreboard_print(FILE *f, const struct scoreboard *sb, enum vfmt fmt)
{
	char km[32], kn[32], kx[32], rm[32], re[32];
	if (fmt == VFMT_TSV) {
		fprintf(f, "kernel\tworkload\tswappiness\tcounter\tcaptures\tkernel_median\tkernel_min\tkernel_max\t"
			"kernel_cv\treplay_median\trel_error\tpass\tkernel_trend\treplay_trend\ttrend_right\t"
			"policy\n");
		for (size_t i = 0; i < sb->nr_groups; i++) {
			const struct vgroup *g = &sb->g[i];
			int last = i + 1 == sb->nr_groups || strcmp(sb->g[i + 1].workload, g->workload) != 0 ||
				   strcmp(sb->g[i + 1].kernel_id, g->kernel_id) != 0;
			for (int c = 0; c < sb->nr_counters; c++) {
				const struct vcell *x = &g->cell[c];
				if (!x->n)
					continue;
				fprintf(f, "%s\t%s\t%d\t%s\t%zu\t%.17g\t%.17g\t%.17g\t%.6f\t%.17g\t", g->kernel_id,
					g->workload,
					g->swappiness, sb->counters[c], x->n, x->k_median, x->k_min, x->k_max,
					x->k_cv, x->r_median);
				if (isnan(x->rel_error))
					fprintf(f, "-");
				else
					fprintf(f, "%.6f", x->rel_error);
				if (last || !g->trend[c])
					fprintf(f, "\t%s\t-\t-\t-", x->pass ? "yes" : "no");
				else
					fprintf(f, "\t%s\t%s\t%s\t%s", x->pass ? "yes" : "no", dir_mark(g->k_dir[c]),
						dir_mark(g->r_dir[c]), g->trend[c] > 0 ? "yes" : "no");
				fprintf(f, "\t%s\n", g->policy);
			}
		}
		return;
	}
	if (fmt == VFMT_JSON) {
		fprintf(f, "{\"cells\": %zu, \"cells_passed\": %zu, \"trends\": %zu, \"trends_right\": %zu, "
			"\"groups\": [", sb->cells, sb->cells_passed, sb->trends, sb->trends_right);
		for (size_t i = 0; i < sb->nr_groups; i++) {
			const struct vgroup *g = &sb->g[i];
			fprintf(f, "%s\n {\"kernel\": ", i ? "," : "");
			cli_json_str(f, g->kernel_id);
			fprintf(f, ", \"policy\": ");
			cli_json_str(f, g->policy);
			fprintf(f, ", \"workload\": ");
			cli_json_str(f, g->workload);
			fprintf(f, ", \"swappiness\": %d, \"counters\": [", g->swappiness);
			int first = 1;
			for (int c = 0; c < sb->nr_counters; c++) {
				const struct vcell *x = &g->cell[c];
				if (!x->n)
					continue;
				fprintf(f, "%s{\"name\": \"%s\", \"captures\": %zu, \"kernel_median\": %.17g, "
					"\"kernel_min\": %.17g, \"kernel_max\": %.17g, \"kernel_cv\": %.6f, "
					"\"replay_median\": %.17g, \"rel_error\": ", first ? "" : ", ",
					sb->counters[c], x->n, x->k_median, x->k_min, x->k_max, x->k_cv, x->r_median);
				if (isnan(x->rel_error))
					fprintf(f, "null");
				else
					fprintf(f, "%.6f", x->rel_error);
				fprintf(f, ", \"pass\": %s", x->pass ? "true" : "false");
				if (g->trend[c])
					fprintf(f, ", \"trend_to_next\": {\"kernel\": %d, \"replay\": %d, \"right\": %s}",
						g->k_dir[c], g->r_dir[c], g->trend[c] > 0 ? "true" : "false");
				fprintf(f, "}");
				first = 0;
			}
			fprintf(f, "]}");
		}
		fprintf(f, "]}\n");
		return;
	}
	int md = fmt == VFMT_MARKDOWN;
	if (md)
		fprintf(f, "| kernel | workload | sw | counter | n | kernel median [min–max] | CV | replay | error | pass | trend to next sw (kernel / replay) |\n"
			"|---|---|---|---|---|---|---|---|---|---|---|\n");
	else
		fprintf(f, "%-20s %-16s %4s %-24s %2s %28s %5s %10s %7s %4s  %s\n", "kernel", "workload", "sw",
			"counter", "n",
			"kernel median [min-max]", "CV", "replay", "error", "pass", "trend to next sw");
	for (size_t i = 0; i < sb->nr_groups; i++) {
		const struct vgroup *g = &sb->g[i];
		for (int c = 0; c < sb->nr_counters; c++) {
			const struct vcell *x = &g->cell[c];
			if (!x->n)
				continue;
			char range[112], trend[48] = "";
			num(km, sizeof(km), x->k_median);
			num(kn, sizeof(kn), x->k_min);
			num(kx, sizeof(kx), x->k_max);
			num(rm, sizeof(rm), x->r_median);
			pct(re, sizeof(re), x->rel_error);
			snprintf(range, sizeof(range), "%s [%s-%s]", km, kn, kx);
			if (g->trend[c])
				snprintf(trend, sizeof(trend), "%s / %s%s", dir_mark(g->k_dir[c]), dir_mark(g->r_dir[c]),
					 g->trend[c] < 0 ? " WRONG" : "");
			if (md)
				fprintf(f, "| %s | %s | %d | %s | %zu | %s | %.2f | %s | %s | %s | %s |\n", g->kernel_id, g->workload,
					g->swappiness, sb->counters[c], x->n, range, x->k_cv, rm, re,
					x->pass ? "yes" : "**no**", trend);
			else
				fprintf(f, "%-20s %-16s %4d %-24s %2zu %28s %5.2f %10s %7s %4s  %s\n", g->kernel_id, g->workload,
					g->swappiness, sb->counters[c], x->n, range, x->k_cv, rm, re,
					x->pass ? "yes" : "no", trend);
		}
	}
	fprintf(f, "%s%zu of %zu cells pass (%.0f%%); %zu of %zu swappiness trends right\n",
		md ? "\n" : "\n", sb->cells_passed, sb->cells,
		sb->cells ? 100.0 * (double)sb->cells_passed / (double)sb->cells : 0.0, sb->trends_right,
		sb->trends);
}
