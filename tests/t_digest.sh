#!/bin/bash
# Results are preserved: every bundled trace is ingested and replayed under
# every listed policy, two compositions and lru at two sizes, with fixed
# options, and each output (.vmr, result, reclaim records, tasks,
# timeline) is compared byte for byte, by SHA-256, against
# tests/data/digest.txt.  A change that alters results on purpose
# regenerates the file in the same commit and says why:
#   tests/t_digest.sh BUILD --update
. "$(dirname "$0")/tap.sh"
build=${1:-build}
update=${2:-}
vmr=$PWD/$build/vmreplay
digest=tests/data/digest.txt
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export VMREPLAY_CACHE=$tmp/cache

kernel_policies="$("$vmr" run --list-policies | awk -F'\t' '$1 != "lru" {print $1}')
mglru+sw-no-inversion+sw-imbalance
mglru+swappiness+scan-balance"

# One line per run: NAME<TAB>ARGS (run from the trace's .vmr).
jobs=$tmp/jobs
: >"$jobs"
for d in traces/*/; do
    t=$(basename "$d")
    [ -d "$d/ctf" ] || continue
    "$vmr" ingest -q --no-cache -f json -o "$tmp/$t.vmr" "$d/ctf" >"$tmp/$t.ingest.json" || {
        echo "not ok - ingest $t"; continue; }
    pages=$(sed -n 's/.*"pages": \([0-9]*\).*/\1/p' "$tmp/$t.ingest.json")
    half=$(( pages * 4096 / 2 ))
    node=$(( pages * 4096 * 2 / 5 ))
    printf '%s\t%s\n' "$t.lru-25" "-p lru -n $(( pages / 4 ))" >>"$jobs"
    printf '%s\t%s\n' "$t.lru-50" "-p lru -n $(( pages / 2 ))" >>"$jobs"
    for p in $kernel_policies; do
        printf '%s\t%s\n' "$t.$p.memcg" "-p $p -s 100 --memory-limit $half --seed 3 --swap zram --tasks @tasks --events @events --timeline @timeline" >>"$jobs"
    done
    # Node pressure (no memcg limit): where direct reclaim and the
    # early-exit variants differ; the machine must hold 16 MiB.
    if [ "$node" -ge $((16 << 20)) ]; then
        for p in classic classic+early-exit classic+early-exit-direct mglru mglru+swappiness; do
            printf '%s\t%s\n' "$t.$p.node" "-p $p -s 60 --memory-limit 0 --node-memory $node --seed 5 --swap ssd --events @events" >>"$jobs"
        done
    fi
done

run_job() {  # NAME ARGS...: writes NAME.{result,events,tasks,timeline}
    local name=$1 trace=${1%%.*} out=$tmp/out/$1 a args=()
    shift
    for a in "$@"; do
        case $a in @*) args+=("$out.${a#@}") ;; *) args+=("$a") ;; esac
    done
    "$vmr" run -q -f tsv -o "$out.result" "${args[@]}" "$tmp/$trace.vmr" 2>"$out.err" ||
        echo "failed: $(head -1 "$out.err")" >"$out.result"
}
export -f run_job
export vmr tmp
mkdir -p "$tmp/out"
# shellcheck disable=SC2016
awk -F'\t' '{print $1 "\t" $2}' "$jobs" |
    xargs -P "$(nproc)" -d '\n' -n 1 bash -c 'IFS=$'"'\t'"' read -r n a <<<"$1"; run_job "$n" $a' _

# The digest: the trace hash-independent .vmr bytes and every output.
(
    cd "$tmp"
    for f in *.vmr; do sha256sum "$f"; done
    cd out
    for f in $(ls | grep -v '\.err$' | LC_ALL=C sort); do
        # The result rows name the .vmr's temporary path: strip it.
        sed "s#$tmp/##g" "$f" | sha256sum | sed "s#-#$f#"
    done
) >"$tmp/digest"

if [ "$update" = --update ]; then
    if grep -l '^failed:' "$tmp"/out/*.result; then echo "runs failed" >&2; exit 1; fi
    cp "$tmp/digest" "$digest"
    echo "# wrote $digest ($(wc -l <"$digest") outputs)"
    exit 0
fi
check "the digest file exists" test -s "$digest"
failed=$(grep -l '^failed:' "$tmp"/out/*.result 2>/dev/null | head -3)
check "every run succeeded${failed:+ (not: $failed)}" test -z "$failed"
check "every run and ingest produced its outputs" \
    test "$(wc -l <"$tmp/digest")" = "$(wc -l <"$digest")"
bad=$(diff <(LC_ALL=C sort "$digest") <(LC_ALL=C sort "$tmp/digest") | grep '^>' | awk '{print $3}' | head -20)
check "every output is byte-identical to tests/data/digest.txt" test -z "$bad"
[ -z "$bad" ] || echo "# differs: $bad" | tr '\n' ' '
echo
