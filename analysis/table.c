/* table.c — per-metric tables: text, Markdown, LaTeX booktabs (table.h). */
#include "table.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void table_format_size(uint64_t b, char *buf, size_t len)
{
	static const char *const unit[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	int u = 0;
	double v = (double)b;
	while (v >= 1024 && u < 4) {
		v /= 1024;
		u++;
	}
	if (v == floor(v))
		snprintf(buf, len, "%.0f %s", v, unit[u]);
	else
		snprintf(buf, len, "%.1f %s", v, unit[u]);
}

void table_format_limit(uint64_t bytes, char *buf, size_t len)
{
	if (bytes)
		table_format_size(bytes, buf, len);
	else
		snprintf(buf, len, "none");
}

void table_format_number(double v, char *buf, size_t len)
{
	if (!isfinite(v))
		snprintf(buf, len, "-");
	else if (fabs(v) >= 1e4 || (v == floor(v) && fabs(v) < 1e15))
		snprintf(buf, len, "%.0f", v);
	else
		snprintf(buf, len, "%.4g", v);
}

/* A table: one metric in one condition; rows by swappiness or memory. */
struct table {
	const struct stats *st;
	size_t metric;
	const struct stats_group *ctx;  /* a group of the condition        */
	int by_memory;                  /* rows are memory limits          */
	const char **cols;              /* policies, in sweep order        */
	size_t nr_cols;
	long *keys;                     /* swappiness or memory rows       */
	uint64_t *mkeys;
	size_t nr_rows;
	size_t n_min, n_max, marked;
};

static int same_ctx(const struct table *t, const struct stats_group *g)
{
	const struct stats_group *c = t->ctx;
	if (strcmp(c->trace, g->trace) || c->node_memory != g->node_memory || strcmp(c->swap, g->swap))
		return 0;
	if (t->by_memory)
		return g->swappiness < 0;
	return g->swappiness >= 0 && c->memory_limit == g->memory_limit;
}

static const struct stats_row *cell(const struct table *t, size_t row, size_t col)
{
	const struct stats *st = t->st;
	for (size_t i = 0; i < st->nr_rows; i++) {
		const struct stats_row *r = &st->rows[i];
		const struct stats_group *g = &st->groups[r->group];
		if (r->metric != t->metric || !same_ctx(t, g) || strcmp(g->policy, t->cols[col]))
			continue;
		if (t->by_memory ? g->memory_limit == t->mkeys[row] : g->swappiness == t->keys[row])
			return r;
	}
	return NULL;
}

static int cmp_long(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;
	return (x > y) - (x < y);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

static int build(struct table *t)
{
	const struct stats *st = t->st;
	t->cols = calloc(st->nr_groups + 1, sizeof(*t->cols));
	t->keys = calloc(st->nr_groups + 1, sizeof(*t->keys));
	t->mkeys = calloc(st->nr_groups + 1, sizeof(*t->mkeys));
	if (!t->cols || !t->keys || !t->mkeys)
		return -1;
	t->n_min = SIZE_MAX;
	for (size_t i = 0; i < st->nr_rows; i++) {
		const struct stats_row *r = &st->rows[i];
		const struct stats_group *g = &st->groups[r->group];
		if (r->metric != t->metric || !same_ctx(t, g))
			continue;
		size_t c;
		for (c = 0; c < t->nr_cols && strcmp(t->cols[c], g->policy); c++)
			;
		if (c == t->nr_cols)
			t->cols[t->nr_cols++] = g->policy;
		size_t k;
		if (t->by_memory) {
			for (k = 0; k < t->nr_rows && t->mkeys[k] != g->memory_limit; k++)
				;
			if (k == t->nr_rows)
				t->mkeys[t->nr_rows++] = g->memory_limit;
		} else {
			for (k = 0; k < t->nr_rows && t->keys[k] != g->swappiness; k++)
				;
			if (k == t->nr_rows)
				t->keys[t->nr_rows++] = g->swappiness;
		}
		t->n_min = r->n < t->n_min ? r->n : t->n_min;
		t->n_max = r->n > t->n_max ? r->n : t->n_max;
		t->marked += r->significant;
	}
	if (t->by_memory)
		qsort(t->mkeys, t->nr_rows, sizeof(*t->mkeys), cmp_u64);
	else
		qsort(t->keys, t->nr_rows, sizeof(*t->keys), cmp_long);
	return 0;
}

static void release(struct table *t)
{
	free(t->cols);
	free(t->keys);
	free(t->mkeys);
}

/* ---- text pieces ------------------------------------------------------- */

static void caption(const struct table *t, char *buf, size_t len)
{
	const struct stats_group *c = t->ctx;
	char mem[32], node[32], n[32];
	table_format_limit(c->memory_limit, mem, sizeof(mem));
	size_t used = 0;
	used += snprintf(buf + used, len - used, "%s, %s", t->st->metrics[t->metric], c->trace);
	if (!t->by_memory && used < len)
		used += snprintf(buf + used, len - used, ", memory limit %s", mem);
	if (c->node_memory && used < len) {
		table_format_size(c->node_memory, node, sizeof(node));
		used += snprintf(buf + used, len - used, ", node memory %s", node);
	}
	if (strcmp(c->swap, "-") && used < len)
		used += snprintf(buf + used, len - used, ", swap %s", c->swap);
	if (t->n_min == t->n_max)
		snprintf(n, sizeof(n), "%zu", t->n_min);
	else
		snprintf(n, sizeof(n), "%zu-%zu", t->n_min, t->n_max);
	if (used < len)
		snprintf(buf + used, len - used, " (mean of %s run%s)", n, t->n_max == 1 ? "" : "s");
}

/* Which baseline each marked column was tested against, for the note. */
static void note(const struct table *t, char *buf, size_t len, int latex)
{
	const struct stats *st = t->st;
	size_t used = snprintf(buf, len, "%s differs from its baseline (Welch's t-test, Holm-adjusted "
			       "p < %g over %zu tests)", latex ? "$^{*}$" : "*", st->alpha, st->nr_tests);
	const char *sep = ": ";
	for (size_t c = 0; c < t->nr_cols && used < len; c++) {
		const char *base = NULL;
		for (size_t r = 0; r < t->nr_rows && !base; r++) {
			const struct stats_row *x = cell(t, r, c);
			if (x && x->base >= 0)
				base = st->groups[st->rows[x->base].group].policy;
		}
		if (!base)
			continue;
		used += snprintf(buf + used, len - used, "%s%s vs %s", sep, t->cols[c], base);
		sep = ", ";
	}
	if (used < len)
		snprintf(buf + used, len - used, ".");
}

static void row_label(const struct table *t, size_t r, char *buf, size_t len)
{
	if (t->by_memory)
		table_format_size(t->mkeys[r], buf, len);
	else
		snprintf(buf, len, "%ld", t->keys[r]);
}

static void cell_text(const struct table *t, size_t r, size_t c, const char *mark, char *buf, size_t len)
{
	const struct stats_row *x = cell(t, r, c);
	if (!x) {
		snprintf(buf, len, "-");
		return;
	}
	table_format_number(x->mean, buf, len);
	if (x->significant)
		snprintf(buf + strlen(buf), len - strlen(buf), "%s", mark);
}

static void latex_escape(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (strchr("_%&#$", *s))
			fprintf(f, "\\%c", *s);
		else if (*s == '<' || *s == '>')
			/* OT1 fonts have no < or > in text mode. */
			fputs(*s == '<' ? "\\textless{}" : "\\textgreater{}", f);
		else
			fputc(*s, f);
	}
}

#define CELL 96

static void write_text(FILE *f, const struct table *t)
{
	char cap[512], buf[CELL], nt[2048];
	caption(t, cap, sizeof(cap));
	fprintf(f, "%s\n\n", cap);
	const char *head = t->by_memory ? "memory" : "swappiness";
	/* Column widths: the wider of the heading and every cell, plus a
	 * space for the mark so marked and unmarked numbers line up. */
	size_t w0 = strlen(head), *w = calloc(t->nr_cols + 1, sizeof(*w));
	if (!w)
		return;
	for (size_t r = 0; r < t->nr_rows; r++) {
		row_label(t, r, buf, sizeof(buf));
		w0 = strlen(buf) > w0 ? strlen(buf) : w0;
	}
	/* w[c] counts the mark's column: headings and numbers align on
	 * their last digit, the mark hangs to the right of it. */
	for (size_t c = 0; c < t->nr_cols; c++) {
		w[c] = strlen(t->cols[c]);
		for (size_t r = 0; r < t->nr_rows; r++) {
			cell_text(t, r, c, "", buf, sizeof(buf));
			w[c] = strlen(buf) > w[c] ? strlen(buf) : w[c];
		}
		w[c]++;
	}
	/* Lines are built whole so that the mark column of the last
	 * policy leaves no trailing blank (mail clients and checkpatch
	 * both complain about those). */
	char *line = NULL;
	size_t linelen = 0;
	FILE *l = open_memstream(&line, &linelen);
	if (!l) {
		free(w);
		return;
	}
	for (size_t r = 0; r <= t->nr_rows; r++) {
		if (r == 0) {
			fprintf(l, "%*s", (int)w0, head);
			for (size_t c = 0; c < t->nr_cols; c++)
				fprintf(l, "  %*s ", (int)w[c] - 1, t->cols[c]);
		} else {
			row_label(t, r - 1, buf, sizeof(buf));
			fprintf(l, "%*s", (int)w0, buf);
			for (size_t c = 0; c < t->nr_cols; c++) {
				const struct stats_row *x = cell(t, r - 1, c);
				cell_text(t, r - 1, c, "", buf, sizeof(buf));
				fprintf(l, "  %*s%s", (int)w[c] - 1, buf, x && x->significant ? "*" : " ");
			}
		}
		fflush(l);
		size_t end = linelen;
		while (end > 0 && line[end - 1] == ' ')
			end--;
		fprintf(f, "%.*s\n", (int)end, line);
		rewind(l);
	}
	fclose(l);
	free(line);
	free(w);
	if (t->marked) {
		note(t, nt, sizeof(nt), 0);
		fprintf(f, "\n%s\n", nt);
	}
}

static void write_markdown(FILE *f, const struct table *t)
{
	char cap[512], buf[CELL], nt[2048];
	caption(t, cap, sizeof(cap));
	fprintf(f, "**%s**\n\n| %s |", cap, t->by_memory ? "memory" : "swappiness");
	for (size_t c = 0; c < t->nr_cols; c++)
		fprintf(f, " %s |", t->cols[c]);
	fputs("\n|---:|", f);
	for (size_t c = 0; c < t->nr_cols; c++)
		fputs("---:|", f);
	fputc('\n', f);
	for (size_t r = 0; r < t->nr_rows; r++) {
		row_label(t, r, buf, sizeof(buf));
		fprintf(f, "| %s |", buf);
		for (size_t c = 0; c < t->nr_cols; c++) {
			cell_text(t, r, c, "\\*", buf, sizeof(buf));
			fprintf(f, " %s |", buf);
		}
		fputc('\n', f);
	}
	if (t->marked) {
		note(t, nt, sizeof(nt), 0);
		fprintf(f, "\n\\%s\n", nt);
	}
}

static void write_latex(FILE *f, const struct table *t)
{
	char cap[512], buf[CELL], nt[2048];
	caption(t, cap, sizeof(cap));
	fputs("\\begin{table}[htbp]\n\\centering\n\\caption{", f);
	latex_escape(f, cap);
	fputs("}\n\\begin{tabular}{r", f);
	for (size_t c = 0; c < t->nr_cols; c++)
		fputc('r', f);
	fprintf(f, "}\n\\toprule\n%s", t->by_memory ? "memory" : "swappiness");
	for (size_t c = 0; c < t->nr_cols; c++) {
		fputs(" & ", f);
		latex_escape(f, t->cols[c]);
	}
	fputs(" \\\\\n\\midrule\n", f);
	for (size_t r = 0; r < t->nr_rows; r++) {
		row_label(t, r, buf, sizeof(buf));
		fputs(buf, f);
		for (size_t c = 0; c < t->nr_cols; c++) {
			cell_text(t, r, c, "$^{*}$", buf, sizeof(buf));
			fprintf(f, " & %s", buf);
		}
		fputs(" \\\\\n", f);
	}
	fputs("\\bottomrule\n\\end{tabular}\n", f);
	if (t->marked) {
		note(t, nt, sizeof(nt), 1);
		fputs("\n\\smallskip\n{\\footnotesize ", f);
		/* The note's own "$^{*}$" is LaTeX already; escape the rest. */
		fputs("$^{*}$", f);
		latex_escape(f, nt + strlen("$^{*}$"));
		fputs("}\n", f);
	}
	fputs("\\end{table}\n", f);
}

static int wanted(const char *metric, char *const *metrics, size_t n)
{
	if (!n)
		return 1;
	for (size_t i = 0; i < n; i++)
		if (strcmp(metrics[i], metric) == 0)
			return 1;
	return 0;
}

size_t table_write(FILE *f, const struct stats *st, enum table_format fmt,
		   char *const *metrics, size_t nr_metrics)
{
	size_t written = 0;
	/* Conditions in the order groups first appear; each once per metric. */
	for (size_t m = 0; m < st->nr_metrics; m++) {
		if (!wanted(st->metrics[m], metrics, nr_metrics))
			continue;
		for (size_t g = 0; g < st->nr_groups; g++) {
			struct table t = { .st = st, .metric = m, .ctx = &st->groups[g],
					   .by_memory = st->groups[g].swappiness < 0 };
			int first = 1;
			for (size_t h = 0; h < g && first; h++)
				if (same_ctx(&t, &st->groups[h]))
					first = 0;
			if (!first)
				continue;
			if (build(&t) != 0 || t.nr_rows == 0) {
				release(&t);
				continue;
			}
			if (written)
				fputs(fmt == TABLE_LATEX ? "\n" : "\n\n", f);
			if (fmt == TABLE_TEXT)
				write_text(f, &t);
			else if (fmt == TABLE_MARKDOWN)
				write_markdown(f, &t);
			else
				write_latex(f, &t);
			written++;
			release(&t);
		}
	}
	return written;
}
