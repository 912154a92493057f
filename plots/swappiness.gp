# swappiness.gp — one metric versus swappiness: one panel per policy
# against its baseline (the two curves a reader compares, not eight on
# top of each other), confidence intervals as error bars, a "*" over
# each mean that differs from its baseline after Holm's correction, and
# the real kernel's own counters where the traces are captures.
#
#   gnuplot -e "datafile='/abs/D.tsv'; outprefix='/abs/out/x'; \
#               policies='classic \"classic+early-exit\" mglru'; \
#               colours='1 2 3'; panels='2:1 3:1'; metric='pgsteal_file'; \
#               ylabel='pgsteal_file (pages)'" plots/swappiness.gp
#
# datafile: written by `vmreplay plot`, one block per policy (blocks
# separated by two blank lines, in the order of `policies`), columns
#   1 swappiness  2 mean  3 ci_low  4 ci_high  5 n  6 sd  7 significant
#   8 p_holm  9 policy  10 baseline  11 change from the baseline (%)
#   12 13 its confidence interval (%)
# (ci_low = ci_high = mean when n = 1: no interval, a bare point).
# panels: one word per panel, "V:B" (block V against block B) or "V" (a
# policy alone); default: every block in one panel.  colours: each
# policy's index in the sweep's policy order, so a policy has the same
# colour in every figure.  Optional: kernelfile (columns swappiness,
# value: the captured kernel's counters) and kernelpanels (a 0/1 word per
# panel: draw them there), relative (1: each variant's change from its
# baseline, in %, instead of both from 0), npoints (points per curve: 1
# draws points, not lines), scale (values times scale: ns to ms), note,
# subtitle, yformat, latexdir + latexname, width, height.

if (!exists("datafile") || !exists("outprefix") || !exists("policies") || !exists("metric")) {
    print "swappiness.gp: set datafile, outprefix, policies and metric (see the header)"
    exit status 1
}
load ARG0[1:strstrt(ARG0, "swappiness.gp") - 1] . "style.gp"
if (!exists("colours")) colours = ""
if (!exists("subtitle")) subtitle = ""
if (!exists("note")) note = ""
if (!exists("ylabel")) ylabel = metric
if (!exists("relative")) relative = 0
if (!exists("npoints")) npoints = 2
if (!exists("scale")) scale = 1
if (!exists("kernelfile")) kernelfile = ""
if (!exists("kernelpanels")) kernelpanels = ""
npol = words(policies)
if (!exists("panels") || words(panels) == 0) {
    panels = ""
    do for [i = 1:npol] { panels = panels . (i > 1 ? " " : "") . sprintf("%d", i) }
    single = 1
} else {
    single = 0
}
npanels = words(panels)
col(i) = words(colours) >= i ? word(colours, i) + 0 : i
# Block indices of panel k: its variant, and its baseline (0: none).
pv(k) = (s = word(panels, k), strstrt(s, ":") ? s[1:strstrt(s, ":") - 1] + 0 : s + 0)
pb(k) = (s = word(panels, k), strstrt(s, ":") ? s[strstrt(s, ":") + 1:] + 0 : 0)
kernel_in(k) = kernelfile ne "" && (words(kernelpanels) >= k ? word(kernelpanels, k) + 0 : 1)
# One swappiness: a curve of one point is drawn as a point.
curve = npoints > 1 ? "yerrorlines" : "yerrorbars"

ncols = single ? 1 : (npanels <= 2 ? npanels : (npanels <= 4 ? 2 : 3))
nrows = int((npanels + ncols - 1) / ncols)
if (!exists("width")) { width = single ? 6.5 : 3.4 * ncols }
if (!exists("height")) { height = single ? 4.0 : 0.7 + 2.4 * nrows }
# The variant and its baseline side by side at each swappiness, so that
# neither hides the other's error bar; the data keep the true values.
dodge = single ? 0 : 1.5

set datafile separator tab
set datafile commentschars "#"
set xrange [-8:208]
set xtics 0, 50, 200
set mxtics 2
set tics font ",8"
if (relative) { set yrange [*:*] } else { set yrange [0:*] }
set offsets 0, 0, graph 0.1, 0

# The panels' titles take their room from gnuplot's own margins; the
# figure's title carries the condition and the note.  In a panel the
# variant has its colour (its title too) and the baseline is grey and
# dashed, so the panel needs no key over or beside its data.
# A "-" in the data is a value that is not there: undefined, as NaN.
num(c) = strcol(c) eq "-" ? NaN : column(c)
plotcmd = 'set multiplot layout nrows, ncols title esc(metric . (subtitle ne "" ? ", " . subtitle : "") . (note ne "" ? "\n" . note : "")) font ",9"; \
set xlabel "swappiness" font ",8"; set ylabel esc(relative ? "change from baseline (%)" : ylabel) font ",8"; \
if (single) { set key below center horizontal samplen 2 font ",8" } else { unset key }; \
do for [k = 1:npanels] { \
  v = pv(k); b = pb(k); \
  if (single) { unset title } else { set title esc(word(policies, v) . (b > 0 ? " vs " . word(policies, b) . (relative ? "" : " (grey)") : "")) font ",9" tc rgb "black" }; \
  if (relative) { set arrow 1 from graph 0, first 0 to graph 1, first 0 nohead lc rgb "#808080" } else { unset arrow 1 }; \
  if (single) { \
    plot for [i = 1:npol] datafile index (i - 1) using 1:($2 * scale):($3 * scale):($4 * scale) with @curve lw 1.5 pt pointtype(col(i)) ps 0.7 lc rgb colour(col(i)) title esc(word(policies, i)), \
         for [i = 1:npol] datafile index (i - 1) using 1:($4 * scale):($7 > 0 ? "*" : "") with labels offset 0, 0.5 tc rgb colour(col(i)) notitle, \
         for [j = 1:(kernel_in(k) ? 1 : 0)] kernelfile using 1:($2 * scale) with points pt 2 ps 1.3 lw 2 lc rgb "black" title "kernel (captured)" \
  } else { if (relative && b > 0) { \
    plot datafile index (v - 1) using 1:(num(11)):(num(12)):(num(13)) with @curve lw 1.5 pt pointtype(col(v)) ps 0.7 lc rgb colour(col(v)) title esc(word(policies, v)), \
         datafile index (v - 1) using 1:(num(13)):($7 > 0 ? "*" : "") with labels offset 0, 0.5 tc rgb colour(col(v)) notitle \
  } else { \
    plot for [j = 1:(b > 0 ? 1 : 0)] datafile index (b - 1) using ($1 - dodge):($2 * scale):($3 * scale):($4 * scale) with @curve lw 1.2 dt 2 pt 6 ps 0.6 lc rgb "#808080" title esc(word(policies, b)), \
         datafile index (v - 1) using ($1 + dodge):($2 * scale):($3 * scale):($4 * scale) with @curve lw 1.5 pt pointtype(col(v)) ps 0.7 lc rgb colour(col(v)) title esc(word(policies, v)), \
         datafile index (v - 1) using ($1 + dodge):($4 * scale):($7 > 0 ? "*" : "") with labels offset 0, 0.5 tc rgb colour(col(v)) notitle, \
         for [j = 1:(kernel_in(k) ? 1 : 0)] kernelfile using 1:($2 * scale) with points pt 2 ps 1.3 lw 2 lc rgb "black" title "kernel" \
  } } \
}; \
unset multiplot'

load ARG0[1:strstrt(ARG0, "swappiness.gp") - 1] . "outputs.gp"
