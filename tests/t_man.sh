#!/bin/bash
# The man pages (doc/man/*.scd, built by make into BUILD/man): every
# subcommand has one; every option that `vmreplay SUBCMD --help` lists is
# an entry of its page (with its short form beside it), and every option
# the help mentions anywhere is in the page; every environment variable
# the sources read is in vmreplay(1); man -l renders each page without a
# warning, and its NAME line parses for whatis.
. "$(dirname "$0")/tap.sh"
build=${1:-build}
vmr=$build/vmreplay
man=$build/man
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if ! command -v man >/dev/null 2>&1; then
    skip "man pages" "man-db not installed (make deps)"
    exit 0
fi
# One paragraph per line (no filling at 80 columns), no hyphenation, no
# justification, no bold/underline: what a grep can match.
render() { MANWIDTH=1000 man --nh --nj -l "$1" 2>/dev/null | col -bx; }

# $1 page, $2 help text file, $3 name for messages
check_options() {
    local page=$1 help=$2 name=$3 text=$tmp/text missing="" line short long o
    render "$page" >"$text"
    # Entries of the help's option list: "  -p, --policy NAME" or "      --seed N".
    while IFS= read -r line; do
        short=$(sed -nE 's/^ +(-[A-Za-z]), --.*/\1/p' <<<"$line")
        long=$(sed -nE 's/^ +(-[A-Za-z], )?(--[a-z][a-z0-9-]*).*/\2/p' <<<"$line")
        if [ -n "$short" ]; then
            grep -qE -- "^ +$short, $long( |,|$)" "$text" || missing="$missing $short,$long"
        else
            grep -qE -- "^ +$long( |,|$)" "$text" || missing="$missing $long"
        fi
    done < <(grep -E '^ +(-[A-Za-z], )?--[a-z]' "$help")
    check "$name: every option of --help is an entry of the page${missing:+ (not:$missing)}" \
        test -z "$missing"
    # Every option the help mentions, in its usage lines and prose too.
    missing=""
    for o in $(grep -oE -- '(^|[][ (`|])--?[A-Za-z][a-z0-9-]*' "$help" | sed -E 's/^[][ (`|]//' | sort -u); do
        grep -qE -- "(^|[^A-Za-z0-9-])$o([^A-Za-z0-9-]|$)" "$text" || missing="$missing $o"
    done
    check "$name: every option the help mentions is in the page${missing:+ (not:$missing)}" \
        test -z "$missing"
}

"$vmr" --help >"$tmp/help" 2>&1
subs=$(sed -nE 's/^  ([a-z]+) .*/\1/p' "$tmp/help")
check "vmreplay --help lists the subcommands" test -n "$subs"
check_options "$man/vmreplay.1" "$tmp/help" "vmreplay(1)"
for s in $subs; do
    page=$man/vmreplay-$s.1
    if [ ! -f "$page" ]; then
        nok "vmreplay-$s(1) exists"
        continue
    fi
    "$vmr" "$s" --help >"$tmp/help" 2>&1
    check_options "$page" "$tmp/help" "vmreplay-$s(1)"
done

# The environment: what the C sources and the installed scripts read or set.
vars=$( (grep -rhoE '(getenv|setenv)\("[A-Z_]+"' replay analysis plots capture lib --include='*.c' |
         sed -E 's/.*"([A-Z_]+)"/\1/'
         grep -rhoE '\$\{?_?(VMREPLAY|LTTNG_UST)_[A-Z_]+' capture --include='*.sh' | sed 's/[${]//g') | sort -u)
render "$man/vmreplay.1" >"$tmp/top"
missing=""
for v in $vars; do
    sed -n '/^ENVIRONMENT/,/^[A-Z]/p' "$tmp/top" | grep -qw -- "$v" || missing="$missing $v"
done
check "vmreplay(1) ENVIRONMENT names every variable the sources and installed scripts read ($(echo $vars | wc -w))${missing:+ (not:$missing)}" \
    test -n "$vars" -a -z "$missing"
missing=""
for v in $vars; do
    sed -n '/^## Environment/,/^## [A-Z]/p' README.md | grep -q -- "\`$v\`" || missing="$missing $v"
done
check "README's Environment names them too${missing:+ (not:$missing)}" test -z "$missing"
check "no document points outside the repository (../shared)" \
    test -z "$(grep -rl '\.\./shared\|/work/shared' README.md doc capture replay analysis plots traces debian --include='*.md' --include='*.scd' 2>/dev/null)"

# Rendering: no groff or man warning at the usual width, a whatis line.
for page in "$man"/*.[15]; do
    name=$(basename "$page")
    MANWIDTH=80 man --warnings -l "$page" >"$tmp/out" 2>"$tmp/err"
    check "$name: man -l renders it without warnings" \
        bash -c "test -s '$tmp/out' -a ! -s '$tmp/err'" || sed 's/^/# /' "$tmp/err"
    if command -v lexgrog >/dev/null 2>&1; then
        check "$name: its NAME line parses (lexgrog)" \
            bash -c "lexgrog '$page' | grep -q '\"${name%.*} - '"
    fi
done
check "the section 5 pages exist (sweep file, .vmr)" test -f "$man/vmreplay-sweep.5" -a -f "$man/vmreplay-vmr.5"
