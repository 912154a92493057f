#!/bin/bash
# traces/kbuild-long.sh's limit rule (--print-limit, no root, no build):
# the larger of a third of peak_bytes (rounded down to a MiB) and the
# largest job's anonymous peak job_anon_peak_bytes (rounded up to a MiB);
# a peak file without a field, or with one that is not a number of
# bytes, is one line naming the file and the field, status 1.
# Usage: tests/t_kbuild_long.sh BUILD   (from the repository root)
set -u
. tests/tap.sh
tmp=$(mktemp -d /tmp/t_kbuild_long.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
s=traces/kbuild-long.sh

# peak FILE PEAK JOB: a peak file as --peak writes it
peak() {
    mkdir -p "$(dirname "$1")"
    printf 'peak_bytes\t%s\njob_anon_peak_bytes\t%s\njob_anon_peak\tcc1 fs/ext4/super.c\nwall_s\t87.3\ntargets\tmm/ fs/ext4/\n' \
        "$2" "$3" >"$1"
}
limit_is() {
    local name=$1 want=$2 got
    got=$(bash "$s" --out "$tmp/$name" --print-limit 2>"$tmp/err")
    if [ "$got" = "$want" ] && [ ! -s "$tmp/err" ]; then ok "$name: $want"
    else nok "$name: got '$got', want $want ($(head -c 200 "$tmp/err"))"; fi
}

# 326 MiB peak (341835776 B): a third is 108.67 -> 108 MiB; the job,
# 215572480 B = 205.58 MiB -> 206 MiB, is larger: 206M.
peak "$tmp/small/peak" 341835776 215572480
limit_is small 206M
# 592 MiB (620756992 B): a third is 197.33 -> 197 MiB; a 100 MiB job
# (104857600 B, exactly 100 MiB, not rounded up) is smaller: 197M.
peak "$tmp/large/peak" 620756992 104857600
limit_is large 197M
# one byte over 197 MiB (206569473 B) rounds up to 198 MiB: 198M.
peak "$tmp/edge/peak" 620756992 206569473
limit_is edge 198M

# a peak file of before the job was measured: no job_anon_peak_bytes
mkdir -p "$tmp/old"
printf 'peak_bytes\t341835776\nwall_s\t87.3\ntargets\tmm/ fs/ext4/\n' >"$tmp/old/peak"
run_err "old peak file: names the file and job_anon_peak_bytes" 1 "$tmp/old/peak: job_anon_peak_bytes" \
    bash "$s" --out "$tmp/old" --print-limit
peak "$tmp/bad/peak" 326M 215572480
run_err "peak_bytes not in bytes: names the file and the field" 1 "$tmp/bad/peak: peak_bytes" \
    bash "$s" --out "$tmp/bad" --print-limit
run_err "no peak file: says --peak or --limit" 1 "no $tmp/none/peak: --peak or --limit" \
    bash "$s" --out "$tmp/none" --print-limit
# --help prints the header with the rule
check "--help states the rule" bash -c "bash $s --help | grep -q 'The limit rule: the larger of a third of peak_bytes'"
echo "1..$tap_n"
