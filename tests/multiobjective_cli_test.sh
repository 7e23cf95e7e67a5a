#!/usr/bin/env bash
# Several objectives and a constraint end to end: a real `gpusweep run` with the nsga2
# sampler over a sh trial (f1 = x, f2 = (1 - x)^2 + y, constraint x + y <= 1.2), then
# status (front, infeasible count, hypervolume), best (the front) and best --json, whose
# front is checked against the non-dominated feasible trials of `export --format json`.
# Usage: multiobjective_cli_test.sh GPUSWEEP_BINARY.
set -euo pipefail
gpusweep=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat > "$work/mo.yaml" <<'YAML'
name: mo
command: [/bin/sh, -c, 'echo "{\"f1\": {{x}}, \"f2\": $(awk "BEGIN { print (1 - {{x}}) * (1 - {{x}}) + {{y}} }"), \"c\": $(awk "BEGIN { print {{x}} + {{y}} }")}" >> "$GPUSWEEP_METRICS"']
metrics:
  - {name: f1, mode: min}
  - {name: f2, mode: min}
constraints:
  - {metric: c, max: 1.2}
sampler: {type: nsga2, trials: 24, seed: 3, population: 8}
search_space:
  x: {type: uniform, low: 0, high: 1}
  y: {type: uniform, low: 0, high: 1}
resources: {gpus: none, cpu_slots: 2}
YAML
cd "$work"
"$gpusweep" run mo.yaml > run.log 2>&1 || { cat run.log; exit 1; }
"$gpusweep" status > status.txt
"$gpusweep" best > best.txt
"$gpusweep" best --json > best.json
"$gpusweep" export --format json -o trials.json
grep -q "^Pareto front: " status.txt || { cat status.txt; exit 1; }
grep -q "^Infeasible: " status.txt || { cat status.txt; exit 1; }
grep -q "^Hypervolume: .*(reference f1=.*, f2=.*; derived" status.txt || { cat status.txt; exit 1; }
grep -q "^Pareto front: " best.txt || { cat best.txt; exit 1; }
/usr/bin/python3 - <<'PY'
import json
best = json.load(open("best.json"))
rows = json.load(open("trials.json"))
done = [r for r in rows if r["state"] == "completed"]
assert len(done) == 24, len(done)
def metric(r, k):
    return r["metric." + k]
pts = {r["trial"]: (metric(r, "f1"), metric(r, "f2"), metric(r, "c")) for r in done}
feasible = {n: p for n, p in pts.items() if p[2] <= 1.2}
def dominates(a, b):
    return a[0] <= b[0] and a[1] <= b[1] and (a[0] < b[0] or a[1] < b[1])
front = sorted(n for n, p in feasible.items() if not any(dominates(q, p) for q in feasible.values()))
got = sorted(m["trial"] for m in best["front"])
assert got == front, (got, front)
assert all(m["feasible"] for m in best["front"])
assert best["hypervolume"]["value"] > 0 and best["hypervolume"]["derived"]
assert [o["name"] for o in best["objectives"]] == ["f1", "f2"]
print("front of %d among %d feasible of 24 trials: %s; hypervolume %.4f" % (len(front), len(feasible), front, best["hypervolume"]["value"]))
PY
