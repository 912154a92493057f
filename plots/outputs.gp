# outputs.gp — draws @plotcmd as PDF, SVG, PNG and (with latexdir) the
# cairolatex pair; see style.gp.  Loaded by the figure scripts.

latex = 0
set terminal pdfcairo noenhanced color font "DejaVu Sans,9" size width, height
set output outprefix . ".pdf"
@plotcmd
unset output

if (have_pdftocairo) {
    svg_rc = system(sprintf("pdftocairo -svg '%s.pdf' '%s.svg' 2>&1; echo $?", outprefix, outprefix))
    if (svg_rc ne "0") { print "outputs.gp: pdftocairo failed: " . svg_rc; exit status 1 }
} else {
    set terminal svg noenhanced font "DejaVu Sans,12" size width * 133, height * 133 dynamic background rgb "white"
    set output outprefix . ".svg"
    @plotcmd
    unset output
}

set terminal pngcairo noenhanced color font "DejaVu Sans,14" size width * 200, height * 200 background rgb "white"
set output outprefix . ".png"
@plotcmd
unset output

if (exists("latexdir")) {
    latex = 1
    set terminal cairolatex pdf input colortext color size width, height
    pwd0 = GPVAL_PWD
    cd latexdir
    set output latexname . ".tex"
    @plotcmd
    unset output
    cd pwd0
    latex = 0
}
