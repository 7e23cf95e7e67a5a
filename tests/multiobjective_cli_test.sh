#!/usr/bin/env bash
# Several objectives and a constraint end to end: a real `gpusweep run` with the nsga2
# sampler over a sh trial (f1 = x, f2 = (1 - x)^2 + y, constraint x + y <= 1.2), then
# status (each objective and the Pareto rank per trial, front, infeasible count,
# hypervolume from the configured reference; --sort by one objective, by the constraint's
# metric), best (the front) and best --json, whose
# front is checked against the non-dominated feasible trials of `export --format json`
# and its pareto_rank/feasible/violation columns, and `export --format optuna` loaded
# into Optuna 3.1 (Debian's python3-optuna, where installed), whose Pareto front of the
# feasible trials must be the same trials. The run and the checks of status, best and
# export are repeated with the tpe sampler (multi-objective TPE, docs/samplers.md).
# Usage: multiobjective_cli_test.sh GPUSWEEP_BINARY [SOURCE_DIR].
set -euo pipefail
gpusweep=$1
source_dir=${2:-$(cd "$(dirname "$0")/.." && pwd)}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
write_config() {  # $1: the sampler line
cat <<'YAML'
name: mo
command: [/bin/sh, -c, 'echo "{\"f1\": {{x}}, \"f2\": $(awk "BEGIN { print (1 - {{x}}) * (1 - {{x}}) + {{y}} }"), \"c\": $(awk "BEGIN { print {{x}} + {{y}} }")}" >> "$GPUSWEEP_METRICS"']
metrics:
  - {name: f1, mode: min}
  - {name: f2, mode: min}
constraints:
  - {metric: c, max: 1.2}
hypervolume_reference: {f1: 1.0, f2: 2.0}
search_space:
  x: {type: uniform, low: 0, high: 1}
  y: {type: uniform, low: 0, high: 1}
resources: {gpus: none, cpu_slots: 2}
YAML
echo "$1"
}
# Runs one experiment in $work/$1 and checks what status, best and export say of it.
run_and_check() {
mkdir -p "$work/$1"
cd "$work/$1"
write_config "$2" > mo.yaml
"$gpusweep" run mo.yaml > run.log 2>&1 || { cat run.log; exit 1; }
"$gpusweep" status > status.txt
"$gpusweep" best > best.txt
"$gpusweep" best --json > best.json
"$gpusweep" export --format json -o trials.json
"$gpusweep" export --format optuna -o study.json
"$gpusweep" status --sort objective > ranked.txt
"$gpusweep" status --sort f2 > by_f2.txt
"$gpusweep" status --sort c --top 3 > by_c.txt
grep -q "^Pareto front: " status.txt || { cat status.txt; exit 1; }
grep -q "^Infeasible: " status.txt || { cat status.txt; exit 1; }
grep -q "^Hypervolume: .*(reference f1=1, f2=2)$" status.txt || { cat status.txt; exit 1; }
grep -q "^Best       Pareto front of .* trials (f1 min, f2 min)" status.txt || { cat status.txt; exit 1; }
grep -Eq "^TRIAL +STATE +GPUS +DURATION +f1 +f2 +c +PARETO +PARAMS" status.txt || { cat status.txt; exit 1; }
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
# Each member as `best` lists it: its constrained metric and its directory.
for m in best["front"]:
    assert abs(m["constraint_values"]["c"] - pts[m["trial"]][2]) < 1e-9, m
    assert m["dir"].endswith("/trials/%04d" % m["trial"]), m
assert not best["hypervolume"]["derived"] and best["hypervolume"]["reference"] == [1.0, 2.0]
# The exact 2-D hypervolume of the feasible front from the reference (1, 2).
inside = sorted((p[0], p[1]) for n, p in feasible.items() if n in front and p[0] < 1 and p[1] < 2)
hv, last_f2 = 0.0, 2.0
for f1, f2 in inside:
    if f2 < last_f2:
        hv += (1 - f1) * (last_f2 - f2)
        last_f2 = f2
assert abs(best["hypervolume"]["value"] - hv) < 1e-9, (best["hypervolume"], hv)
# export: pareto_rank 1 exactly on the front; feasible and violation as the constraint says.
for r in done:
    n = r["trial"]
    assert (r["pareto_rank"] == 1) == (n in front), (n, r["pareto_rank"])
    assert r["feasible"] == (n in feasible), (n, r["feasible"])
    assert abs(r["violation"] - max(0.0, pts[n][2] - 1.2)) < 1e-9, (n, r["violation"])
    assert r["pareto_rank"] > max(x["pareto_rank"] for x in done if x["trial"] in feasible) or n in feasible
# status --sort objective: the front first.
rows = [int(line.split()[0]) for line in open("ranked.txt") if line[:5].strip().isdigit()]
assert sorted(rows[:len(front)]) == front, (rows, front)
# status --sort f2: by that objective alone, smallest first; --sort c (the constraint's
# metric) ascending.
rows = [int(line.split()[0]) for line in open("by_f2.txt") if line[:5].strip().isdigit()]
assert rows == sorted(pts, key=lambda n: (pts[n][1], n)), (rows, pts)
rows = [int(line.split()[0]) for line in open("by_c.txt") if line[:5].strip().isdigit()]
assert rows == sorted(pts, key=lambda n: (pts[n][2], n))[:3], rows
assert [o["name"] for o in best["objectives"]] == ["f1", "f2"]
print("front of %d among %d feasible of 24 trials: %s; hypervolume %.4f" % (len(front), len(feasible), front, best["hypervolume"]["value"]))
PY
}
run_and_check tpe 'sampler: {type: tpe, trials: 24, seed: 3, n_startup_trials: 8}'
run_and_check nsga2 'sampler: {type: nsga2, trials: 24, seed: 3, population: 8}'
if ! /usr/bin/python3 -c "import optuna" 2>/dev/null; then
  echo "python3-optuna is not installed: the Optuna half skipped (scripts/install-deps.sh --tests)"
  exit 0
fi
PYTHONPATH="$source_dir/python" /usr/bin/python3 - <<'PY'
import json
import optuna
from optuna.study._multi_objective import _get_pareto_front_trials_by_trials
import gpusweep_optuna
optuna.logging.set_verbosity(optuna.logging.WARNING)
study = gpusweep_optuna.load_study("study.json")
best = json.load(open("best.json"))
assert [d.name for d in study.directions] == ["MINIMIZE", "MINIMIZE"], study.directions
feasible = [t for t in study.trials if t.state.name == "COMPLETE" and all(c <= 0 for c in t.system_attrs["constraints"])]
front = sorted(t.number for t in _get_pareto_front_trials_by_trials(feasible, study.directions))
assert front == sorted(m["trial"] for m in best["front"]), (front, best["front"])
print("Optuna's front of the feasible trials is gpusweep's: %s" % front)
PY
