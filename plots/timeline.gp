# timeline.gp — isolation and throttling over a run's virtual time, one
# curve per policy: pages isolated from the LRU (anon + file), and the
# running count of reclaim throttle events.
#
#   gnuplot -e "datafile='tl.tsv'; outprefix='out/timeline'; \
#               policies='classic mglru'; colours='1 2'; subtitle='…'" plots/timeline.gp
#
# datafile: one block per policy (two blank lines between, in the order of
# `policies`), columns  1 time_ms  2 nr_isolated_anon  3 nr_isolated_file
# 4 throttled_total. Optional: latexprefix.

if (!exists("datafile") || !exists("outprefix") || !exists("policies")) {
    print "timeline.gp: set datafile, outprefix and policies (see the header)"
    exit status 1
}
load ARG0[1:strstrt(ARG0, "timeline.gp") - 1] . "style.gp"
if (!exists("colours")) colours = ""
if (!exists("subtitle")) subtitle = ""
npol = words(policies)
col(i) = words(colours) >= i ? word(colours, i) + 0 : i
height = 4.8

set datafile separator tab
# Counts from 0, so that a spike reads as its size.
set yrange [0:*]
set tics font ",8"
plotcmd = 'set multiplot layout 2, 1 title esc("Isolation and throttling over time" . (subtitle ne "" ? "\n" . subtitle : "")); \
set key inside right top Left reverse font ",8"; \
set xlabel ""; set ylabel "pages isolated"; \
plot for [i = 1:npol] datafile index (i - 1) using 1:($2 + $3) with steps lw 1.2 lc rgb colour(col(i)) title esc(word(policies, i)); \
unset key; set xlabel "virtual time (ms)"; set ylabel "throttle events (cumulative)"; \
plot for [i = 1:npol] datafile index (i - 1) using 1:4 with steps lw 1.2 lc rgb colour(col(i)) notitle; \
unset multiplot'

load ARG0[1:strstrt(ARG0, "timeline.gp") - 1] . "outputs.gp"
