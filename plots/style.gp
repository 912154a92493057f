# style.gp — what every vmreplay figure shares; loaded by the other scripts.
#
# Sets the Okabe–Ito palette (distinguishable with the common colour-vision
# deficiencies), point types, grid and border.  A script then sets
# `plotcmd` (labels included: see esc() below) and loads outputs.gp, which
# draws it in every format:
#
#   outprefix.pdf   pdfcairo: vector, fonts embedded (cairo subsets them)
#   outprefix.svg   the PDF converted by pdftocairo, so text is glyph
#                   outlines and the figure looks the same without the font;
#                   gnuplot's own svg terminal when pdftocairo is missing
#   outprefix.png   pngcairo, for a quick look
#   latexdir/latexname.tex + .pdf   cairolatex: LaTeX sets the text in
#                   the document's own font (when latexdir is set); drawn
#                   from inside latexdir, so that the .tex names its .pdf
#                   with no directory and \input works from that folder
#                   (or \import{DIR/}{NAME.tex} from anywhere)
#
# Input variables: outprefix (required), latexdir and latexname
# (optional), width/height in inches (default 6 x 3.6).  Paths are
# absolute: the LaTeX pass changes directory.

okabe_ito = "#0072B2 #D55E00 #009E73 #CC79A7 #E69F00 #56B4E9 #000000 #F0E442"
colour(i) = word(okabe_ito, (i - 1) % words(okabe_ito) + 1)
pointtype(i) = word("7 5 9 13 11 15 4 6 8 10 12 14", (i - 1) % 12 + 1) + 0

if (!exists("width")) width = 6.0
if (!exists("height")) height = 3.6

set grid xtics ytics lc rgb "#d0d0d0" lw 1 dt 3
set border 3
set xtics nomirror
set ytics nomirror

# Names come from the data (policies such as "classic+early-exit", traces
# such as "anon-storm-small"): draw them verbatim, no enhanced-text markup.
set termoption noenhanced

# Quoting: every path below reaches a shell in single quotes.
if (strstrt(outprefix, "'") > 0) {
    print "style.gp: outprefix must not contain single quotes"
    exit status 1
}
have_pdftocairo = system("command -v pdftocairo >/dev/null 2>&1 && echo 1 || echo 0") eq "1"

# Text for the LaTeX variant is typeset by LaTeX, where "_" is a subscript
# and "%" a comment outside math mode, and "<" is a "¡" in text: esc()
# escapes them, and sets < and > as math, while latex = 1 (outputs.gp
# sets it for that pass only).  Scripts write every label as esc(...)
# inside plotcmd.
latex = 0
esc1(c) = c eq "_" ? "\\_" : c eq "%" ? "\\%" : c eq "#" ? "\\#" : c eq "&" ? "\\&" : \
          c eq "<" ? "$<$" : c eq ">" ? "$>$" : c eq "$" ? "\\$" : c
escr(s) = strlen(s) == 0 ? "" : esc1(s[1:1]) . escr(s[2:])
esc(s) = latex ? escr(s) : s
# Counts in pages run from tens to tens of millions: past 10,000 SI
# prefixes (208.0k, 10.8M) keep the ticks short (yformat, from plot.c).
if (exists("yformat")) { set format y yformat }
