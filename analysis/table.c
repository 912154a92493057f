/* table.c — per-metric tables: text, Markdown, LaTeX booktabs (table.h). */
#include "table.h"
#include "units.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
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

/* 10.8M, 208k, 4195: three significant digits past 9999, as the
 * linux-mm postings write them, so a column stays narrow. */
void table_format_compact(double v, char *buf, size_t len)
{
	static const char *const suffix[] = { "", "k", "M", "G", "T" };
	double a = fabs(v);
	int k = 0;
	if (!isfinite(v) || a < 1e4) {
		table_format_number(v, buf, len);
		return;
	}
	while (a >= 999.5 && k < 4) {
		a /= 1000;
		v /= 1000;
		k++;
	}
	snprintf(buf, len, a >= 99.95 ? "%.0f%s" : a >= 9.995 ? "%.1f%s" : "%.2f%s", v, suffix[k]);
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
	size_t runs_max;
	int captures, seeds;            /* which replicates its rows have  */
	int paired, welch;              /* which tests marked cells come from */
	double first;                   /* constant: every mean is first   */
	int constant;
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
	t->constant = 1;
	int any = 0;
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
		t->runs_max = r->runs > t->runs_max ? r->runs : t->runs_max;
		t->captures |= r->rep == STATS_REP_CAPTURES;
		t->seeds |= r->rep == STATS_REP_SEEDS;
		t->marked += r->significant;
		t->paired |= r->significant && r->method == STATS_PAIRED;
		t->welch |= r->significant && r->method == STATS_WELCH;
		if (!any++)
			t->first = r->mean;
		else if (r->mean != t->first)
			t->constant = 0;
	}
	/* One cell is no sign of a metric nothing moves, unless it is 0. */
	if (any == 1 && t->first != 0)
		t->constant = 0;
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

static size_t add(char *buf, size_t len, size_t used, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static size_t add(char *buf, size_t len, size_t used, const char *fmt, ...)
{
	if (used >= len)
		return used;
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(buf + used, len - used, fmt, ap);
	va_end(ap);
	return n < 0 ? used : used + (size_t)n;
}

/* "pgsteal_file (pages), compile, memory limit 32 MiB: mean of 3
 * captures (5 seeds each)". */
static void caption(const struct table *t, char *buf, size_t len)
{
	const struct stats_group *c = t->ctx;
	const char *metric = t->st->metrics[t->metric], *unit = metric_unit(metric);
	char mem[32], node[32], n[32];
	table_format_limit(c->memory_limit, mem, sizeof(mem));
	size_t used = add(buf, len, 0, "%s", metric);
	if (*unit)
		used = add(buf, len, used, " (%s)", unit);
	used = add(buf, len, used, ", %s", c->trace);
	if (!t->by_memory)
		used = add(buf, len, used, ", memory limit %s", mem);
	if (c->node_memory) {
		table_format_size(c->node_memory, node, sizeof(node));
		used = add(buf, len, used, ", node memory %s", node);
	}
	if (strcmp(c->swap, "-"))
		used = add(buf, len, used, ", swap %s", c->swap);
	if (t->n_min == t->n_max)
		snprintf(n, sizeof(n), "%zu", t->n_min);
	else
		snprintf(n, sizeof(n), "%zu-%zu", t->n_min, t->n_max);
	if (t->captures && !t->seeds) {
		size_t seeds = t->n_max ? (t->runs_max + t->n_max - 1) / t->n_max : 1;
		used = add(buf, len, used, ": mean of %s captures", n);
		if (seeds > 1)
			add(buf, len, used, " (each the mean of %zu seeds)", seeds);
	} else if (t->captures) {
		add(buf, len, used, ": mean of %s captures, or seeds where one capture", n);
	} else if (t->n_max > 1) {
		add(buf, len, used, ": mean of %s seeds of one trace (simulator noise, not the "
		    "workload's)", n);
	} else {
		add(buf, len, used, ": one run");
	}
}

/* Which baseline each marked column was tested against, and how, for
 * the note; MATH: p < alpha as LaTeX math. */
static void note(const struct table *t, char *buf, size_t len, int latex)
{
	const struct stats *st = t->st;
	const char *how = t->paired && t->welch ? "paired t-test on the same captures, or Welch's "
		"t-test" : t->paired ? "paired t-test on the same captures" : "Welch's t-test";
	size_t used;
	if (latex)
		used = add(buf, len, 0, "$^{*}$ differs from its baseline (%s, $p_{\\mathrm{Holm}} < %g$ "
			   "over %zu tests of %s)", how, st->alpha, st->nr_tests,
			   st->all_metrics ? "every metric" : "the headline metrics");
	else
		used = add(buf, len, 0, "* differs from its baseline (%s, Holm-adjusted p < %g over %zu "
			   "tests of %s)", how, st->alpha, st->nr_tests,
			   st->all_metrics ? "every metric" : "the headline metrics");
	const char *sep = ": ";
	for (size_t c = 0; c < t->nr_cols; c++) {
		const char *base = NULL;
		for (size_t r = 0; r < t->nr_rows && !base; r++) {
			const struct stats_row *x = cell(t, r, c);
			if (x && x->base >= 0)
				base = st->groups[st->rows[x->base].group].policy;
		}
		if (!base)
			continue;
		used = add(buf, len, used, "%s%s vs %s", sep, t->cols[c], base);
		sep = ", ";
	}
	add(buf, len, used, ".");
}

static void row_label(const struct table *t, size_t r, char *buf, size_t len)
{
	if (t->by_memory)
		table_format_size(t->mkeys[r], buf, len);
	else
		snprintf(buf, len, "%ld", t->keys[r]);
}

static void cell_text(const struct table *t, size_t r, size_t c, const char *mark, int compact,
		      char *buf, size_t len)
{
	const struct stats_row *x = cell(t, r, c);
	if (!x) {
		snprintf(buf, len, "-");
		return;
	}
	if (compact)
		table_format_compact(x->mean, buf, len);
	else
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
			fputs(*s == '<' ? "$<$" : "$>$", f);
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
			cell_text(t, r, c, "", 0, buf, sizeof(buf));
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
				cell_text(t, r - 1, c, "", 0, buf, sizeof(buf));
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
			cell_text(t, r, c, "\\*", 0, buf, sizeof(buf));
			fprintf(f, " %s |", buf);
		}
		fputc('\n', f);
	}
	if (t->marked) {
		note(t, nt, sizeof(nt), 0);
		fprintf(f, "\n\\%s\n", nt);
	}
}

/*
 * A policy's short name for a LaTeX column, so that eight policies fit
 * \textwidth: classic is C, mglru M, lru L, and each "+patch-name" the
 * initials of its words: mglru+swappiness+iso-throttle is M+s+it.  Two
 * policies that abbreviate alike get a number; the key under the table
 * names them all.
 */
static void abbrev(const char *policy, char *buf, size_t len)
{
	static const struct { const char *name, *abbr; } base[] = {
		{ "classic", "C" }, { "mglru", "M" }, { "lru", "L" },
	};
	size_t used = 0, n = strcspn(policy, "+");
	size_t i;
	for (i = 0; i < sizeof(base) / sizeof(base[0]); i++)
		if (strlen(base[i].name) == n && strncmp(policy, base[i].name, n) == 0)
			break;
	if (i < sizeof(base) / sizeof(base[0]))
		used = add(buf, len, 0, "%s", base[i].abbr);
	else
		used = add(buf, len, 0, "%.*s", (int)n, policy);
	for (const char *p = policy + n; *p == '+';) {
		used = add(buf, len, used, "+");
		const char *end = p + 1 + strcspn(p + 1, "+");
		for (const char *w = p + 1; w < end; w++)
			if (w == p + 1 || w[-1] == '-')
				used = add(buf, len, used, "%c", *w);
		p = end;
	}
}

static void abbrevs(const struct table *t, char (*ab)[32])
{
	for (size_t c = 0; c < t->nr_cols; c++) {
		char base[24];
		abbrev(t->cols[c], base, sizeof(base));
		snprintf(ab[c], sizeof(ab[c]), "%s", base);
		for (unsigned k = 2, d = 0; d < c && k < 1000; d++)
			if (strcmp(ab[c], ab[d]) == 0) {
				snprintf(ab[c], sizeof(ab[c]), "%s%u", base, k++);
				d = (unsigned)-1;        /* again from the first */
			}
	}
}

/* Policy columns per tabular: eight of the widest numbers at \small fit
 * an article's \textwidth; more continue in a second block of rows. */
#define LATEX_COLS 8

static void write_latex(FILE *f, const struct table *t)
{
	char cap[512], buf[CELL], nt[2048];
	char (*ab)[32] = calloc(t->nr_cols + 1, sizeof(*ab));
	if (!ab)
		return;
	abbrevs(t, ab);
	caption(t, cap, sizeof(cap));
	fputs("\\begin{table}[htbp]\n\\centering\n\\small\n\\setlength{\\tabcolsep}{4pt}\n\\caption{", f);
	latex_escape(f, cap);
	fputs("}\n", f);
	for (size_t c0 = 0; c0 < t->nr_cols; c0 += LATEX_COLS) {
		size_t c1 = c0 + LATEX_COLS < t->nr_cols ? c0 + LATEX_COLS : t->nr_cols;
		if (c0)
			fputs("\n\\medskip\n", f);
		fputs("\\begin{tabular}{r", f);
		for (size_t c = c0; c < c1; c++)
			fputc('r', f);
		fprintf(f, "}\n\\toprule\n%s", t->by_memory ? "memory" : "swappiness");
		for (size_t c = c0; c < c1; c++) {
			fputs(" & ", f);
			latex_escape(f, ab[c]);
		}
		fputs(" \\\\\n\\midrule\n", f);
		for (size_t r = 0; r < t->nr_rows; r++) {
			row_label(t, r, buf, sizeof(buf));
			fputs(buf, f);
			for (size_t c = c0; c < c1; c++) {
				cell_text(t, r, c, "$^{*}$", 1, buf, sizeof(buf));
				fprintf(f, " & %s", buf);
			}
			fputs(" \\\\\n", f);
		}
		fputs("\\bottomrule\n\\end{tabular}\n", f);
	}
	fputs("\n\\smallskip\n\\parbox{\\linewidth}{\\footnotesize ", f);
	for (size_t c = 0; c < t->nr_cols; c++) {
		fputs(c ? "; " : "", f);
		latex_escape(f, ab[c]);
		fputs(": ", f);
		latex_escape(f, t->cols[c]);
	}
	fputs(".", f);
	if (t->marked) {
		note(t, nt, sizeof(nt), 1);
		/* The note's "$^{*}$" and "$p_...$" are LaTeX already; escape
		 * the policy names after them. */
		const char *rest = strchr(nt, ')');
		fputs(" ", f);
		fwrite(nt, 1, rest ? (size_t)(rest - nt) : strlen(nt), f);
		if (rest)
			latex_escape(f, rest);
	}
	fputs("}\n\\end{table}\n", f);
	free(ab);
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

/* LaTeX holds at most 18 floats it has not placed yet; with nothing but
 * tables between them, a \clearpage every few places them all. */
#define LATEX_FLUSH 8

static void write_one(FILE *f, enum table_format fmt, const struct table *t, size_t *written)
{
	if (*written)
		fputs(fmt == TABLE_LATEX ? "\n" : "\n\n", f);
	if (fmt == TABLE_LATEX && *written && *written % LATEX_FLUSH == 0)
		fputs("\\clearpage\n\n", f);
	if (fmt == TABLE_TEXT)
		write_text(f, t);
	else if (fmt == TABLE_MARKDOWN)
		write_markdown(f, t);
	else
		write_latex(f, t);
	(*written)++;
}

/* The condition of a table, for the closing line: "toy, memory limit 16 MiB". */
static void where(const struct table *t, char *buf, size_t len)
{
	const struct stats_group *c = t->ctx;
	char mem[32], node[32];
	table_format_limit(c->memory_limit, mem, sizeof(mem));
	size_t used = add(buf, len, 0, "%s", c->trace);
	if (!t->by_memory)
		used = add(buf, len, used, ", memory limit %s", mem);
	if (c->node_memory) {
		table_format_size(c->node_memory, node, sizeof(node));
		used = add(buf, len, used, ", node memory %s", node);
	}
	if (strcmp(c->swap, "-"))
		add(buf, len, used, ", swap %s", c->swap);
}

size_t table_write(FILE *f, const struct stats *st, enum table_format fmt,
		   char *const *metrics, size_t nr_metrics)
{
	size_t written = 0, nr_left = 0;
	char *left = NULL;
	size_t leftlen = 0;
	FILE *lf = open_memstream(&left, &leftlen);
	/*
	 * A table whose every cell is the same number (0, mostly: a
	 * counter nothing moved in that condition) says nothing a table
	 * should: it is named in a closing line instead, the metric alone
	 * when that holds in every condition.  Conditions in the order
	 * groups first appear; each once per metric.
	 */
	for (size_t m = 0; m < st->nr_metrics; m++) {
		if (!wanted(st->metrics[m], metrics, nr_metrics))
			continue;
		int pass, shown = 0, constant = 0, same = 1;
		double value = NAN;
		for (pass = 0; pass < 2; pass++) {
			for (size_t g = 0; g < st->nr_groups; g++) {
				struct table t = { .st = st, .metric = m, .ctx = &st->groups[g],
						   .by_memory = st->groups[g].swappiness < 0 };
				int first = 1;
				for (size_t h = 0; h < g && first; h++)
					if (same_ctx(&t, &st->groups[h]))
						first = 0;
				if (!first || build(&t) != 0 || t.nr_rows == 0) {
					release(&t);
					continue;
				}
				if (pass == 0) {
					/* Count: is every table constant, at one value? */
					if (t.constant) {
						same &= !constant++ || t.first == value;
						value = t.first;
					} else {
						shown++;
					}
				} else if (!t.constant) {
					write_one(f, fmt, &t, &written);
				} else if (shown || !same) {
					char w[512], v[CELL];
					where(&t, w, sizeof(w));
					table_format_number(t.first, v, sizeof(v));
					if (lf)
						fprintf(lf, "%s%s in %s (%s)", nr_left++ ? "; " : "",
							st->metrics[m], w, v);
				}
				release(&t);
			}
			if (pass == 0 && !shown && constant && same) {
				char v[CELL];
				table_format_number(value, v, sizeof(v));
				if (lf)
					fprintf(lf, "%s%s (%s)", nr_left++ ? "; " : "", st->metrics[m], v);
				break;
			}
		}
	}
	if (lf && fclose(lf) == 0 && nr_left) {
		if (written)
			fputs(fmt == TABLE_LATEX ? "\n" : "\n\n", f);
		if (fmt == TABLE_LATEX) {
			fputs("\\paragraph{}{\\footnotesize Not tabulated, the same in every cell: ", f);
			latex_escape(f, left);
			fputs(".}\n", f);
		} else {
			fprintf(f, "Not tabulated, the same in every cell: %s.\n", left);
		}
	}
	free(left);
	return written;
}
