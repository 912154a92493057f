#!/bin/bash
# The scoreboard of the committed real sessions: every cell that passed
# when traces/FIDELITY.md was made (tests/data/fidelity-pass.tsv) still
# passes, and FIDELITY.md's summary line is what validate says now.
. "$(dirname "$0")/tap.sh"
tap_scratch "${1:-build}"
pass=tests/data/fidelity-pass.tsv

# the sets tests/fidelity.sh scores: each of traces/sessions/
mapfile -t sets < <(find traces/sessions -mindepth 1 -maxdepth 1 -type d | sort)
check "the scoreboard runs on ${sets[*]}" "$vmr" validate -q -f tsv -o "$tmp/board.tsv" "${sets[@]}"
check "the pass list exists" test -s "$pass"
awk -F'\t' 'NR > 1 && $12 == "yes" {print $1 "\t" $2 "\t" $3 "\t" $4}' "$tmp/board.tsv" | sort >"$tmp/now"
lost=$(sort "$pass" | comm -23 - "$tmp/now" | tr '\t' ' ' | paste -sd, -)
check "every cell that passed still passes${lost:+ (now failing: $lost)}" test -z "$lost"
"$vmr" validate -q -f markdown "${sets[@]}" | tail -1 >"$tmp/summary"
check "traces/FIDELITY.md is current (make fidelity)" grep -qxF "$(cat "$tmp/summary")" traces/FIDELITY.md
