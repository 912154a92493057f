#!/bin/bash
# Bash completion (doc/completion/vmreplay.bash): bash-completion's loader
# finds it by the command's name and it loads; it completes subcommands,
# each subcommand's options, policy names and mglru+SWITCH compositions,
# swap presets, formats, sweep files, and run's options after compare's --.
. "$(dirname "$0")/tap.sh"
build=${1:-build}
bc=/usr/share/bash-completion/bash_completion
if [ ! -r "$bc" ]; then
    skip "bash completion" "bash-completion not installed (make deps)"
    exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/user/completions" "$tmp/d/sub"
cp doc/completion/vmreplay.bash "$tmp/user/completions/vmreplay"
touch "$tmp/d/a.sweep" "$tmp/d/b.txt" "$tmp/d/c.dat"
vmr=$PWD/$build/vmreplay

# comp WORD... : the candidates bash offers for the last WORD of
# "vmreplay WORD...", one per line, sorted.  The command is the build's
# binary, as an in-tree user would run it.  Give --opt=value as bash splits
# it, three words: --opt = value.
comp() {
    BASH_COMPLETION_USER_DIR=$tmp/user bash -c '
        . "$1"; shift
        _completion_loader vmreplay >/dev/null 2>&1
        COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
        COMP_LINE="$*"; COMP_LINE=${COMP_LINE// = /=}; COMP_POINT=${#COMP_LINE}
        cd "$TMPD" && _vmreplay "$1" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}" 2>/dev/null
        printf "%s\n" "${COMPREPLY[@]}" | sort' _ "$bc" "$vmr" "$@"
}
export TMPD=$tmp/d

loaded=$(BASH_COMPLETION_USER_DIR=$tmp/user bash -c '. "$1"; _completion_loader vmreplay; complete -p vmreplay' _ "$bc" 2>&1)
check "bash-completion's loader finds and loads it by the command's name" \
    test "$loaded" = "complete -F _vmreplay vmreplay"

check "a subcommand: 'ru' completes to run" test "$(comp ru)" = "run"
check "every subcommand is offered" \
    test "$(comp '' | tr '\n' ' ')" = "analyze capture compare ingest plot run stats sweep validate "
check "top-level options" test "$(comp --v)" = "--version"
check "options of run: --mem completes to --memory and --memory-limit" \
    test "$(comp run --mem | tr '\n' ' ')" = "--memory --memory-limit "
check "options of sweep: --sl completes to --slurm" test "$(comp sweep --sl)" = "--slurm"
check "hidden options are not offered (--repeat)" test -z "$(comp run --rep)"

# Policies, from run --list-policies.
check "a policy name: 'classic+early-exit-d' completes to classic+early-exit-direct" \
    test "$(comp run -p classic+early-exit-d)" = "classic+early-exit-direct"
n=$("$vmr" run --list-policies | wc -l)
check "-p offers every policy of run --list-policies ($n)" test "$(comp run -p '' | wc -l)" -eq "$n"
check "--policy= completes too" test "$(comp run --policy = mglru+sc)" = "mglru+scan-balance"
check "a switch composes: mglru+iso-throttle+sw-b → sw-batched sw-boost sw-boost-gain" \
    test "$(comp run -p mglru+iso-throttle+sw-b | tr '\n' ' ')" = \
         "mglru+iso-throttle+sw-batched mglru+iso-throttle+sw-boost mglru+iso-throttle+sw-boost-gain "
check "a kernel reading composes: mglru+k6.12-l → mglru+k6.12-loop" \
    test "$(comp run -p mglru+k6.12-l)" = "mglru+k6.12-loop"
check "a switch already in the name is not offered again" \
    test -z "$(comp run -p mglru+iso-throttle+iso)"
check "compare -p completes policies" test "$(comp compare -p mglru+swappiness+i)" = "mglru+swappiness+iso-throttle"

# Presets and formats.
check "--swap offers the device presets and none" \
    test "$(comp run --swap '' | tr '\n' ' ')" = "dm-delay-10ms dm-delay-50ms hdd none ssd zram "
check "--file-device offers the presets, not none" test -z "$(comp run --file-device no)"
check "capture --swap offers its kinds" test "$(comp capture --swap au)" = "auto"
check "stats -f offers the table formats" test "$(comp stats -f l)" = "latex"

# Files, and run's options after compare's --.
check "sweep completes .sweep files and directories" \
    test "$(comp sweep '' | tr '\n' ' ')" = "a.sweep sub "
check "ingest completes trace-cmd's .dat files and directories" \
    test "$(comp ingest '' | tr '\n' ' ')" = "c.dat sub "
check "analyze completes .dat files too" test "$(comp analyze '' | tr '\n' ' ')" = "c.dat sub "
check "compare: after --, run's options (--file-d → --file-device)" \
    test "$(comp compare -p classic t -- --file-d)" = "--file-device"
cmds=$(comp capture -o x --limit 32M -- bas | tr '\n' ' ')
check "capture: after --, a command ('bas' offers bash)" bash -c '[[ " $1 " == *" bash "* ]]' _ "$cmds"
