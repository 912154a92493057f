#!/bin/bash
# table.sh -f text|markdown|latex [FILE] — the experiments' table writer.
#
# The papers' tables put rows of different sources side by side (the
# replay's means and the real kernel's counters of the same cell), which
# `vmreplay stats`'s tables (one source: a sweep's means) do not; this
# writes them from a small line format, one table after another:
#
#   title ID TEXT            the caption (first line of a table)
#   head  ID LABEL COL...    the column names (LABEL names the row labels)
#   row   ID LABEL VALUE...  one row; a value is a number, NaN or - (none)
#   note  ID TEXT            a line under the table
#
# fields separated by tabs, tables in the order their title comes.  Numbers
# are shown as `vmreplay stats` shows them (table_format_number: integers
# and values from 10^4 whole, others to 4 significant digits; LaTeX:
# table_format_compact, 10.8M / 208k), NaN and - as "-"; a trailing * (a
# significant difference) is kept.  LaTeX tables are booktabs floats that
# compile when \input into an article.
set -euo pipefail
fmt=text
while getopts f: o; do
    case $o in f) fmt=$OPTARG ;; *) echo "usage: table.sh -f text|markdown|latex [FILE]" >&2; exit 2 ;; esac
done
shift $((OPTIND - 1))
case $fmt in text|markdown|latex) ;; *) echo "table.sh: -f: text, markdown or latex, not '$fmt'" >&2; exit 2 ;; esac
exec awk -F'\t' -v fmt="$fmt" '
function num(v,   a, s, star) {
    star = ""
    if (v ~ /\*$/) { star = "*"; v = substr(v, 1, length(v) - 1) }
    if (v == "-" || v == "" || tolower(v) == "nan") return "-"
    if (v !~ /^-?[0-9.]+([eE][-+]?[0-9]+)?$/) return v star
    v += 0
    a = v < 0 ? -v : v
    if (fmt == "latex" && a >= 1e4) {
        # table_format_compact: 10.8M, 208k
        s = ""; split("k M G T", suf, " ")
        for (k = 0; a >= 999.5 && k < 4; k++) { a /= 1000; v /= 1000 }
        s = suf[k]
        return sprintf(a >= 99.95 ? "%.0f%s" : a >= 9.995 ? "%.1f%s" : "%.2f%s", v, s) star
    }
    # table_format_number: integers and large values whole, others to 4 digits
    if (a >= 1e4 || v == int(v)) return sprintf("%.0f", v) star
    return sprintf("%.4g", v) star
}
function tex(s) {
    gsub(/\\/, "\\textbackslash{}", s); gsub(/[_%&#$]/, "\\\\&", s)
    gsub(/~/, "\\textasciitilde{}", s); gsub(/≥/, "$\\geq$", s); gsub(/≤/, "$\\leq$", s)
    gsub(/×/, "$\\times$", s); gsub(/−/, "$-$", s)
    return s
}
# A column name of several words, one word a line (a nested tabular: no
# package), so that a table of many columns fits \textwidth; the name of a
# counter breaks after its last underscore (mm_vmscan_ / throttled).
function head(s,   n, w, i, r) {
    if (s !~ / / && length(s) > 10 && match(s, /_[^_]+$/)) s = substr(s, 1, RSTART) " " substr(s, RSTART + 1)
    n = split(s, w, " ")
    if (n < 2) return tex(s)
    r = "\\begin{tabular}[b]{@{}c@{}}" tex(w[1])
    for (i = 2; i <= n; i++) r = r "\\\\" tex(w[i])
    return r "\\end{tabular}"
}
function bad(msg) { printf "table.sh: %s line %d: %s\n", FILENAME == "" ? "-" : FILENAME, FNR, msg > "/dev/stderr"; err = 1; exit 1 }
NF < 3 { bad("fewer than 3 fields") }
$1 == "title" { if (!($2 in title)) order[++nt] = $2; title[$2] = $3; next }
$1 == "head" { if (!($2 in title)) bad("head before title of " $2); nc[$2] = NF - 2
               for (i = 3; i <= NF; i++) cell[$2, 0, i - 2] = $i; next }
$1 == "row"  { if (!(($2) in nc)) bad("row before head of " $2)
               if (NF - 2 != nc[$2]) bad(sprintf("%d fields, the head has %d", NF - 2, nc[$2]))
               r = ++nr[$2]; cell[$2, r, 1] = $3
               for (i = 4; i <= NF; i++) cell[$2, r, i - 2] = num($i); next }
$1 == "note" { if (!($2 in title)) bad("note before title of " $2); notes[$2, ++nn[$2]] = $3; next }
{ bad("unknown line kind \"" $1 "\"") }
END {
    if (err) exit 1
    for (t = 1; t <= nt; t++) {
        id = order[t]; c = nc[id]
        if (t > 1) print ""
        if (fmt == "text") {
            print title[id]; print ""
            for (j = 1; j <= c; j++) { w[j] = 0; for (r = 0; r <= nr[id]; r++) if (length(cell[id, r, j]) > w[j]) w[j] = length(cell[id, r, j]) }
            for (r = 0; r <= nr[id]; r++) {
                line = sprintf("%-" w[1] "s", cell[id, r, 1])
                for (j = 2; j <= c; j++) line = line sprintf("  %" w[j] "s", cell[id, r, j])
                print line
            }
            if (nn[id]) print ""
            for (k = 1; k <= nn[id]; k++) print notes[id, k]
        } else if (fmt == "markdown") {
            print "**" title[id] "**"; print ""
            for (r = 0; r <= nr[id]; r++) {
                line = "|"
                for (j = 1; j <= c; j++) line = line " " cell[id, r, j] " |"
                print line
                if (r == 0) { line = "|---"; for (j = 2; j <= c; j++) line = line "|---:"; print line "|" }
            }
            if (nn[id]) print ""
            for (k = 1; k <= nn[id]; k++) print notes[id, k] (k < nn[id] ? "  " : "")
        } else {
            spec = "l"; for (j = 2; j <= c; j++) spec = spec "r"
            print "\\begin{table}[htbp]"
            print "\\centering" (c > 6 ? "\\footnotesize\\setlength{\\tabcolsep}{3.5pt}" : "\\small\\setlength{\\tabcolsep}{4pt}")
            print "\\caption{" tex(title[id]) "}"
            print "\\begin{tabular}{" spec "}"; print "\\toprule"
            for (r = 0; r <= nr[id]; r++) {
                line = r ? tex(cell[id, r, 1]) : head(cell[id, r, 1])
                for (j = 2; j <= c; j++) line = line " & " (r ? tex(cell[id, r, j]) : head(cell[id, r, j]))
                print line " \\\\"
                if (r == 0) print "\\midrule"
            }
            print "\\bottomrule"; print "\\end{tabular}"
            if (nn[id]) { print "\\par\\smallskip\\footnotesize"
                          for (k = 1; k <= nn[id]; k++) print tex(notes[id, k]) (k < nn[id] ? "\\\\" : "") }
            print "\\end{table}"
        }
    }
}' "$@"
