#!/bin/bash
# Traces kept as archives (replay/ingest/archive.c): a capture's CTF as
# one tar.xz / tar.zst / tar.gz, or a folder holding ctf.tar.*, ingests
# and hashes exactly as the directory it came from, and replays the same;
# an archive that would write outside its directory, holds links or
# devices, or is not an archive at all is refused with one line.
. "$(dirname "$0")/tap.sh"
tap_scratch "${1:-build}"
trace=traces/anon-storm-small/ctf

hash_of() { "$vmr" ingest -q -f json "$1" | sed -n 's/.*"trace_hash": "\([0-9a-f]*\)".*/\1/p'; }
want=$(hash_of "$trace")
mkdir -p "$tmp/s"
tar -C "$trace" -cJf "$tmp/s/ctf.tar.xz" .
tar -C "$trace" -czf "$tmp/t.tar.gz" .
tar -C "$trace" -cf - . | zstd -q -o "$tmp/t.tar.zst"
check "a folder holding ctf.tar.xz hashes as the trace" test "$(hash_of "$tmp/s")" = "$want"
check "a tar.gz file hashes as the trace" test "$(hash_of "$tmp/t.tar.gz")" = "$want"
check "a tar.zst file hashes as the trace" test "$(hash_of "$tmp/t.tar.zst")" = "$want"
"$vmr" run -q -p mglru --memory-limit 16M -f tsv -o "$tmp/a.tsv" "$trace"
"$vmr" run -q -p mglru --memory-limit 16M -f tsv -o "$tmp/b.tsv" "$tmp/s"
check "the archive replays the same" cmp -s <(cut -f2- "$tmp/a.tsv" | tail -1) <(cut -f2- "$tmp/b.tsv" | tail -1)
check "nothing unpacked is left behind" test -z "$(find "$VMREPLAY_CACHE" -name 'unpack.*')"

# Hostile archives.
mkdir -p "$tmp/h/d" && echo x >"$tmp/h/d/metadata"
tar -C "$tmp/h" -cf "$tmp/up.tar" --transform 's,^d,../escape,' d
ln -s /etc/passwd "$tmp/h/d/link"
tar -C "$tmp/h" -cf "$tmp/link.tar" d
echo 'not an archive' >"$tmp/junk.tar.xz"
for a in up.tar link.tar junk.tar.xz; do
    out=$("$vmr" ingest -q "$tmp/$a" 2>&1); rc=$?
    check "$a is refused (exit 1, one line naming it)" test "$rc" = 1 -a "$(printf '%s\n' "$out" | wc -l)" = 1
    check "$a: the message names the archive" grep -q "$a" <<<"$out"
done
check "nothing escaped the unpack directory" test ! -e "$VMREPLAY_CACHE/escape"
