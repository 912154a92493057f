#!/bin/bash
# capture/testbed/build.sh - builds (once) the test bed's User-Mode Linux
# kernel and prints the directory that holds it.
#
#   capture/testbed/build.sh [-k SOURCE] [--patch FILE]... [-q]
#
# SOURCE is a Debian linux-source version (6.12, the default, or 6.1: the
# package linux-source-VERSION, installed here when missing and run as
# root) or a kernel tree (a developer's own patched tree).  The tree is
# copied, never touched: its tracked and untracked files when it is a git
# work tree (what `git ls-files -co --exclude-standard` lists), else every
# file but .git.  The copy gets the project's patches (patches/*.patch,
# then each --patch FILE), `make ARCH=um defconfig` merged with
# testbed.config, and is built with `nice -n 10 make ARCH=um -j2`.
#
# The result is cached in $VMREPLAY_TESTBED_CACHE (default
# /var/cache/vmreplay/testbed), one directory per source, config and
# patches: KEY/linux (the kernel), KEY/config, KEY/build-info (how it was
# built, key=value), KEY/build.log.  A second call with the same inputs
# prints the directory at once.  A directory appears whole or not at all
# (built aside, then renamed); the kernel tree copy is removed after the
# build.  Progress is shown on a terminal only.
#
# Exit status: 0 (the directory printed on stdout), 1 the build failed
# (the last lines of its log on stderr), 2 usage.
set -u -o pipefail
# The whole script is one block, read before it runs: an edit of this file
# (a git pull) during a long build or capture cannot derail it.
{
PROG="capture/testbed/build.sh"
here=$(cd "$(dirname "$0")" && pwd)
# Bump when the way a kernel is built changes, so old cache entries are
# not taken for new ones.
SCHEME=1

usage() {
    sed -n '3,4p' "$0" | sed 's/^# \{0,1\}//' >&2
    echo "(see the comment at the top of $0, and capture/testbed/README.md)" >&2
    exit 2
}
die() { echo "$PROG: $*" >&2; exit 1; }

source_arg=6.12 quiet=0 extra=()
while [ $# -gt 0 ]; do
    case $1 in
    -k|--kernel) [ $# -ge 2 ] || usage; source_arg=$2; shift 2 ;;
    --kernel=*) source_arg=${1#*=}; shift ;;
    --patch) [ $# -ge 2 ] || usage; extra+=("$2"); shift 2 ;;
    --patch=*) extra+=("${1#*=}"); shift ;;
    -q|--quiet) quiet=1; shift ;;
    -h|--help) sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "$PROG: unknown argument '$1'" >&2; usage ;;
    esac
done
tty=0
[ $quiet = 0 ] && [ -t 2 ] && tty=1
say() { [ $tty = 1 ] && printf '%s\n' "$*" >&2; return 0; }

# The outer make's jobserver and flags are not the kernel build's.
unset MAKEFLAGS MFLAGS MAKELEVEL MAKEOVERRIDES GNUMAKEFLAGS
jobs=${VMREPLAY_TESTBED_JOBS:-2}
case $jobs in ''|*[!0-9]*) die "VMREPLAY_TESTBED_JOBS: '$jobs' is not a number" ;; esac
cache=${VMREPLAY_TESTBED_CACHE:-/var/cache/vmreplay/testbed}

for t in make gcc flex bison bc perl patch flock sha256sum tar xz; do
    command -v $t >/dev/null 2>&1 ||
        die "$t is missing (make testbed-deps installs what the build needs)"
done

# --- what is built --------------------------------------------------------
tree="" pkg="" pkgver="" fingerprint=""
case $source_arg in
[0-9]*.[0-9]*)
    pkg=linux-source-$source_arg
    tarball=/usr/src/$pkg.tar.xz
    if [ ! -f "$tarball" ]; then
        [ "$(id -u)" = 0 ] || die "$pkg is not installed; as root run: apt-get install $pkg"
        say "installing $pkg"
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$pkg" \
            >/dev/null 2>&1 || die "apt-get install $pkg failed (is it in the archive? apt-cache policy $pkg)"
        [ -f "$tarball" ] || die "$pkg installed no $tarball"
    fi
    pkgver=$(dpkg-query -W -f='${Version}' "$pkg" 2>/dev/null) || die "dpkg-query $pkg failed"
    [ -n "$pkgver" ] || die "$pkg: no version (dpkg-query)"
    fingerprint="$pkg $pkgver"
    label=$(printf '%s' "$pkgver" | tr -c 'A-Za-z0-9.+-' '_')
    ;;
*)
    [ -d "$source_arg" ] || die "--kernel $source_arg: not 6.12, 6.1 or a kernel tree directory"
    tree=$(cd "$source_arg" && pwd)
    [ -f "$tree/Makefile" ] && [ -d "$tree/arch/um" ] ||
        die "$tree: not a kernel tree (no Makefile or arch/um)"
    if git -C "$tree" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
        # HEAD plus every uncommitted change, tracked or not.
        fingerprint="git $(git -C "$tree" rev-parse HEAD) $( cd "$tree" && { git diff HEAD --binary;
            git ls-files -o --exclude-standard -z | xargs -0r sha256sum --; } | sha256sum)"
    else
        fingerprint="files $(cd "$tree" && find . -name .git -prune -o -type f -printf '%P %s %T@\n' |
            LC_ALL=C sort | sha256sum)"
    fi
    kv=$(make -s -C "$tree" kernelversion 2>/dev/null) || kv=unknown
    label="tree-$(printf '%s' "$(basename "$tree")" | tr -c 'A-Za-z0-9.+-' '_')-$kv"
    ;;
esac

patches=("$here"/patches/*.patch)
[ -f "${patches[0]}" ] || patches=()
for p in "${extra[@]}"; do
    [ -f "$p" ] || die "--patch $p: no such file"
    patches+=("$(cd "$(dirname "$p")" && pwd)/$(basename "$p")")
done
compiler=$(gcc --version | head -1)
hash=$( { echo "scheme $SCHEME"; echo "$fingerprint"; echo "$compiler"; cat "$here/testbed.config";
          for p in "${patches[@]}"; do echo "patch $(basename "$p")"; cat "$p"; done; } |
        sha256sum | cut -c1-12)
key=$label-$hash
out=$cache/$key

if [ -x "$out/linux" ] && [ -f "$out/build-info" ]; then
    echo "$out"
    exit 0
fi

mkdir -p "$cache" 2>/dev/null || die "cannot create the cache $cache (set VMREPLAY_TESTBED_CACHE to a writable directory)"
[ -w "$cache" ] || die "the cache $cache is not writable (set VMREPLAY_TESTBED_CACHE to a writable directory)"
# One build of a key at a time: a second caller waits, then finds it.
exec 9>"$cache/.lock-$key" || die "cannot create $cache/.lock-$key"
if ! flock -n 9; then
    say "another build of $key is running; waiting for it"
    flock 9 || die "cannot lock $cache/.lock-$key"
fi
if [ -x "$out/linux" ] && [ -f "$out/build-info" ]; then
    echo "$out"
    exit 0
fi

work=$cache/.$key.tmp-$$
rm -rf "$work"
mkdir -p "$work/src" "$work/out" || die "cannot create $work"
cleanup() { rm -rf "$work"; }
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM HUP
log=$work/out/build.log
src=$work/src
t0=$(date +%s)

fail_log() {  # MESSAGE: the message and the end of the log
    echo "$PROG: $1 (last lines of the log:)" >&2
    tail -n 25 "$log" | sed 's/^/  /' >&2
    exit 1
}

# --- the source -------------------------------------------------------------
if [ -n "$pkg" ]; then
    say "unpacking $pkg $pkgver"
    tar -C "$src" --strip-components=1 -xJf "$tarball" >>"$log" 2>&1 || fail_log "cannot unpack $tarball"
elif git -C "$tree" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    say "copying the work tree $tree"
    (cd "$tree" && git ls-files -co --exclude-standard -z |
        tar --null -T - -cf - ) | tar -C "$src" -xf - >>"$log" 2>&1 || fail_log "cannot copy $tree"
else
    say "copying the tree $tree"
    (cd "$tree" && tar --exclude=./.git -cf - .) | tar -C "$src" -xf - >>"$log" 2>&1 ||
        fail_log "cannot copy $tree"
fi

# --- patches ----------------------------------------------------------------
# A patch with an "Applies-If: FILE STRING" line is for trees whose FILE
# contains STRING (the code it fixes); it is skipped, and recorded so,
# elsewhere.  Every other patch must apply.
applied=()
for p in "${patches[@]}"; do
    name=$(basename "$p")
    read -r cf cs < <(sed -n 's/^Applies-If: //p' "$p" | head -1)
    if [ -n "${cf:-}" ] && ! grep -qF -- "$cs" "$src/$cf" 2>/dev/null; then
        applied+=("$name(not-needed)")
        continue
    fi
    if patch -d "$src" -p1 -s -f --dry-run <"$p" >>"$log" 2>&1; then
        patch -d "$src" -p1 -s -f --no-backup-if-mismatch <"$p" >>"$log" 2>&1 ||
            fail_log "patch $name failed"
        applied+=("$name")
    elif patch -d "$src" -p1 -s -f -R --dry-run <"$p" >/dev/null 2>&1; then
        applied+=("$name(in-tree)")     # the tree has it already
    else
        fail_log "patch $name does not apply to ${pkg:-$tree}"
    fi
done

# --- config -----------------------------------------------------------------
say "configuring (make ARCH=um defconfig + testbed.config)"
{
    make -C "$src" ARCH=um defconfig &&
    (cd "$src" && scripts/kconfig/merge_config.sh -m .config "$here/testbed.config") &&
    make -C "$src" ARCH=um olddefconfig
} >>"$log" 2>&1 || fail_log "the configuration failed"
# Every =y and "is not set" line of the fragment must have survived.
missing=$(grep -E '^CONFIG_[A-Z0-9_]+=y$|^# CONFIG_[A-Z0-9_]+ is not set$' "$here/testbed.config" |
          while IFS= read -r l; do grep -qxF "$l" "$src/.config" || echo "$l"; done)
if [ -n "$missing" ]; then
    echo "$PROG: ${pkg:-$tree}: options of testbed.config that olddefconfig dropped (a dependency is missing):" >&2
    echo "$missing" | sed 's/^/  /' >&2
    exit 1
fi

# --- build ------------------------------------------------------------------
release=$(make -s -C "$src" ARCH=um kernelrelease 2>>"$log") || fail_log "make kernelrelease failed"
say "building UML $release (nice -n 10 make ARCH=um -j$jobs; about 11-20 minutes on 2 cores)"
nice -n 10 make -C "$src" ARCH=um -j"$jobs" linux >>"$log" 2>&1 &
mk=$!
trap 'kill $mk 2>/dev/null; wait $mk 2>/dev/null; exit 130' INT
trap 'kill $mk 2>/dev/null; wait $mk 2>/dev/null; exit 143' TERM HUP
if [ $tty = 1 ]; then
    while kill -0 $mk 2>/dev/null; do
        n=$(grep -c '^  CC ' "$log")
        s=$(( $(date +%s) - t0 ))
        printf '\r  %d files compiled, %d:%02d elapsed ' "$n" $((s / 60)) $((s % 60)) >&2
        sleep 2
    done
    printf '\n' >&2
fi
wait $mk || fail_log "make ARCH=um linux failed"
[ -x "$src/linux" ] || fail_log "the build made no $src/linux"

# --- into the cache ---------------------------------------------------------
secs=$(( $(date +%s) - t0 ))
cp "$src/linux" "$work/out/linux" && cp "$src/.config" "$work/out/config" ||
    die "cannot copy the kernel into $work/out"
{
    echo "source=${pkg:-tree}"
    echo "version=${pkgver:-$( [ -n "$tree" ] && git -C "$tree" describe --always --dirty 2>/dev/null || echo "$kv")}"
    echo "tree=$tree"
    echo "release=$release"
    echo "key=$key"
    echo "config_sha256=$(sha256sum <"$src/.config" | cut -c1-16)"
    echo "patches=$(IFS=,; echo "${applied[*]}")"
    echo "compiler=$compiler"
    echo "built=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "build_seconds=$secs"
} >"$work/out/build-info"
rm -rf "$out"
mv "$work/out" "$out" || die "cannot move the build to $out"
say "built $out in $((secs / 60)) min $((secs % 60)) s"
echo "$out"
}
