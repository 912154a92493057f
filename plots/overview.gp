# overview.gp — the six reclaim counters versus swappiness in one figure:
# a 2 x 3 grid of swappiness.gp panels sharing one legend.
#
#   gnuplot -e "datafiles='a.tsv b.tsv …'; metrics='pgsteal_file …'; \
#               outprefix='out/overview'; policies='classic mglru'; \
#               colours='1 2'; subtitle='…'" plots/overview.gp
#
# Each datafile is in swappiness.gp's format; datafiles and metrics are
# parallel word lists (up to six; fewer leave panels empty). Optional as in
# swappiness.gp: latexprefix, xtics, alpha.

if (!exists("datafiles") || !exists("metrics") || !exists("outprefix") || !exists("policies")) {
    print "overview.gp: set datafiles, metrics, outprefix and policies (see the header)"
    exit status 1
}
load ARG0[1:strstrt(ARG0, "overview.gp") - 1] . "style.gp"
if (!exists("colours")) colours = ""
if (!exists("subtitle")) subtitle = ""
if (!exists("alpha")) alpha = 0.05
npol = words(policies)
npanels = words(datafiles) < 6 ? words(datafiles) : 6
col(i) = words(colours) >= i ? word(colours, i) + 0 : i
# Policies that behave alike draw on top of each other; shifting each
# curve by a little swappiness keeps every one of them and its error bars
# visible.  The data file keeps the true values.
dodge(i) = (i - (npol + 1) / 2.0) * 1.6
width = 10.0
height = 6.0

set datafile separator tab
set xrange [-5:205]
if (exists("xtics")) { eval "set xtics (" . xtics . ") font ',7'" } else { set xtics 0, 50, 200 font ",7" }
set ytics font ",7"
set offsets 0, 0, graph 0.1, 0

note = sprintf("error bars: 95%% CI of the mean over seeds;  * differs from its baseline (Welch, Holm-adjusted p < %g)", alpha)
# One legend, drawn by the first panel below the grid's title.
plotcmd = 'set multiplot layout 2, 3 title esc("Reclaim versus swappiness" . (subtitle ne "" ? ": " . subtitle : "")) margins 0.07, 0.98, 0.16, 0.88 spacing 0.07, 0.12; \
do for [k = 1:npanels] { \
  df = word(datafiles, k); \
  set title esc(word(metrics, k)) font ",9"; \
  if (k == 1) { set key at screen 0.5, screen 0.07 center horizontal maxrows 1 font ",8" } else { unset key }; \
  plot for [i = 1:npol] df index (i - 1) using ($1 + dodge(i)):2:3:4 with yerrorlines lw 1.2 pt pointtype(col(i)) ps 0.5 lc rgb colour(col(i)) title esc(word(policies, i)), \
       for [i = 1:npol] df index (i - 1) using ($1 + dodge(i)):($7 > 0 ? $4 : NaN):("*") with labels offset 0, 0.4 tc rgb colour(col(i)) notitle \
}; \
set label 1 esc(note) at screen 0.5, screen 0.02 center font ",7"; \
unset multiplot; unset label 1'

load ARG0[1:strstrt(ARG0, "overview.gp") - 1] . "outputs.gp"
