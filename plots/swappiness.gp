# swappiness.gp — one metric versus swappiness, one curve per policy, with
# confidence-interval error bars and a "*" over each mean that differs
# from its policy's baseline after Holm's correction.
#
#   gnuplot -e "datafile='D.tsv'; outprefix='out/x'; npolicies=3; \
#               policies='classic \"classic+early-exit\" mglru'; \
#               colours='1 2 3'; metric='pgsteal_file'; subtitle='...'" \
#           plots/swappiness.gp
#
# datafile: written by `vmreplay plot`, one block per policy (blocks
# separated by two blank lines, in the order of `policies`), columns
#   1 swappiness  2 mean  3 ci_low  4 ci_high  5 n  6 sd  7 significant
#   8 p_holm  9 policy  10 baseline
# (ci_low = ci_high = mean when n = 1: no interval, a bare point).
# colours: each policy's index in the sweep's policy order, so a policy
# has the same colour in every figure. Optional: latexprefix, xtics
# (e.g. "1, 36, 71"), width, height, alpha (for the note, default 0.05).

if (!exists("datafile") || !exists("outprefix") || !exists("policies") || !exists("metric")) {
    print "swappiness.gp: set datafile, outprefix, policies and metric (see the header)"
    exit status 1
}
load ARG0[1:strstrt(ARG0, "swappiness.gp") - 1] . "style.gp"
if (!exists("colours")) colours = ""
if (!exists("subtitle")) subtitle = ""
if (!exists("alpha")) alpha = 0.05
npol = words(policies)
col(i) = words(colours) >= i ? word(colours, i) + 0 : i
# Policies that behave alike draw on top of each other; shifting each
# curve by a little swappiness keeps every one of them and its error bars
# visible.  The data file keeps the true values.
dodge(i) = (i - (npol + 1) / 2.0) * 1.6

set datafile separator tab
set datafile commentschars "#"
set xrange [-5:205]
if (exists("xtics")) { eval "set xtics (" . xtics . ")" } else { set xtics 0, 25, 200 }
set key outside right top vertical Left reverse
set offsets 0, 0, graph 0.08, 0

note = sprintf("* differs from its baseline (Welch, Holm-adjusted p < %g)", alpha)
plotcmd = 'set title esc(metric) . (subtitle ne "" ? "\n" . esc(subtitle) : ""); \
set xlabel "swappiness"; set ylabel esc(metric); \
set label 1 esc(note) at screen 0.99, screen 0.02 right font ",7"; \
plot for [i = 1:npol] datafile index (i - 1) using ($1 + dodge(i)):2:3:4 with yerrorlines lw 1.5 pt pointtype(col(i)) ps 0.7 lc rgb colour(col(i)) title esc(word(policies, i)), \
     for [i = 1:npol] datafile index (i - 1) using ($1 + dodge(i)):($7 > 0 ? $4 : NaN):("*") with labels offset 0, 0.5 tc rgb colour(col(i)) font ",12" notitle'

load ARG0[1:strstrt(ARG0, "swappiness.gp") - 1] . "outputs.gp"
