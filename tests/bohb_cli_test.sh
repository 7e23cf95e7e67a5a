#!/usr/bin/env bash
# BOHB end to end: a real `gpusweep run` of `scheduler: {type: bohb}` with budgeted
# trials, one at a time (cpu_slots: 1) so the job order is deterministic. The run must
# finish every trial, model from results (later trials closer to the optimum than the
# first ones), and a run stopped part-way and resumed must give every trial the same
# params as one uninterrupted run: BOHB's observations are rebuilt from the journal.
# Usage: bohb_cli_test.sh GPUSWEEP_BINARY.
set -euo pipefail
gpusweep=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
write_config() {  # $1: directory, $2: seconds each job sleeps
  mkdir -p "$1"
  cat > "$1/bohb.yaml" <<YAML
name: bohb
command: [/bin/sh, -c, 'sleep $2; awk "BEGIN { printf \"{\\\\\"epoch\\\\\": %s, \\\\\"acc\\\\\": %.6f}\\\\n\", {{budget}}, 1 - ({{x}} - 0.3)^2 - ({{y}} - 0.6)^2 + {{budget}} / 100 }" >> "\$GPUSWEEP_METRICS"']
metric: {name: acc, mode: max}
sampler: {type: tpe, trials: 40, seed: 4}
search_space:
  x: {type: uniform, low: 0, high: 1}
  y: {type: uniform, low: 0, high: 1}
scheduler: {type: bohb, min_resource: 1, max_resource: 9, reduction_factor: 3, min_points_in_model: 2}
resources: {gpus: none, cpu_slots: 1}
YAML
}
write_config "$work/whole" 0
write_config "$work/stopped" 0.05
(cd "$work/whole" && "$gpusweep" run bohb.yaml > run.log 2>&1) || { cat "$work/whole/run.log"; exit 1; }
# Stop the second run once a dozen jobs have finished, then resume it.
cd "$work/stopped"
"$gpusweep" run bohb.yaml > run1.log 2>&1 &
pid=$!
for _ in $(seq 1 400); do
  n=$(cat runs/bohb/trials/*/metrics.jsonl 2>/dev/null | wc -l || true)
  [[ ${n:-0} -ge 12 ]] && break
  sleep 0.05
done
kill -INT "$pid"
wait "$pid" || true
"$gpusweep" run bohb.yaml > run2.log 2>&1 || { cat run1.log run2.log; exit 1; }
grep -qi "resum" run2.log || { echo "the second run did not resume:"; cat run2.log; exit 1; }
(cd "$work/whole" && "$gpusweep" export --format json) > "$work/whole.json"
"$gpusweep" export --format json > "$work/stopped.json"
/usr/bin/python3 - "$work/whole.json" "$work/stopped.json" <<'PY'
import json, sys
whole, stopped = (json.load(open(p)) for p in sys.argv[1:3])
params = lambda trials: {t["trial"]: (t["param.x"], t["param.y"]) for t in trials}
assert len(whole) == 40, f"{len(whole)} trials, not 40"
bad = [t["trial"] for t in whole if t["state"] not in ("completed", "pruned")]
assert not bad, f"trials neither completed nor pruned: {bad}"
assert params(whole) == params(stopped), "a resumed BOHB run drew other params"
dist = lambda xy: ((xy[0] - 0.3) ** 2 + (xy[1] - 0.6) ** 2) ** 0.5
p = params(whole)
first = sorted(dist(p[k]) for k in range(0, 10))
last = sorted(dist(p[k]) for k in range(30, 40))
assert last[len(last) // 2] < first[len(first) // 2], f"no learning: {first} vs {last}"
print("bohb_cli_test: ok;", "median distance to the optimum, trials 0-9:",
      round(first[5], 3), "trials 30-39:", round(last[5], 3))
PY
