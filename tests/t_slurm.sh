#!/bin/bash
# vmreplay sweep --slurm on a one-node Slurm cluster that this test starts
# on localhost (munged, slurmctld, slurmd with a generated slurm.conf in a
# temporary directory, stopped at the end): the job array produces the
# same results as a local sweep, and a resubmission runs only what is
# missing.  Skipped, saying why, only where Slurm cannot run.
. "$(dirname "$0")/tap.sh"
build=${1:-build}
vmr=$PWD/$build/vmreplay

missing=""
for c in munged slurmctld slurmd sbatch sinfo; do
    command -v "$c" >/dev/null 2>&1 || missing="$missing $c"
done
if [ -n "$missing" ]; then
    skip "sweep --slurm on a local cluster" "not installed:$missing (make deps installs munge slurmctld slurmd slurm-client)"
    exit 0
fi
if [ "$(id -u)" != 0 ]; then
    skip "sweep --slurm on a local cluster" "slurmd must run as root to start jobs; this test runs as $(id -un)"
    exit 0
fi

# munged insists that the directories above its socket are not writable by
# others and can be searched by all.
tmp=$(mktemp -d /tmp/vmreplay-slurm.XXXXXX)
chmod 755 "$tmp"
export VMREPLAY_CACHE=$tmp/cache
stop() {
    local f
    for f in "$tmp/slurmd.pid" "$tmp/slurmctld.pid" "$tmp/munge/munged.pid"; do
        [ -s "$f" ] && kill "$(cat "$f")" 2>/dev/null
    done
    sleep 0.5
    for f in "$tmp/slurmd.pid" "$tmp/slurmctld.pid" "$tmp/munge/munged.pid"; do
        [ -s "$f" ] && kill -9 "$(cat "$f")" 2>/dev/null
    done
    rm -rf "$tmp"
}
trap stop EXIT

# Two free TCP ports on localhost for slurmctld and slurmd: not bound by
# anything (the local-address column of /proc/net/tcp*, in hex).
port_in_use() {
    local hex; hex=$(printf ':%04X ' "$1")
    cat /proc/net/tcp /proc/net/tcp6 2>/dev/null | awk '{ print $2 " " }' | grep -q -- "$hex"
}
free_port() {
    local p
    for p in $(shuf -i 20000-40000 -n 200); do
        port_in_use "$p" && continue
        [ "$p" = "${1:-0}" ] && continue
        echo "$p"; return 0
    done
    return 1
}
ctld_port=$(free_port) && d_port=$(free_port "$ctld_port") || {
    skip "sweep --slurm on a local cluster" "no free TCP port on localhost"; exit 0; }

mkdir -p "$tmp/munge" "$tmp/state" "$tmp/spool" "$tmp/log"
chmod 700 "$tmp/munge"
head -c 1024 /dev/urandom >"$tmp/munge/munge.key"
chmod 400 "$tmp/munge/munge.key"
if ! munged --force --key-file="$tmp/munge/munge.key" --socket="$tmp/munge/sock" \
        --pid-file="$tmp/munge/munged.pid" --log-file="$tmp/munge/munged.log" \
        --seed-file="$tmp/munge/seed" >"$tmp/munge/start.log" 2>&1; then
    skip "sweep --slurm on a local cluster" "munged cannot start: $(tail -n 1 "$tmp/munge/start.log")"
    exit 0
fi

host=$(hostname -s)
cat >"$tmp/slurm.conf" <<CONF
ClusterName=vmreplay-test
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$d_port
AuthType=auth/munge
AuthInfo=socket=$tmp/munge/sock
CredType=cred/munge
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool
SlurmctldPidFile=$tmp/slurmctld.pid
SlurmdPidFile=$tmp/slurmd.pid
SlurmctldLogFile=$tmp/log/slurmctld.log
SlurmdLogFile=$tmp/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/builtin
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MpiDefault=none
ReturnToService=2
NodeName=$host NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=test Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF=$tmp/slurm.conf
if ! slurmctld -f "$SLURM_CONF" >"$tmp/log/ctld.start" 2>&1; then
    skip "sweep --slurm on a local cluster" "slurmctld cannot start: $(tail -n 1 "$tmp/log/ctld.start") $(tail -n 1 "$tmp/log/slurmctld.log" 2>/dev/null)"
    exit 0
fi
if ! slurmd -f "$SLURM_CONF" >"$tmp/log/d.start" 2>&1; then
    skip "sweep --slurm on a local cluster" "slurmd cannot start: $(tail -n 1 "$tmp/log/d.start") $(tail -n 1 "$tmp/log/slurmd.log" 2>/dev/null)"
    exit 0
fi
state=""
for _ in $(seq 1 100); do
    state=$(sinfo -h -o %T 2>/dev/null | head -1)
    [ "$state" = idle ] && break
    sleep 0.2
done
if [ "$state" != idle ]; then
    skip "sweep --slurm on a local cluster" "the node did not come up (state '${state:-none}'): $(grep -h -i error "$tmp"/log/*.log | tail -n 1)"
    exit 0
fi
ok "a one-node Slurm cluster runs on localhost (slurmctld :$ctld_port, slurmd :$d_port)"

kernel=$("$vmr" run --list-policies | awk -F'\t' '$2 == "yes" { print $1; exit }')
cat >"$tmp/s.sweep" <<SWEEP
trace $PWD/traces/anon-storm-small/ctf
trace $PWD/traces/build-like-small/ctf
policy lru $kernel
memory-limit 25% 50%
swappiness 1 200
seed 1-3
SWEEP
total=$("$vmr" sweep -n -q -d "$tmp/plan" "$tmp/s.sweep" | tail -n +2 | wc -l)

t0=$(date +%s.%N)
"$vmr" sweep -q -d "$tmp/local" "$tmp/s.sweep"
check "local sweep: exit 0" test $? -eq 0
t1=$(date +%s.%N)
# One array task per CPU-sized chunk; sbatch options pass through.
chunk=$(( (total + $(nproc) - 1) / $(nproc) ))
"$vmr" sweep --slurm --wait --chunk "$chunk" --sbatch=--time=10 --sbatch=--job-name=vmr-test \
    -d "$tmp/slurm" "$tmp/s.sweep" 2>"$tmp/slurm.log"
rc=$?
t2=$(date +%s.%N)
check "slurm sweep --wait: exit 0 (rc $rc)" test $rc -eq 0 || sed 's/^/# /' "$tmp/slurm.log"
check "slurm: the job array had $(( (total + chunk - 1) / chunk )) tasks" \
    grep -q -- "--array=0-$(( (total + chunk - 1) / chunk - 1 ))" "$tmp"/slurm/slurm/*.sbatch
check "slurm: $total results" test "$(ls "$tmp/slurm/results" | wc -l)" -eq "$total"
check "slurm results identical to the local sweep" diff -r "$tmp/local/results" "$tmp/slurm/results"
echo "# $total runs: local $(echo "$t1 - $t0" | bc) s, through Slurm $(echo "$t2 - $t1" | bc) s"

# Resubmission: only the missing runs go to the cluster.
ls "$tmp/slurm/results" | head -3 | while read -r f; do rm -f "$tmp/slurm/results/$f"; done
"$vmr" sweep --slurm --wait -d "$tmp/slurm" "$tmp/s.sweep" 2>"$tmp/slurm2.log"
check "resubmission: exit 0" test $? -eq 0
latest=$(ls -t "$tmp"/slurm/slurm/*.todo | head -1)
check "resubmission: only the 3 missing runs were submitted" test "$(wc -l <"$latest")" -eq 3
check "resubmission: identical to the local sweep again" diff -r "$tmp/local/results" "$tmp/slurm/results"

# Without --wait: the job id on stdout, and the gather step is the same.
rm -f "$tmp/slurm/results/"*
jobid=$("$vmr" sweep --slurm -q --chunk "$chunk" -d "$tmp/slurm" "$tmp/s.sweep")
check "without --wait: prints the job id ($jobid)" test -n "$jobid"
for _ in $(seq 1 300); do
    [ -z "$(squeue -h -j "$jobid" 2>/dev/null)" ] && break
    sleep 0.2
done
"$vmr" stats -f tsv -o "$tmp/s1.tsv" "$tmp/slurm"
"$vmr" stats -f tsv -o "$tmp/s2.tsv" "$tmp/local"
check "stats of the Slurm sweep equal those of the local one" cmp -s "$tmp/s1.tsv" "$tmp/s2.tsv"
exit 0
