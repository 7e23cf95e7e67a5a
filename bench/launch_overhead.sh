#!/usr/bin/env bash
# Scheduling overhead of gpusweep: N tiny trials (each reports one metric line and
# exits) on 2 slots, against a reference that runs the same N commands with
# `xargs -P 2` and no bookkeeping at all. Runs R rounds, each the reference then
# gpusweep back to back (so both see the same machine load), and reports each round's
# ratio and their median, the load average, and the idle gap between one trial's end
# and the next trial's start (last round, from the journal).
# Usage: [GPUSWEEP_BINARY=path] bench/launch_overhead.sh [N] [R]   (default 400 trials,
# 3 rounds; needs build/gpusweep unless GPUSWEEP_BINARY names another build)
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-400}
rounds=${2:-3}
binary=${GPUSWEEP_BINARY:-$PWD/build/gpusweep}  # another build, to compare: GPUSWEEP_BINARY=...
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

trial_cmd='echo "{\"x\": 1}" >> "$GPUSWEEP_METRICS"'
cat > "$work/sweep.yaml" <<YAML
name: overhead
command: [/bin/sh, -c, '$trial_cmd']
metric: {name: x, mode: max}
sampler: {type: grid}
search_space:
  i: {type: int, low: 1, high: $n}
resources: {gpus: none, cpu_slots: 2}
YAML

now() { date +%s.%N; }
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
times=()
for round in $(seq "$rounds"); do
  # Each round in directories of its own, all removed at exit: deleting thousands of
  # files between rounds made the next round's file creation slow on ext4 without a
  # journal (the inode allocator skips recently deleted inodes one by one), and
  # gpusweep, creating 4 files per trial to the reference's 1, paid that 4 times over.
  mkdir -p "$work/round$round/ref"
  cp "$work/sweep.yaml" "$work/round$round/"
  # Reference: the same processes, same environment variable shape, no journal.
  start=$(now)
  seq "$n" | xargs -P 2 -I{} env GPUSWEEP_METRICS="$work/round$round/ref/{}.jsonl" /bin/sh -c "$trial_cmd"
  ref=$(echo "$(now) - $start" | bc)
  start=$(now)
  (cd "$work/round$round" && "$binary" run sweep.yaml > "$work/run.log")
  sweep=$(echo "$(now) - $start" | bc)
  times+=("$ref:$sweep")
done
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

/usr/bin/python3 - "$work/round$rounds/runs/overhead/gpusweep.db" "$n" "$load_before" "$load_after" "${times[@]}" <<'PY'
import sqlite3, statistics, sys
db, n, load_before, load_after = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
rounds = [tuple(map(float, t.split(":"))) for t in sys.argv[5:]]
rows = sqlite3.connect(db).execute(
    "select start_time, end_time, state from trials order by start_time").fetchall()
assert len(rows) == n and all(r[2] == "completed" for r in rows), "not every trial completed"
# Slot idle gap: for each start after the first two, the time since the latest end
# before it (a free slot waited that long for its next trial).
ends = sorted(r[1] for r in rows)
gaps = []
for start, _, _ in rows[2:]:
    before = [e for e in ends if e <= start]
    if before:
        gaps.append(start - before[-1])
print(f"trials                 {n} per round, {len(rounds)} rounds")
print(f"load average           {load_before} before, {load_after} after")
for i, (ref, sweep) in enumerate(rounds, 1):
    print(f"round {i}: reference (xargs -P2) {ref:.2f} s, gpusweep {sweep:.2f} s, "
          f"ratio {sweep / ref:.2f}")
ratios = [sweep / ref for ref, sweep in rounds]
ref, sweep = statistics.median(r for r, _ in rounds), statistics.median(s for _, s in rounds)
print(f"median ratio           {statistics.median(ratios):.2f}")
print(f"per-trial overhead     {(sweep - ref) / n * 1000:.1f} ms (medians)")
print(f"slot idle gap          median {statistics.median(gaps) * 1000:.2f} ms, "
      f"p95 {sorted(gaps)[int(0.95 * len(gaps))] * 1000:.2f} ms")
PY
