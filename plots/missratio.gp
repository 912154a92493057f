# missratio.gp — miss ratio versus memory size, one curve per trace.
#
#   gnuplot -e "datafile='X.tsv'; outprefix='out/missratio'" plots/missratio.gp
#
# writes outprefix.pdf, outprefix.svg and outprefix.png (the directory part of
# outprefix is created if missing).
#
# Input: a tab-separated file whose first line is a header naming at least
#   trace  memory_mib  miss_ratio
# (the replay output has: trace memory_pages memory_mib accesses hits misses
# evictions miss_ratio). Columns are found by name, so their order and any
# extra columns do not matter. One row per (trace, memory size) replay.
#
# Optional variables (set them with -e before the script runs):
#   traces     word list of traces to draw, in legend order, e.g.
#              traces='kbuild "my trace"' (quote names that contain blanks);
#              default: every trace in the file, in order of first appearance.
#              A name that is not in the file draws nothing (gnuplot warns).
#              Trace names must not contain double quotes or tabs.
#   plottitle  the title; default "Miss ratio vs. memory size (exact LRU)"
#
# Exit status: 0 on success; 1 if datafile is unset, unreadable, lacks one of
# the required columns, or has no data rows (gnuplot prints why on stderr).

if (!exists("datafile")) {
    print "missratio.gp: usage: gnuplot -e \"datafile='X.tsv'; outprefix='out/missratio'\" plots/missratio.gp"
    exit status 1
}
if (!exists("outprefix")) outprefix = "missratio"
if (!exists("plottitle")) plottitle = "Miss ratio vs. memory size (exact LRU)"

# The data file path reaches the shell below; single quotes keep it literal.
# A path that itself contains a single quote is refused rather than mangled.
if (strstrt(datafile, "'") > 0 || strstrt(outprefix, "'") > 0) {
    print "missratio.gp: datafile and outprefix must not contain single quotes"
    exit status 1
}
if (system(sprintf("test -r '%s'; echo $?", datafile)) ne "0") {
    print sprintf("missratio.gp: cannot read %s", datafile)
    exit status 1
}

# Check the header up front. Without this, gnuplot 5.4 only warns "no column
# with header ..." and then fails on "x range is invalid" after it has already
# created an empty PDF; checking first gives a clear message and no files.
header = system(sprintf("head -n 1 '%s' | tr '\\t' ' '", datafile))
required = "trace memory_mib miss_ratio"
do for [col in required] {
    found = 0
    do for [h in header] { if (h eq col) { found = 1 } }
    if (!found) {
        print sprintf("missratio.gp: %s: header lacks column '%s' (has: %s)", datafile, col, header)
        exit status 1
    }
}

# Trace names come from the data, so any number of traces works. awk finds
# the trace column by name and keeps the first-appearance order, which is the
# order the replay wrote them in. Names are double-quoted so that word()
# keeps a name containing blanks together.
if (!exists("traces")) {
    traces = system(sprintf("awk -F'\\t' 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == \"trace\") c = i; next } \
        !seen[$c]++ { printf \"\\\"%%s\\\" \", $c }' '%s'", datafile))
}
ntraces = words(traces)
if (ntraces == 0) {
    print sprintf("missratio.gp: %s: no data rows", datafile)
    exit status 1
}

set datafile separator tab
set datafile columnheaders
# The rows of the other traces are turned into NaN below. As "missing" data
# they are skipped without splitting the curve into pieces (an undefined
# point would split it, and smoothing would then work piece by piece).
set datafile missing NaN

# Log x only when the sizes span more than a decade; a linear axis reads more
# easily for a narrow range, and log needs every size to be positive.
stats datafile using "memory_mib" name "MEM" nooutput
if (MEM_min > 0 && MEM_max / MEM_min > 10) {
    set logscale x 10
    set mxtics 10
} else {
    unset logscale x
}
# Fit the x axis to the data, not to the next round tic (which can waste a
# whole decade), and pad it a little so the end points are not cut in half
# by the border. A single memory size gets a range around it instead.
set autoscale xfix
set offsets graph 0.03, graph 0.03, 0, 0
if (MEM_min == MEM_max) {
    set xrange [MEM_min * 0.5 : MEM_max * 1.5]
}

# Okabe–Ito colours, distinguishable with the common colour-vision
# deficiencies. Yellow comes last: it is hard to see as a line on white.
# Past eight traces the colours repeat, but the point types keep changing.
okabe_ito = "#0072B2 #D55E00 #009E73 #CC79A7 #E69F00 #56B4E9 #000000 #F0E442"
colour(i) = word(okabe_ito, (i - 1) % words(okabe_ito) + 1)
pointtype(i) = word("7 5 9 13 11 15 4 6 8 10 12 14", (i - 1) % 12 + 1) + 0

set title plottitle
set xlabel "Memory size (MiB)"
set ylabel "Miss ratio"
set yrange [0:1]
set ytics 0.1
set grid xtics ytics lc rgb "#d0d0d0" lw 1 dt 3
set key outside right top vertical Left reverse noautotitle
set border 3
set xtics nomirror
set ytics nomirror

# Each curve takes only its trace's rows; other rows become NaN and are
# skipped. "smooth unique" sorts by memory size, so the line is drawn left
# to right even if the file's rows are not ordered. (It would also average
# two rows with the same trace and size; the input has one row per pair.)
is_trace(t) = strcol("trace") eq t
plotcmd = 'plot for [i = 1:ntraces] datafile using (is_trace(word(traces, i)) ? column("memory_mib") : NaN):"miss_ratio" smooth unique with linespoints lw 2 pt pointtype(i) ps 0.8 lc rgb colour(i) title word(traces, i)'

# Fonts: gnuplot-nox's cairo terminals need fontconfig, whose Debian package
# fontconfig-config depends on fonts-dejavu-core first, so DejaVu Sans is on
# any system with gnuplot-nox; if not, fontconfig substitutes another sans.
# noenhanced: trace names are drawn verbatim ("kernel_build" is not a
# subscript).
outdir = system(sprintf("dirname -- '%s'", outprefix))
if (system(sprintf("mkdir -p -- '%s' && echo ok", outdir)) ne "ok") {
    print sprintf("missratio.gp: cannot create directory %s", outdir)
    exit status 1
}

set terminal pdfcairo noenhanced color font "DejaVu Sans,9" size 6in,3.6in
set output outprefix . ".pdf"
@plotcmd

set terminal svg noenhanced font "DejaVu Sans,12" size 800,480 dynamic background rgb "white"
set output outprefix . ".svg"
@plotcmd

set terminal pngcairo noenhanced color font "DejaVu Sans,14" size 1200,720 background rgb "white"
set output outprefix . ".png"
@plotcmd

unset output
