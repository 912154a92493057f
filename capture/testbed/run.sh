#!/bin/bash
# capture/testbed/run.sh - boots the test bed's User-Mode Linux kernel,
# runs one command inside as root, and exits with its status.
#
#   capture/testbed/run.sh [options] [--] COMMAND [ARGS...]
#
#   -k, --kernel K     6.12 (default) or 6.1 (Debian's linux-source, built
#                      and cached by build.sh when needed), a kernel tree
#                      (built the same way), a build directory of the
#                      cache, or a UML binary
#   -m, --mem SIZE     the guest's RAM, e.g. 1G (default 1G)
#       --lru-gen V    written to /sys/kernel/mm/lru_gen/enabled before the
#                      command: y (MGLRU on), n (off: the classic LRU), or
#                      the capability bits (0x0001...); default: as built
#       --swap SPEC    swap enabled before the command: none (default),
#                      ubd[:SIZE] (a UBD swap file, default 1G), or
#                      delay[:SIZE[:MS]] (device-mapper's delay target over
#                      such a file, default 5 ms per read and write)
#   -j, --job DIR      the job folder: the host directory the guest sees
#                      read-write at /run/vmreplay-job (default: a fresh
#                      temporary one, removed after)
#   -t, --timeout S    stop the guest after S seconds (exit 124)
#   -q, --quiet        no boot messages
#   -h, --help         this help
#
# The guest's root is the host's / through hostfs, read-only, so it runs
# the host's own programs (build/vmreplay, lttng, gcc...) at the same
# paths; /tmp, /var/tmp, /run and /dev/shm are the guest's own tmpfs (so
# the host's files there are not seen, except the tree of the current
# directory and of absolute paths among the arguments below /tmp or
# /var/tmp, mounted again read-only), HOME is /run/home.
# COMMAND runs in the host's current directory (read-only there too), with
# the host's stdout and stderr, stdin /dev/null, VMREPLAY_TESTBED_BUILD
# naming the build-info of the kernel (how it was built: build.sh) and
# VMREPLAY_TESTBED_JOB=/run/vmreplay-job.
# The guest kernel's log goes to JOB/console.log.
#
# Ctrl-C (or SIGTERM) asks the guest to stop: COMMAND gets SIGTERM, the
# guest powers off when it has ended (a second Ctrl-C kills the guest).
#
# Exit status: COMMAND's (128+N if signal N ended it); 124 on --timeout;
# 1 if the guest could not run it (the end of its console log on stderr);
# 2 usage.
set -u -o pipefail
# The whole script is one block, read before it runs: an edit of this file
# (a git pull) during a long build or capture cannot derail it.
{
PROG="capture/testbed/run.sh"
here=$(cd "$(dirname "$0")" && pwd)

usage() {
    echo "usage: $PROG [-k KERNEL] [-m SIZE] [--lru-gen y|n|BITS] [--swap SPEC] [-j DIR] [-t S] [-q] [--] COMMAND [ARGS...]" >&2
    echo "       $PROG --help" >&2
    exit 2
}
die() { echo "$PROG: $*" >&2; exit 1; }

kernel=6.12 mem=1G lru_gen="" swap=none job="" timeout=0 quiet=0
while [ $# -gt 0 ]; do
    case $1 in
    -k|--kernel) [ $# -ge 2 ] || usage; kernel=$2; shift 2 ;;
    -m|--mem) [ $# -ge 2 ] || usage; mem=$2; shift 2 ;;
    --lru-gen) [ $# -ge 2 ] || usage; lru_gen=$2; shift 2 ;;
    --swap) [ $# -ge 2 ] || usage; swap=$2; shift 2 ;;
    -j|--job) [ $# -ge 2 ] || usage; job=$2; shift 2 ;;
    -t|--timeout) [ $# -ge 2 ] || usage; timeout=$2; shift 2 ;;
    -q|--quiet) quiet=1; shift ;;
    -h|--help) sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    --) shift; break ;;
    -*) echo "$PROG: unknown option '$1'" >&2; usage ;;
    *) break ;;
    esac
done
[ $# -ge 1 ] || usage

# SIZE with K, M or G -> MiB
mib() {
    case $1 in
    *[0-9][Kk]) echo $(( ${1%?} / 1024 )) ;;
    *[0-9][Mm]) echo "${1%?}" ;;
    *[0-9][Gg]) echo $(( ${1%?} * 1024 )) ;;
    *) return 1 ;;
    esac
}
case $mem in *[!0-9KkMmGg]*|'') echo "$PROG: --mem: '$mem' is not a size like 1G" >&2; usage ;; esac
mem_mib=$(mib "$mem" 2>/dev/null) || { echo "$PROG: --mem: '$mem' is not a size like 512M or 1G" >&2; usage; }
[ "$mem_mib" -ge 128 ] && [ "$mem_mib" -le 16384 ] ||
    { echo "$PROG: --mem: $mem is not from 128M to 16G" >&2; usage; }
case $lru_gen in ''|y|n|0x[0-9a-fA-F]*|[0-9]*) ;; *) echo "$PROG: --lru-gen: '$lru_gen' is not y, n or a number" >&2; usage ;; esac
case $timeout in *[!0-9]*|'') echo "$PROG: --timeout: '$timeout' is not a number of seconds" >&2; usage ;; esac
swap_kind=none swap_mib=0 swap_ms=0
IFS=: read -r sk s1 s2 <<<"$swap"
case $sk in
none) [ -z "$s1" ] || usage ;;
ubd|delay)
    swap_kind=$sk
    swap_mib=$(mib "${s1:-1G}" 2>/dev/null) && [ "$swap_mib" -ge 16 ] ||
        { echo "$PROG: --swap $swap: '${s1}' is not a size of 16M or more" >&2; usage; }
    if [ $sk = delay ]; then
        swap_ms=${s2:-5}
        case $swap_ms in *[!0-9]*|'') echo "$PROG: --swap $swap: '$swap_ms' is not a number of ms" >&2; usage ;; esac
    elif [ -n "$s2" ]; then usage; fi ;;
*) echo "$PROG: --swap: '$swap' is not none, ubd[:SIZE] or delay[:SIZE[:MS]]" >&2; usage ;;
esac

# --- the kernel -------------------------------------------------------------
if [ -f "$kernel" ] && [ -x "$kernel" ]; then
    linux=$(cd "$(dirname "$kernel")" && pwd)/$(basename "$kernel")
    info=$(dirname "$linux")/build-info
elif [ -d "$kernel" ] && [ -x "$kernel/linux" ] && [ -f "$kernel/build-info" ]; then
    linux=$(cd "$kernel" && pwd)/linux
    info=$(dirname "$linux")/build-info
else
    bq=()
    [ $quiet = 1 ] && bq=(-q)
    dir=$("$here/build.sh" -k "$kernel" "${bq[@]}") || exit 1
    linux=$dir/linux
    info=$dir/build-info
fi
[ -f "$info" ] || info=""
for t in uml_mconsole; do
    command -v $t >/dev/null 2>&1 || die "$t is missing (make testbed-deps installs it: uml-utilities)"
done

# --- the job folder ---------------------------------------------------------
own_job=0
if [ -z "$job" ]; then
    job=$(mktemp -d "${TMPDIR:-/tmp}/vmreplay-testbed.XXXXXX") || die "cannot create a job folder"
    own_job=1
else
    mkdir -p "$job" || die "cannot create the job folder $job"
fi
job=$(cd "$job" && pwd)
case $job in *[[:space:],]*) die "the job folder's path must have no blanks or commas: $job" ;; esac
umid=vmreplay-$$
umldir=/tmp/vmreplay-uml
mkdir -p "$umldir" || die "cannot create $umldir"
rm -f "$job/status" "$job/console.log"
printf '%s\0' "$@" >"$job/argv"
# The guest's own tmpfs hides the host's /tmp and /var/tmp: a tree there
# (a clone in /tmp, the command's program) is mounted again in the guest,
# read-only, at the same path: the top folder below /tmp or /var/tmp of
# the current directory and of every absolute path among the arguments.
reveal=$(for p in "$PWD" "$@"; do
             case $p in /tmp/?*|/var/tmp/?*) ;; *) continue ;; esac
             top=${p#/tmp/}; base=/tmp
             case $p in /var/tmp/*) top=${p#/var/tmp/}; base=/var/tmp ;; esac
             top=$base/${top%%/*}
             case $top in *[[:space:],]*) continue ;; esac
             [ -d "$top" ] && echo "$top"
         done | sort -u | tr '\n' ' ')
{
    echo "cwd=$PWD"
    echo "reveal=$reveal"
    echo "lru_gen=$lru_gen"
    echo "swap=$swap_kind"
    echo "swap_ms=$swap_ms"
    echo "build_info=$info"
    echo "out_tty=$([ -t 1 ] && echo 1 || echo 0)"
    echo "err_tty=$([ -t 2 ] && echo 1 || echo 0)"
} >"$job/setup"
ubd=()
if [ $swap_kind != none ]; then
    rm -f "$job/swap.img"
    truncate -s "${swap_mib}M" "$job/swap.img" || die "cannot create $job/swap.img"
    ubd=("ubd0=$job/swap.img")
fi
cleanup() {
    rm -rf "$umldir/$umid"
    rm -f "$job/swap.img" "$job/argv" "$job/setup"
    [ $own_job = 1 ] && rm -rf "$job"
    return 0
}
trap cleanup EXIT

# UML's RAM is a file of the host: on /dev/shm when it has room.
tmpdir=${TMPDIR:-/tmp}
shm_free=$(df -Pm /dev/shm 2>/dev/null | awk 'NR == 2 { print $4 }')
[ -n "$shm_free" ] && [ "$shm_free" -gt $((mem_mib + 256)) ] && tmpdir=/dev/shm

# The console (con0: the kernel's log) goes to a file; the command's
# stdout and stderr are the guest's serial lines 0 and 1, the host's fds
# 3 and 4.
args=(mem="${mem_mib}M" umid="$umid" uml_dir="$umldir" root=/dev/root rootfstype=hostfs
      rootflags=/ ro init="$here/guest-init.sh" "${ubd[@]}"
      con=null con0=null,fd:1 ssl=null ssl0=null,fd:3 ssl1=null,fd:4 console=tty0
      vmreplay_job="$job")
[ $quiet = 0 ] && [ -t 2 ] && echo "$PROG: booting $linux (${mem_mib} MiB)" >&2
# Its own process group: UML signals its whole group when it aborts.
set -m
# In the job folder: UML takes a file "root_fs" of its directory as ubd0
# when none is given.
(cd "$job" && TMPDIR=$tmpdir exec "$linux" "${args[@]}") </dev/null 3>&1 4>&2 >"$job/console.log" 2>&1 &
uml=$!
set +m
stops=0
stop_guest() {
    stops=$((stops + 1))
    if [ $stops = 1 ]; then
        if [ -e "$job/.timeout" ]; then
            echo "$PROG: --timeout $timeout: stopping the guest's command" >&2
        else
            echo "$PROG: stopping the guest's command (again to kill the guest)" >&2
        fi
        uml_mconsole "$umldir/$umid/mconsole" cad >/dev/null 2>&1 || kill -TERM $uml 2>/dev/null
    else
        kill -KILL -$uml 2>/dev/null
    fi
}
trap stop_guest INT TERM HUP
timed_out=0
if [ "$timeout" -gt 0 ]; then
    # First the graceful stop; a guest that does not end in 30 s is killed.
    ( sleep "$timeout" && touch "$job/.timeout" && kill -TERM $$ && sleep 30 &&
      kill -TERM $$ ) >/dev/null 2>&1 &
    timer=$!
fi
while :; do
    wait $uml
    uml_rc=$?
    kill -0 $uml 2>/dev/null || break
done
[ "$timeout" -gt 0 ] && { kill $timer 2>/dev/null; wait $timer 2>/dev/null; }
[ -e "$job/.timeout" ] && { timed_out=1; rm -f "$job/.timeout"; }
# Leftover host processes of the guest (its address spaces) are its group.
kill -KILL -$uml 2>/dev/null

if [ -f "$job/status" ]; then
    read -r st rest <"$job/status"
    case $st in
    exit) rc=${rest%% *} ;;
    fatal) echo "$PROG: the guest could not run the command: $rest" >&2; rc=1 ;;
    *) echo "$PROG: $job/status: '$st $rest' is not a status" >&2; rc=1 ;;
    esac
    rm -f "$job/status"
    [ $timed_out = 1 ] && rc=124
    exit "$rc"
fi
[ $timed_out = 1 ] && { echo "$PROG: --timeout $timeout: the guest was stopped" >&2; exit 124; }
echo "$PROG: the guest ended (status $uml_rc) without the command's status; the end of its console:" >&2
tail -n 20 "$job/console.log" | sed 's/^/  /' >&2
exit 1
}
