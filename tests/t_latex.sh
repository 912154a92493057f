#!/bin/bash
# The LaTeX outputs compile when \input into an article (pdflatex from
# Debian's texlive-latex-base and -recommended, make deps): tables.tex of
# both fixtures and of a sweep of every kernel policy, which must fit
# \textwidth (no overfull box), and a cairolatex figure \input from its
# own folder and, with \graphicspath, from another; "p < 0.05" comes out
# as math, not as the "p ¡ 0.05" of < set in an OT1 text font.
. "$(dirname "$0")/tap.sh"
build=${1:-build}
vmr=$PWD/$build/vmreplay
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if ! command -v pdflatex >/dev/null 2>&1; then
    nok "pdflatex is installed (make deps: texlive-latex-base, texlive-latex-recommended)"
    exit 0
fi
# latex DIR NAME: compiles DIR/NAME.tex; ok when it does without error.
latex() {
    (cd "$1" && pdflatex -interaction=nonstopmode -halt-on-error "$2.tex" >/dev/null 2>&1)
}
article() {   # article FILE PREAMBLE BODY
    printf '\\documentclass{article}\n%s\n\\begin{document}\nSome text before the tables.\n\n%s\n\\end{document}\n' \
        "$2" "$3" >"$1"
}

# 1. Tables: the two fixtures, and eight kernel policies at seven
# swappiness values with counts in the millions (the widest table a
# sweep of every policy makes).
mkdir -p "$tmp/t" "$tmp/wide/results"
"$vmr" stats -f latex -o "$tmp/t/a.tex" tests/data/stats-fixture
"$vmr" stats -f latex --holm all -o "$tmp/t/b.tex" tests/data/stats-captures
policies=$("$vmr" run --list-policies | awk -F'\t' '$2 == "yes" { print $1 }')
printf 'id\ttrace\ttrace_hash\tpages\tpage_size\tpolicy\tkernel\tswappiness\tmemory_limit\tnode_memory\tswap\tseed\tevents\ttimeline\tset\n' >"$tmp/wide/plan.tsv"
n=0
for p in $policies; do
    for s in 1 36 71 106 141 176 200; do
        for seed in 1 2 3; do
            n=$((n + 1)); id=$(printf '%016x' $n)
            printf '%s\tkernel-build\t%032x\t4096\t4096\t%s\t1\t%s\t1073741824\t-\t-\t%s\t0\t0\tkernel-build\n' \
                "$id" 7 "$p" "$s" "$seed" >>"$tmp/wide/plan.tsv"
            v=$(( (n * 7919 % 1000 + 1) * 13217 + seed * 2011 ))
            printf 'trace\ttrace_hash\tpolicy\tswappiness\tmemory_limit\tnode_memory\tswap\tseed\tversion\tpgsteal_file\tpgscan_file\n%s\t%032x\t%s\t%s\t1073741824\t-\tzram\t%s\t0.1.0\t%s\t%s\n' \
                traces/kernel-build.vmr 7 "$p" "$s" "$seed" "$v" $((v * 3)) >"$tmp/wide/results/$id.tsv"
        done
    done
done
"$vmr" stats -f latex -o "$tmp/t/c.tex" "$tmp/wide"
check "the wide table has a column per kernel policy ($(echo $policies | wc -w))" \
    grep -q "swappiness & C & C+ee & C+eed & M & M+s & M+it & M+sb & M+s+it" "$tmp/t/c.tex"
article "$tmp/t/doc.tex" '\usepackage{booktabs}' '\input{a.tex}
\input{b.tex}
\input{c.tex}'
latex "$tmp/t" doc
check "tables.tex of the fixtures and the wide sweep compile when \\input" test $? -eq 0 ||
    grep -A3 '^!' "$tmp/t/doc.log" | head -8 | sed 's/^/# /'
check "every table fits \\textwidth (no overfull box)" test "$(grep -c 'Overfull' "$tmp/t/doc.log")" -eq 0
# 126 tables: the float queue must not overflow (a \clearpage every 8).
for i in $(seq 1 16); do echo "\\input{c.tex}"; done >"$tmp/t/many.inc"
article "$tmp/t/many.tex" '\usepackage{booktabs}' '\input{many.inc}'
latex "$tmp/t" many
check "130 tables in one document: no 'Too many unprocessed floats'" test $? -eq 0
if command -v pdftotext >/dev/null 2>&1; then
    pdftotext "$tmp/t/doc.pdf" "$tmp/t/doc.txt"
    check "the tables' note sets p < 0.05 as math" grep -q 'p Holm < 0.05\|pHolm < 0.05' "$tmp/t/doc.txt"
fi

# 2. A cairolatex figure, \input from its own folder and from another.
"$vmr" plot -o "$tmp/fig" tests/data/stats-fixture 2>/dev/null
d=$tmp/fig/toy/limit-16384K/latex
check "the figure's .tex names its graphic without a directory" \
    grep -q 'includegraphics\[[^]]*\]{pgscan_anon}' "$d/pgscan_anon.tex"
article "$d/here.tex" '\usepackage{graphicx}\usepackage{color}' '\begin{figure}\centering
\input{pgscan_anon.tex}
\caption{From its own folder.}
\end{figure}
\input{overview.tex}'
latex "$d" here
check "a cairolatex figure compiles \\input from its own folder" test $? -eq 0 ||
    grep -A3 '^!' "$d/here.log" | head -8 | sed 's/^/# /'
mkdir -p "$tmp/paper"
article "$tmp/paper/paper.tex" "\\usepackage{graphicx}\\usepackage{color}\\graphicspath{{$d/}}" \
    "\\input{$d/pgsteal_anon.tex}"
latex "$tmp/paper" paper
check "and from another folder with \\graphicspath" test $? -eq 0
if command -v pdftotext >/dev/null 2>&1; then
    pdftotext "$d/here.pdf" "$tmp/here.txt"
    check "the figure's note reads p < 0.05 (math), not p ¡ 0.05" \
        bash -c "grep -q 'p < 0.05' '$tmp/here.txt' && ! grep -q '¡' '$tmp/here.txt'"
fi
exit 0
