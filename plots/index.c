/* index.c — OUT/index.html and OUT/README.md: every figure, its caption,
 * its formats and its data, and the tables when they are there. */
#include "plot.h"
#include "atomic.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

static void html(FILE *f, const char *s)
{
	for (; *s; s++)
		switch (*s) {
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '&': fputs("&amp;", f); break;
		case '"': fputs("&quot;", f); break;
		default: fputc(*s, f);
		}
}

static int exists(const char *out, const char *name)
{
	char path[4200];
	snprintf(path, sizeof(path), "%s/%s", out, name);
	return access(path, F_OK) == 0;
}

/* latex/ sits beside the figure: a/b/metric -> a/b/latex/metric. */
static void latex_stem(const char *stem, char *buf, size_t len)
{
	const char *slash = strrchr(stem, '/');
	if (slash)
		snprintf(buf, len, "%.*s/latex/%s", (int)(slash - stem), stem, slash + 1);
	else
		snprintf(buf, len, "latex/%s", stem);
}

static const char *const tables[][2] = {
	{ "tables.txt", "plain text, as posted on linux-mm" },
	{ "tables.md", "Markdown" },
	{ "tables.tex", "LaTeX (booktabs)" },
	{ "stats.tsv", "every statistic, TSV (gnuplot)" },
	{ "stats.json", "every statistic, JSON" },
};

/* "anon-storm-small" → "t-anon-storm-small": an HTML id. */
static void anchor(FILE *f, const char *prefix, const char *s)
{
	fputs(prefix, f);
	for (; *s; s++)
		fputc((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
		      *s == '-' ? *s : '_', f);
}

/* The traces in the order their first figure appears ("" first: the
 * figures of every trace, missratio). */
static size_t traces_of(const struct figure_list *figs, const char **t, size_t max)
{
	size_t n = 0;
	for (size_t i = 0; i < figs->n + figs->no && n < max; i++) {
		const char *x = i < figs->n ? figs->f[i].trace : figs->o[i - figs->n].trace;
		size_t k;
		for (k = 0; k < n && strcmp(t[k], x); k++)
			;
		if (k == n)
			t[n++] = x;
	}
	return n;
}

static void figure_html(FILE *f, const struct figure *g)
{
	char lx[1200];
	latex_stem(g->stem, lx, sizeof(lx));
	/* A thumbnail of the PNG, loaded when scrolled to; the full figure
	 * one click away: the page stays light however many there are. */
	fputs("<figure>\n<a href=\"", f);
	html(f, g->stem);
	fputs(".png\"><img loading=\"lazy\" width=\"480\" src=\"", f);
	html(f, g->stem);
	fputs(".png\" alt=\"", f);
	html(f, g->stem);
	fputs("\"></a>\n<figcaption>", f);
	html(f, g->caption);
	fputs("<br><span class=\"links\">", f);
	static const char *const ext[] = { "pdf", "svg", "png" };
	for (int e = 0; e < 3; e++) {
		fputs("<a href=\"", f);
		html(f, g->stem);
		fprintf(f, ".%s\">%s</a> · ", ext[e], ext[e]);
	}
	if (g->latex) {
		fputs("<a href=\"", f);
		html(f, lx);
		fputs(".tex\">LaTeX</a> · ", f);
	}
	fputs("<a href=\"", f);
	html(f, g->data);
	fputs("\">data</a></span></figcaption>\n</figure>\n", f);
}

int plot_write_index(const char *out, const struct figure_list *figs, char *err, size_t errlen)
{
	char path[4200];
	struct atomic_file af;
	snprintf(path, sizeof(path), "%s/index.html", out);
	if (atomic_open(&af, path, err, errlen) != 0)
		return -1;
	FILE *f = af.fp;
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	      "<title>vmreplay figures</title>\n<style>\n"
	      "body { font-family: sans-serif; max-width: 64em; margin: 2em auto; padding: 0 1em; }\n"
	      "figure { display: inline-block; vertical-align: top; width: 480px; margin: 1em 1em 1em 0; }\n"
	      "img { max-width: 100%; height: auto; border: 1px solid #ddd; }\n"
	      "figcaption { margin-top: .5em; font-size: .85em; } .links { color: #555; }\n"
	      ".omitted { color: #555; font-size: .9em; }\n"
	      "</style>\n</head>\n<body>\n<h1>vmreplay figures</h1>\n", f);
	int any = 0;
	for (size_t i = 0; i < sizeof(tables) / sizeof(tables[0]); i++)
		if (exists(out, tables[i][0])) {
			if (!any++)
				fputs("<h2>Tables and statistics</h2>\n<ul>\n", f);
			fprintf(f, "<li><a href=\"%s\">%s</a>: %s</li>\n", tables[i][0], tables[i][0],
				tables[i][1]);
		}
	if (any)
		fputs("</ul>\n", f);
	const char *tr[1024];
	size_t nt = traces_of(figs, tr, 1024);
	fprintf(f, "<h2>Contents (%zu figures)</h2>\n<ul>\n", figs->n);
	for (size_t t = 0; t < nt; t++) {
		size_t n = 0;
		for (size_t i = 0; i < figs->n; i++)
			n += strcmp(figs->f[i].trace, tr[t]) == 0;
		fputs("<li><a href=\"#", f);
		anchor(f, "t-", tr[t]);
		fputs("\">", f);
		html(f, tr[t][0] ? tr[t] : "every trace");
		fprintf(f, "</a> (%zu)</li>\n", n);
	}
	fputs("</ul>\n", f);
	for (size_t t = 0; t < nt; t++) {
		fputs("<h2 id=\"", f);
		anchor(f, "t-", tr[t]);
		fputs("\">", f);
		html(f, tr[t][0] ? tr[t] : "Every trace");
		fputs("</h2>\n", f);
		const char *cond = NULL;
		for (size_t i = 0; i < figs->n; i++) {
			const struct figure *g = &figs->f[i];
			if (strcmp(g->trace, tr[t]))
				continue;
			if (g->cond[0] && (!cond || strcmp(cond, g->cond))) {
				cond = g->cond;
				fputs("<h3>", f);
				html(f, cond);
				fputs("</h3>\n", f);
				/* What this condition has no figure of, and why. */
				int first = 1;
				for (size_t k = 0; k < figs->no; k++) {
					const struct omitted *o = &figs->o[k];
					if (strcmp(o->trace, tr[t]) || strcmp(o->cond, cond))
						continue;
					fputs(first ? "<p class=\"omitted\">No figure (0 in every run): " : ", ", f);
					html(f, o->metric);
					first = 0;
				}
				if (!first)
					fputs(".</p>\n", f);
			}
			figure_html(f, g);
		}
	}
	fputs("</body>\n</html>\n", f);
	if (atomic_commit_nosync(&af, err, errlen) != 0)
		return -1;

	snprintf(path, sizeof(path), "%s/README.md", out);
	if (atomic_open(&af, path, err, errlen) != 0)
		return -1;
	f = af.fp;
	fputs("# vmreplay figures\n\n"
	      "Written by `vmreplay plot`. Every figure comes as PDF (fonts embedded), SVG (text as\n"
	      "outlines), PNG, and a LaTeX variant (`latex/NAME.tex` with `latex/NAME.pdf`; use\n"
	      "`\\input{NAME.tex}` from that folder, or `\\import{PATH/latex/}{NAME.tex}` (package\n"
	      "import) from anywhere, with graphicx and color, so the text is set in the document's\n"
	      "font). The data each figure was drawn from is beside it. Colours are the Okabe-Ito\n"
	      "palette; a policy has the same colour in every figure. `index.html` shows them all.\n\n", f);
	any = 0;
	for (size_t i = 0; i < sizeof(tables) / sizeof(tables[0]); i++)
		if (exists(out, tables[i][0])) {
			if (!any++)
				fputs("## Tables and statistics\n\n", f);
			fprintf(f, "* [%s](%s): %s\n", tables[i][0], tables[i][0], tables[i][1]);
		}
	if (any)
		fputc('\n', f);
	if (figs->no) {
		fputs("## No figure (0 in every run)\n\n", f);
		for (size_t k = 0; k < figs->no; k++)
			fprintf(f, "* %s, %s: %s\n", figs->o[k].trace, figs->o[k].cond, figs->o[k].metric);
		fputc('\n', f);
	}
	fprintf(f, "## Figures (%zu)\n\n", figs->n);
	for (size_t i = 0; i < figs->n; i++) {
		const struct figure *g = &figs->f[i];
		char lx[1200];
		latex_stem(g->stem, lx, sizeof(lx));
		fprintf(f, "* **%s** — %s [pdf](%s.pdf) · [svg](%s.svg) · [png](%s.png)", g->stem,
			g->caption, g->stem, g->stem, g->stem);
		if (g->latex)
			fprintf(f, " · [LaTeX](%s.tex)", lx);
		fprintf(f, " · [data](%s)\n", g->data);
	}
	return atomic_commit_nosync(&af, err, errlen);
}
