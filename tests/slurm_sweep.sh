#!/usr/bin/env bash
# experiments/slurm/sweep.sbatch on a real Slurm: starts a private single-node cluster
# (munged, slurmctld, slurmd from Debian's packages, all state in a temporary directory,
# its own munge key, socket and ports, so a system Slurm or munge is not touched), runs a
# small config as a 3-task job array, stops one task with `scancel --signal=TERM` after
# its first point and requeues it, then checks that the merged result holds exactly the
# points of an unsharded run and that the requeued shard resumed without losing or
# repeating a point. Every daemon is stopped by its pid on exit; the whole test is bounded
# to about 2 minutes. Exits 77 (skipped) without root or without the Slurm packages.
# Usage: tests/slurm_sweep.sh POREPLAB_BINARY
set -euo pipefail
[ $# -eq 1 ] || {
  echo "usage: tests/slurm_sweep.sh POREPLAB_BINARY" >&2
  exit 1
}
poreplab=$(realpath "$1")
src=$(cd "$(dirname "$0")/.." && pwd)
sbatch_file=$src/experiments/slurm/sweep.sbatch

for tool in munged slurmctld slurmd sbatch sinfo squeue scontrol scancel flock timeout python3; do
  if ! command -v "$tool" >/dev/null; then
    echo "slurm_sweep: skipped: $tool not found (scripts/setup installs slurmctld, slurmd and munge)"
    exit 77
  fi
done
if [ "$(id -u)" -ne 0 ]; then
  echo "slurm_sweep: skipped: slurmd must run as root"
  exit 77
fi

fail() {
  echo "slurm_sweep: FAILED: $*" >&2
  exit 1
}

deadline=$((SECONDS + 120))
t=$(mktemp -d /tmp/poreplab-slurm.XXXXXX)
daemon_pids=()
job=
cleanup() {
  local rc=$?
  if [ -n "$job" ] && [ -n "${SLURM_CONF:-}" ]; then
    timeout 10 scancel --quiet "$job" 2>/dev/null || true
    for _ in $(seq 50); do
      [ -z "$(timeout 5 squeue -h -j "$job" 2>/dev/null)" ] && break
      sleep 0.1
    done
  fi
  # Reverse order: slurmd, slurmctld, then munged, which both need to shut down. Each
  # pid is a timeout wrapper: it passes the TERM on and sends KILL 5 s later.
  for ((i = ${#daemon_pids[@]} - 1; i >= 0; i--)); do kill "${daemon_pids[i]}" 2>/dev/null || true; done
  for p in "${daemon_pids[@]}"; do
    for _ in $(seq 80); do
      kill -0 "$p" 2>/dev/null || break
      sleep 0.1
    done
  done
  if [ "$rc" -ne 0 ]; then
    tail -n 3 "$t"/log/sweep-*.out >&2 2>/dev/null || true
    echo "slurm_sweep: logs in $t/log (kept)" >&2
  else
    rm -rf "$t"
  fi
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# Waits (polling every 0.1 s) until the command succeeds, at most until the deadline.
wait_for() {
  local what=$1
  shift
  until "$@"; do
    [ "$SECONDS" -lt "$deadline" ] || fail "timed out waiting for $what"
    sleep 0.1
  done
}

# munged refuses a socket in a directory that others cannot search.
chmod 755 "$t"
mkdir -p "$t/state" "$t/spool" "$t/log" "$t/results"
head -c 1024 /dev/urandom >"$t/munge.key"
chmod 600 "$t/munge.key"
# Each daemon runs in the foreground under timeout, so that even a test killed without
# running its trap leaves nothing behind for long; its pid is timeout's, which passes
# the TERM on.
timeout -k 5 150 munged -F --socket="$t/munge.sock" --key-file="$t/munge.key" --log-file="$t/log/munged.log" \
  --pid-file="$t/munged.pid" --seed-file="$t/munged.seed" >"$t/log/munged.out" 2>&1 &
daemon_pids+=($!)

read -r ctld_port slurmd_port < <(python3 -c '
import socket
s = [socket.socket() for _ in range(2)]
for x in s: x.bind(("127.0.0.1", 0))
print(*(x.getsockname()[1] for x in s))')
host=$(hostname -s)
cat >"$t/slurm.conf" <<EOF
ClusterName=poreplab-test
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
# cred_expire also delays a requeued job (default 120 s)
AuthInfo=socket=$t/munge.sock,cred_expire=5
StateSaveLocation=$t/state
SlurmdSpoolDir=$t/spool
SlurmctldPidFile=$t/slurmctld.pid
SlurmdPidFile=$t/slurmd.pid
SlurmctldLogFile=$t/log/slurmctld.log
SlurmdLogFile=$t/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/builtin
# the main scheduling pass every second (default 60 s): a requeued task starts soon
SchedulerParameters=sched_interval=1
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
MpiDefault=none
ReturnToService=2
KillWait=5
MinJobAge=600
NodeName=$host NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=5 State=UP
EOF
export SLURM_CONF=$t/slurm.conf
wait_for "munged" test -S "$t/munge.sock"
timeout -k 5 150 slurmctld -D -f "$SLURM_CONF" >"$t/log/slurmctld.out" 2>&1 &
daemon_pids+=($!)
timeout -k 5 150 slurmd -D -f "$SLURM_CONF" >"$t/log/slurmd.out" 2>&1 &
daemon_pids+=($!)
node_idle() { [ "$(timeout 10 sinfo -h -n "$host" -o %T 2>/dev/null)" = idle ]; }
wait_for "the node to come up idle" node_idle
echo "slurm_sweep: private Slurm up in $SECONDS s ($host, $(nproc) CPUs, ports $ctld_port/$slurmd_port)"

# 14 points, about 0.5 s each: shard 1/3 gets 5, time enough to stop it after its first.
cat >"$t/sweep.json" <<'EOF'
{"schema": "poreplab-experiments/1",
 "experiments": [
  {"name": "hash", "kind": "hash",
   "axes": {"backend": ["cpu"], "algo": ["sha256", "blake2s", "blake2b"], "engine": ["portable"],
            "mode": ["throughput", "chain"], "size": ["1KiB", "16KiB"]},
   "warmup": 0, "samples": 20},
  {"name": "label", "kind": "label",
   "axes": {"backend": ["reference"], "sector_size": ["2KiB", "8KiB"], "layers": [2]},
   "warmup": 0, "samples": 3}
 ]}
EOF

cd "$t"
job=$(POREPLAB=$poreplab timeout 20 sbatch --parsable --array=0-2 --cpus-per-task=1 --time=2 \
  --output="$t/log/sweep-%a.out" "$sbatch_file" "$t/sweep.json" "$t/results/sweep" --no-plots)
job=${job%%;*}
echo "slurm_sweep: submitted array job $job"

points_in() { grep -c '"type":"point"' "$1" 2>/dev/null || true; }
task_state() { timeout 10 scontrol -o show job "${job}_$1" | grep -o 'JobState=[A-Z]*' | cut -d= -f2; }
task_exit() { timeout 10 scontrol -o show job "${job}_$1" | grep -o ' ExitCode=[0-9:]*' | cut -d= -f2; }
task_1_ended() { case $(task_state 1) in PENDING | RUNNING | CONFIGURING | COMPLETING) return 1 ;; esac; }
first_point_of_shard_1() {
  [ "$(points_in "$t/results/sweep-shard-1/records.jsonl")" -ge 1 ] 2>/dev/null && return 0
  ! task_1_ended || fail "task 1 ended $(task_state 1) before its first point: $(tail -n 1 "$t/log/sweep-1.out")"
  return 1
}
wait_for "shard 1's first point" first_point_of_shard_1
timeout 10 scancel --signal=TERM "${job}_1"
wait_for "task 1 to stop" task_1_ended
[ "$(task_state 1)" = FAILED ] && [ "$(task_exit 1)" = 143:0 ] ||
  fail "task 1 after SIGTERM: $(task_state 1), exit $(task_exit 1); expected FAILED with 143 (had it finished before the signal?)"
stopped_with=$(points_in "$t/results/sweep-shard-1/records.jsonl")
grep -q '"interrupted": *true' "$t/results/sweep-shard-1/results.json" ||
  fail "shard 1's results.json does not say interrupted"
echo "slurm_sweep: task 1 stopped by SIGTERM with $stopped_with of its points recorded; requeueing it"
timeout 10 scontrol requeue "${job}_1"

# The unsharded run to compare with, while the requeued task waits out its delay.
timeout 60 "$poreplab" run "$t/sweep.json" -o "$t/results/unsharded" --no-plots >"$t/log/unsharded.out" 2>&1 ||
  fail "the unsharded run failed: $(tail -n 1 "$t/log/unsharded.out")"

array_done() { [ -z "$(timeout 10 squeue -h -j "$job" 2>/dev/null)" ]; }
wait_for "the array to finish" array_done
for i in 0 1 2; do
  [ "$(task_state "$i")" = COMPLETED ] ||
    fail "task $i ended $(task_state "$i") (exit $(task_exit "$i")); see $t/log/sweep-$i.out"
done
[ -f "$t/results/sweep/results.json" ] || fail "no merged results: see $t/log/sweep-*.out"

python3 - "$t/results" <<'EOF' || fail "the merged points differ from the unsharded run's (above)"
import json, sys
from collections import Counter
root = sys.argv[1]
def load(name):
    with open(f"{root}/{name}/results.json") as f:
        return json.load(f)
def ident(p):
    return json.dumps([p["index"], p["experiment"], p["kind"], p["axes"], p["status"]], sort_keys=True)
merged, single = load("sweep"), load("unsharded")
problems = []
if merged["counts"]["missing"] or merged.get("duplicates"):
    problems.append(f"merged: {merged['counts']['missing']} missing, {merged.get('duplicates')} duplicates")
a, b = sorted(map(ident, merged["points"])), sorted(map(ident, single["points"]))
if a != b:
    problems.append("only merged: " + str(sorted(set(a) - set(b))) + "; only unsharded: " + str(sorted(set(b) - set(a))))
# The requeued shard: its first run and the resumed one, every point recorded once, none failed.
records = [json.loads(l) for l in open(f"{root}/sweep-shard-1/records.jsonl")]
headers = [r for r in records if r["type"] == "header"]
points = [r for r in records if r["type"] == "point"]
keys = Counter(json.dumps([p["experiment"], p["axes"]], sort_keys=True) for p in points)
if len(headers) != 2:
    problems.append(f"shard 1 has {len(headers)} run headers, expected 2 (the first run and the resume)")
if len(points) != headers[0]["points_in_shard"] or any(n != 1 for n in keys.values()):
    problems.append(f"shard 1 holds {len(points)} point records for {headers[0]['points_in_shard']} points: {keys}")
if any(p["status"] != "ok" for p in points):
    problems.append("shard 1 recorded a point that is not ok: " + str([p["status"] for p in points]))
for p in problems:
    print("slurm_sweep:", p, file=sys.stderr)
sys.exit(1 if problems else 0)
EOF
echo "slurm_sweep: ok: 3 shards merged into $(grep -o '"expected": *[0-9]*' "$t/results/sweep/results.json" | grep -o '[0-9]*$') points equal to the unsharded run; task 1 resumed after SIGTERM + requeue ($stopped_with points before) in $SECONDS s"
