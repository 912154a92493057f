# cdf.gp — empirical CDF of a per-reclaim-invocation cost, one curve per
# policy (pages scanned per invocation, or its latency).
#
#   gnuplot -e "datafile='cdf.tsv'; outprefix='out/cdf'; policies='classic mglru'; \
#               colours='1 2'; xlabel='pages scanned per reclaim invocation'; \
#               subtitle='…'" plots/cdf.gp
#
# datafile: one block per policy (two blank lines between, in the order of
# `policies`), columns  1 value  2 fraction of invocations <= value,
# sorted by value. Optional: logx (default 1), latexprefix, width, height.

if (!exists("datafile") || !exists("outprefix") || !exists("policies") || !exists("xlabel")) {
    print "cdf.gp: set datafile, outprefix, policies and xlabel (see the header)"
    exit status 1
}
load ARG0[1:strstrt(ARG0, "cdf.gp") - 1] . "style.gp"
if (!exists("colours")) colours = ""
if (!exists("subtitle")) subtitle = ""
if (!exists("logx")) logx = 1
npol = words(policies)
col(i) = words(colours) >= i ? word(colours, i) + 0 : i

set datafile separator tab
if (logx) { set logscale x 10; set mxtics 10 }
set yrange [0:1.02]
set ytics 0, 0.2, 1
set key inside right bottom Left reverse

plotcmd = 'set title esc("Per-invocation reclaim cost" . (subtitle ne "" ? "\n" . subtitle : "")); \
set xlabel esc(xlabel); set ylabel "fraction of reclaim invocations"; \
plot for [i = 1:npol] datafile index (i - 1) using 1:2 with steps lw 1.5 dt col(i) lc rgb colour(col(i)) title esc(word(policies, i))'

load ARG0[1:strstrt(ARG0, "cdf.gp") - 1] . "outputs.gp"
