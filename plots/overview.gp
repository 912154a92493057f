# overview.gp — the headline counters versus swappiness in one figure: a
# grid of panels, one per metric, of the base policies (the kernel's
# choice between classic and MGLRU; each variant has its own panel in
# the single figures) and the captured kernel's own counters.
#
#   gnuplot -e "datafiles='/abs/a.tsv /abs/b.tsv'; metrics='pgsteal_file …'; \
#               units='pages pages'; outprefix='/abs/out/overview'; \
#               policies='classic mglru+x mglru'; show='1 3'; colours='1 2 3'" \
#           plots/overview.gp
#
# Each datafile is in swappiness.gp's format; datafiles, metrics, units,
# kernelfiles and kernels (1: draw that kernelfile in that panel) and
# yformats are parallel word lists (up to six).  show: the blocks drawn in every panel.  Optional as in
# swappiness.gp: npoints, note, subtitle, latexdir + latexname.

if (!exists("datafiles") || !exists("metrics") || !exists("outprefix") || !exists("policies")) {
    print "overview.gp: set datafiles, metrics, outprefix and policies (see the header)"
    exit status 1
}
load ARG0[1:strstrt(ARG0, "overview.gp") - 1] . "style.gp"
if (!exists("colours")) colours = ""
if (!exists("subtitle")) subtitle = ""
if (!exists("note")) note = ""
if (!exists("npoints")) npoints = 2
if (!exists("kernelfiles")) kernelfiles = ""
if (!exists("kernels")) kernels = ""
if (!exists("yformats")) yformats = ""
if (!exists("units")) units = ""
npol = words(policies)
if (!exists("show")) { show = ""; do for [i = 1:npol] { show = show . sprintf(" %d", i) } }
nshow = words(show)
npanels = words(datafiles) < 6 ? words(datafiles) : 6
col(i) = words(colours) >= i ? word(colours, i) + 0 : i
curve = npoints > 1 ? "yerrorlines" : "yerrorbars"
kin(k) = words(kernels) >= k && words(kernelfiles) >= k ? word(kernels, k) + 0 : 0
ncols = npanels <= 2 ? npanels : 3
nrows = int((npanels + ncols - 1) / ncols)
width = 3.4 * ncols
height = 1.0 + 2.5 * nrows

set datafile separator tab
set xrange [-8:208]
set xtics 0, 50, 200
set mxtics 2
set tics font ",8"
set yrange [0:*]
set offsets 0, 0, graph 0.1, 0
dodge(i) = (i - (nshow + 1) / 2.0) * 1.5

plotcmd = 'set multiplot layout nrows, ncols title esc("Reclaim versus swappiness" . (subtitle ne "" ? ", " . subtitle : "") . (note ne "" ? "\n" . note : "")) font ",9"; \
set xlabel "swappiness" font ",8"; \
set key below center horizontal samplen 2 font ",8"; \
do for [k = 1:npanels] { \
  df = word(datafiles, k); kfile = kin(k) ? word(kernelfiles, k) : df; \
  if (words(yformats) >= k) { set format y word(yformats, k) } else { set format y "%g" }; \
  set title esc(word(metrics, k)) font ",9"; \
  set ylabel esc(words(units) >= k ? word(units, k) : "") font ",8"; \
  plot for [j = 1:nshow] df index (word(show, j) - 1) using ($1 + dodge(j)):2:3:4 with @curve lw 1.3 pt pointtype(col(word(show, j) + 0)) ps 0.6 lc rgb colour(col(word(show, j) + 0)) title esc(word(policies, word(show, j) + 0)), \
       for [j = 1:nshow] df index (word(show, j) - 1) using ($1 + dodge(j)):4:($7 > 0 ? "*" : "") with labels offset 0, 0.4 tc rgb colour(col(word(show, j) + 0)) notitle, \
       for [j = 1:kin(k)] kfile using 1:2 with points pt 2 ps 1.2 lw 2 lc rgb "black" title "kernel" \
}; \
unset multiplot'

load ARG0[1:strstrt(ARG0, "overview.gp") - 1] . "outputs.gp"
