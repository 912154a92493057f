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
	      "body { font-family: sans-serif; max-width: 60em; margin: 2em auto; padding: 0 1em; }\n"
	      "figure { margin: 2em 0; } img { max-width: 100%; border: 1px solid #ddd; }\n"
	      "figcaption { margin-top: .5em; } .links { font-size: .9em; color: #555; }\n"
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
	fprintf(f, "<h2>Figures (%zu)</h2>\n", figs->n);
	for (size_t i = 0; i < figs->n; i++) {
		const struct figure *g = &figs->f[i];
		char lx[600];
		latex_stem(g->stem, lx, sizeof(lx));
		fputs("<figure>\n<img src=\"", f);
		html(f, g->stem);
		fputs(".svg\" alt=\"", f);
		html(f, g->stem);
		fputs("\">\n<figcaption>", f);
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
	      "`\\input{NAME.tex}` with graphicx, so the text is set in the document's font). The\n"
	      "data each figure was drawn from is beside it. Colours are the Okabe-Ito palette;\n"
	      "a policy has the same colour in every figure. `index.html` shows them all.\n\n", f);
	any = 0;
	for (size_t i = 0; i < sizeof(tables) / sizeof(tables[0]); i++)
		if (exists(out, tables[i][0])) {
			if (!any++)
				fputs("## Tables and statistics\n\n", f);
			fprintf(f, "* [%s](%s): %s\n", tables[i][0], tables[i][0], tables[i][1]);
		}
	if (any)
		fputc('\n', f);
	fprintf(f, "## Figures (%zu)\n\n", figs->n);
	for (size_t i = 0; i < figs->n; i++) {
		const struct figure *g = &figs->f[i];
		char lx[600];
		latex_stem(g->stem, lx, sizeof(lx));
		fprintf(f, "* **%s** — %s [pdf](%s.pdf) · [svg](%s.svg) · [png](%s.png)", g->stem,
			g->caption, g->stem, g->stem, g->stem);
		if (g->latex)
			fprintf(f, " · [LaTeX](%s.tex)", lx);
		fprintf(f, " · [data](%s)\n", g->data);
	}
	return atomic_commit_nosync(&af, err, errlen);
}
