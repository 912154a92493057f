#!/bin/bash
# The tracefs bridge's kernel events as a kernel-domain CTF trace at the
# kernel's own time (capture/kernel_ctf.c), made by `vmreplay capture
# --convert` from bundled real captures laid out as a capture's folder:
#  - DIR/kernel appears beside the rewritten DIR/ust, nothing else is left;
#  - every bridged event is in DIR/kernel, at its kts, on its CPU's stream,
#    with its task and fields; none is left in the UST trace, whose other
#    events are unchanged;
#  - `babeltrace2 DIR` prints kernel and UST events interleaved in
#    timestamp order;
#  - the layout is lttng-modules' (tests/data/external/bug446190, a real
#    lttng-modules trace): env domain, tracer_name and the same env keys,
#    cpu_id in the packet context, one stream file per CPU, and the UST
#    trace's clock (name, UUID, frequency, offset);
#  - ingest reads the new layout into the same .vmr as the old one (every
#    section byte for byte; only the trace's hash differs), and replays of
#    both give byte-identical results;
#  - a session without bridged events or converted already is left as it
#    is; a truncated metadata file, a damaged index that makes
#    libbabeltrace2 abort, or no UST trace: one line, exit 1, nothing
#    changed; a conversion killed half-way is undone by the next.
. "$(dirname "$0")/tap.sh"
tap_scratch "${1:-build}"

same_replay() {  # PREFIX: the replays of PREFIX.old and PREFIX.new agree
    local x
    for x in ev tasks tl; do cmp -s "$1.old.$x" "$1.new.$x" || return 1; done
    # the result names its input (path and hash): the other columns
    test "$(wc -l <"$1.old.tsv")" -eq 2 && cmp -s <(cut -f3- "$1.old.tsv") <(cut -f3- "$1.new.tsv")
}

for t in reader-sw100 compile-sw100; do
    [ -d "traces/$t/ctf" ] || { skip "$t" "no traces/$t in this checkout"; continue; }
    s=$tmp/$t
    mkdir -p "$s/ust/uid/0"
    cp -r "traces/$t/ctf" "$s/ust/uid/0/64-bit"
    "$vmr" capture --convert "$s" 2>"$tmp/$t.err"; rc=$?
    check "$t: --convert exits 0" test $rc -eq 0
    check "$t: it says how many events it moved" grep -q "kernel: [0-9]* kernel events on [0-9]* CPUs\? at" "$tmp/$t.err"
    check "$t: the session holds kernel/ and ust/ and nothing else" \
        test "$(cd "$s" && ls -A | tr '\n' ' ')" = "kernel ust "

    # the bridged events, as (time, CPU, tid, pid, name, fields), before and after
    babeltrace2 --clock-cycles "traces/$t/ctf" | grep ' vmreplay_kernel:' |
        sed -E 's/^[^ ]* [^ ]* [^ ]* vmreplay_kernel:([a-z0-9_]*): \{ cpu_id = [0-9]* \}, \{ kts = ([0-9]*), kcpu = ([0-9]*), ktid = (-?[0-9]*), kpid = (-?[0-9]*), (.*) \}$/\2 \3 \4 \5 \1 \6/' |
        sort >"$tmp/$t.before"
    babeltrace2 --clock-cycles "$s/kernel" |
        sed -E 's/^\[0*([0-9]+)\] [^ ]* [^ ]* ([a-z0-9_]*): \{ cpu_id = ([0-9]*) \}, \{ pid = (-?[0-9]*), tid = (-?[0-9]*) \}, \{ (.*) \}$/\1 \3 \5 \4 \2 \6/' |
        sort >"$tmp/$t.after"
    n=$(wc -l <"$tmp/$t.before")
    check "$t: all $n bridged events are in kernel/ at their kts, CPU, task and fields" \
        sh -c "test $n -gt 0 && cmp -s '$tmp/$t.before' '$tmp/$t.after'"
    babeltrace2 "$s/ust/uid/0/64-bit" >"$tmp/$t.ust"
    check "$t: none is left in the UST trace" test "$(grep -c 'vmreplay_kernel:' "$tmp/$t.ust")" -eq 0
    check "$t: the UST trace's other events are unchanged" \
        cmp -s <(babeltrace2 --no-delta "traces/$t/ctf" | grep -v ' vmreplay_kernel:') \
               <(babeltrace2 --no-delta "$s/ust/uid/0/64-bit")

    # interleaved in time order
    babeltrace2 --clock-cycles "$s" >"$tmp/$t.all"
    check "$t: babeltrace2 DIR prints every event of both traces" \
        test "$(wc -l <"$tmp/$t.all")" -eq "$(babeltrace2 "traces/$t/ctf" | wc -l)"
    check "$t: in timestamp order" \
        awk '{ t = substr($1, 2, length($1) - 2) + 0; if (t < p) exit 1; p = t }' "$tmp/$t.all"
    # a kernel event's name has no provider: "name:", a UST one "provider:name:"
    runs=$(awk '{ k = substr($4, 1, length($4) - 1) !~ /:/; if (NR > 1 && k != pk) r++; pk = k }
                END { print r + 0 }' "$tmp/$t.all")
    check "$t: kernel and UST events interleave ($runs changes between them)" test "$runs" -ge 4

    # lttng-modules' layout
    babeltrace2 -o ctf-metadata "$s/kernel" >"$tmp/$t.meta"
    babeltrace2 -o ctf-metadata "$s/ust/uid/0/64-bit" >"$tmp/$t.umeta"
    check "$t: metadata: domain kernel, tracer_name lttng-modules" \
        sh -c "grep -q '^	domain = \"kernel\";' '$tmp/$t.meta' && grep -q '^	tracer_name = \"lttng-modules\";' '$tmp/$t.meta'"
    envkeys() { sed -n '/^env {/,/^}/s/^[[:space:]]*\([a-z_]*\) = .*/\1/p' "$1" | sort; }
    babeltrace2 -o ctf-metadata tests/data/external/bug446190 >"$tmp/ext.meta"
    # kernel_version is /proc/version, which these captures did not record
    missing=$(comm -23 <(envkeys "$tmp/ext.meta") <(envkeys "$tmp/$t.meta") | grep -vx kernel_version | tr '\n' ' ')
    check "$t: metadata: every env key of a real lttng-modules trace (missing: ${missing:-none})" test -z "$missing"
    check "$t: metadata: cpu_id in the packet context, as lttng-modules has it" \
        sh -c "sed -n '/packet.context/,/^	}/p' '$tmp/$t.meta' | grep -q ' _cpu_id;' &&
               sed -n '/^struct packet_context/,/^}/p' '$tmp/ext.meta' | grep -q ' cpu_id;'"
    check "$t: metadata: pid and tid contexts" \
        sh -c "sed -n '/event.context/,/^	}/p' '$tmp/$t.meta' | grep -q ' _pid;' &&
               sed -n '/event.context/,/^	}/p' '$tmp/$t.meta' | grep -q ' _tid;'"
    ncpu=$(awk '{print $2}' "$tmp/$t.before" | sort -u | wc -l)
    check "$t: one stream file per CPU ($ncpu)" \
        test "$(find "$s/kernel" -maxdepth 1 -name 'kvmr_*' | wc -l)" -eq "$ncpu"
    clock() {  # name uuid freq offset-in-cycles of the clock block of $1
        local n u f s o
        read -r n u f s o < <(awk '/^clock \{/ { c = 1; s = 0 } c && /name =/ { gsub(/[";]/, "", $3); n = $3 }
             c && /uuid =/ { gsub(/[";]/, "", $3); u = $3 } c && /freq =/ { gsub(/;/, "", $3); f = $3 }
             c && /offset_s =/ { gsub(/;/, "", $3); s = $3 } c && /^[[:space:]]offset =/ { gsub(/;/, "", $3); o = $3 }
             c && /^}/ { c = 0 } END { print n, u, f, s, o }' "$1")
        echo "$n $u $f $(( s * f + o ))"
    }
    check "$t: the UST trace's clock (name, UUID, frequency, offset: $(clock "$tmp/$t.umeta"))" \
        test "$(clock "$tmp/$t.meta")" = "$(clock "$tmp/$t.umeta")"

    # ingest: the same .vmr from both layouts
    "$vmr" ingest -q --no-cache -f json -o "$tmp/$t.old.vmr" "traces/$t/ctf" >"$tmp/$t.old.json"
    "$vmr" ingest -q --no-cache -f json -o "$tmp/$t.new.vmr" "$s" >"$tmp/$t.new.json"; rc=$?
    check "$t: ingest of the new layout exits 0" test $rc -eq 0
    strip() { sed -E 's/"(trace|trace_hash|vmr)": "[^"]*", //g' "$1"; }
    check "$t: ingest reports the same counts" cmp -s <(strip "$tmp/$t.old.json") <(strip "$tmp/$t.new.json")
    # Bytes allowed to differ: the header's trace_hash (24-39) and sum
    # (80-87), the trace_hash value in META and the block sums (SUMS).
    o=$(( $(grep -abo "trace_hash	" "$tmp/$t.old.vmr" | head -1 | cut -d: -f1) + 11 ))
    read -r so sz < <(od -An -tu8 -j264 -N16 "$tmp/$t.old.vmr")
    bad=$(cmp -l "$tmp/$t.old.vmr" "$tmp/$t.new.vmr" |
        awk -v o="$o" -v so="$so" -v sz="$sz" '{ b = $1 - 1 }
            !((b >= 24 && b < 40) || (b >= 80 && b < 88) || (b >= o && b < o + 32) || (b >= so && b < so + sz)) { n++ }
            END { print n + 0 }')
    check "$t: the .vmr is byte-identical but for the trace's hash ($bad other bytes differ)" \
        sh -c "test $bad -eq 0 && test \$(stat -c %s '$tmp/$t.old.vmr') -eq \$(stat -c %s '$tmp/$t.new.vmr')"
    for p in classic mglru; do
        for v in old new; do
            "$vmr" run -q -f tsv -p "$p" -s 100 --seed 3 --swap zram --events "$tmp/$t.$p.$v.ev" \
                --tasks "$tmp/$t.$p.$v.tasks" --timeline "$tmp/$t.$p.$v.tl" "$tmp/$t.$v.vmr" >"$tmp/$t.$p.$v.tsv"
        done
        check "$t: replay under $p: result, events, tasks and timeline byte-identical" same_replay "$tmp/$t.$p"
    done

    # converted already: left as it is
    before=$(find "$s" -type f -exec md5sum {} + | sort)
    "$vmr" capture --convert "$s" 2>"$tmp/again.err"; rc=$?
    check "$t: a converted session is left as it is (exit 0)" \
        sh -c "test $rc -eq 0 && test \"\$(find '$s' -type f -exec md5sum {} + | sort)\" = '$before'"
done

# No bridged event (an instrumented workload's UST-only trace).
if [ -d traces/build-like-small/ctf ]; then
    s=$tmp/ust-only
    mkdir -p "$s/ust/uid/0"
    cp -r traces/build-like-small/ctf "$s/ust/uid/0/64-bit"
    "$vmr" capture --convert "$s" 2>"$tmp/u.err"; rc=$?
    check "no bridged event: exit 0, said, nothing written" \
        sh -c "test $rc -eq 0 && grep -q 'no bridged kernel event' '$tmp/u.err' && test \"\$(ls -A '$s')\" = ust &&
               diff -r traces/build-like-small/ctf '$s/ust/uid/0/64-bit' >/dev/null"
fi

# A conversion killed after it moved the old UST trace aside, before the
# kernel trace was in place: the next one puts the old trace back first.
if [ -d traces/build-like-small/ctf ]; then
    s=$tmp/killed
    mkdir -p "$s/ust/uid/0" "$s/.kernel-ctf.AbCdEf"
    cp -r traces/reader-sw100/ctf "$s/.kernel-ctf.AbCdEf/ust-old"
    cp -r traces/build-like-small/ctf "$s/ust/uid/0/64-bit"      # stands for the new one
    "$vmr" capture --convert "$s" 2>"$tmp/k.err"; rc=$?
    check "a killed conversion: the next one restores the old UST trace and converts it" \
        sh -c "test $rc -eq 0 && grep -q 'kernel: 4084 kernel events' '$tmp/k.err' && test \"\$(ls -A '$s')\" = 'kernel
ust'"
fi

# Bad input: one line, exit 1, the session untouched.
s=$tmp/trunc
mkdir -p "$s/ust/uid/0"
cp -r traces/reader-sw100/ctf "$s/ust/uid/0/64-bit"
truncate -s 1000 "$s/ust/uid/0/64-bit/metadata"
timeout 60 "$vmr" capture --convert "$s" 2>"$tmp/t.err"; rc=$?
check "truncated metadata: exit 1 with one line naming the file" \
    sh -c "test $rc -eq 1 && test \$(wc -l <'$tmp/t.err') -eq 1 && grep -q '64-bit/metadata: metadata truncated' '$tmp/t.err'"
check "truncated metadata: the session is untouched" test "$(ls -A "$s")" = ust
# libbabeltrace2 2.0.4 aborts on an index entry with a negative offset
# (its first byte flipped to 0xff): the conversion's child dies, the
# capture does not, and the session is as it was.
s=$tmp/abort
mkdir -p "$s/ust/uid/0"
cp -r traces/reader-sw100/ctf "$s/ust/uid/0/64-bit"
printf '\xff' | dd of="$s/ust/uid/0/64-bit/index/vmr_0.idx" bs=1 seek=16 conv=notrunc status=none
"$vmr" capture --convert "$s" 2>"$tmp/a.err"; rc=$?
check "the decoder aborts: exit 1, one line with the library's reason" \
    sh -c "test $rc -eq 1 && test \$(wc -l <'$tmp/a.err') -eq 1 &&
           grep -q 'died of SIGABRT: data-stream-file.c:[0-9]*: ds_file_mmap(): Assertion' '$tmp/a.err'"
check "the decoder aborts: the session is as it was (no temporary folder)" \
    sh -c "test \"\$(ls -A '$s')\" = ust && diff -r --exclude=index traces/reader-sw100/ctf '$s/ust/uid/0/64-bit' >/dev/null"
"$vmr" capture --convert "$tmp/nothing" 2>"$tmp/n.err"; rc=$?
check "no UST trace: exit 1 with one line" sh -c "test $rc -eq 1 && test \$(wc -l <'$tmp/n.err') -eq 1"
"$vmr" capture --convert "$tmp/nothing" extra 2>/dev/null; rc=$?
check "--convert with a command: usage error (2)" test $rc -eq 2
