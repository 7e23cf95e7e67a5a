#!/usr/bin/env bash
# Cross-validation with two objectives and a constraint end to end (issue 21): a real
# `gpusweep run` of nsga2 over 3-fold configurations whose folds disagree (fold 2 fails
# where y > 0.6, allowed once), then `best --json`, whose front must be the
# non-dominated feasible configurations that an independent computation here finds
# from `export --format json`: each configuration's objectives and constraint metric are
# the means over its completed folds' exported metric columns, its violation that of
# the means. export's pareto_rank/feasible/violation must be the configuration's on
# every fold row, and status and best must name configurations, not fold trials. Where
# Debian's python3-optuna is installed, `export --format optuna` (one trial per
# configuration) must give Optuna the same front of feasible configurations.
# Usage: cv_multiobjective_cli_test.sh GPUSWEEP_BINARY [SOURCE_DIR].
set -euo pipefail
gpusweep=$1
source_dir=${2:-$(cd "$(dirname "$0")/.." && pwd)}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat > "$work/cvmo.yaml" <<'YAML'
name: cvmo
command: [/bin/sh, -c, 'if [ {{fold}} = 2 ] && [ $(awk "BEGIN { print ({{y}} > 0.6) }") = 1 ]; then exit 1; fi; echo "{\"f1\": $(awk "BEGIN { print {{x}} * (1 + 0.3 * {{fold}} * {{y}}) }"), \"f2\": $(awk "BEGIN { print (1 - {{x}}) * (1 - {{x}}) + {{y}} * (1 - 0.4 * {{fold}}) }"), \"c\": $(awk "BEGIN { print {{x}} + {{y}} + 0.15 * {{fold}} }")}" >> "$GPUSWEEP_METRICS"']
metrics:
  - {name: f1, mode: min}
  - {name: f2, mode: min}
constraints:
  - {metric: c, max: 0.85}
sampler: {type: nsga2, trials: 14, seed: 4, population: 6}
cv: {folds: 3, allow_failed_folds: 1}
search_space:
  x: {type: uniform, low: 0, high: 1}
  y: {type: uniform, low: 0, high: 1}
resources: {gpus: none, cpu_slots: 2}
YAML
cd "$work"
"$gpusweep" run cvmo.yaml > run.log 2>&1 || { cat run.log; exit 1; }
"$gpusweep" status > status.txt
"$gpusweep" best > best.txt
"$gpusweep" best --json > best.json
"$gpusweep" export --format json -o trials.json
"$gpusweep" export --format optuna -o study.json
grep -q "^Best       Pareto front of .* configurations (f1 min, f2 min)" status.txt || { cat status.txt; exit 1; }
grep -q "^Pareto front: .* of 14 completed configurations" status.txt || { cat status.txt; exit 1; }
grep -q "^Pareto front: .* completed configurations (means over their folds)$" best.txt || { cat best.txt; exit 1; }
grep -q "^configuration [0-9]*$" best.txt || { cat best.txt; exit 1; }
/usr/bin/python3 - <<'PY'
import json
best = json.load(open("best.json"))
rows = json.load(open("trials.json"))
assert len(rows) == 42, len(rows)
by_config = {}
for r in rows:
    by_config.setdefault(r["configuration"], []).append(r)
means, failed_folds = {}, 0
for c, folds in by_config.items():
    assert len(folds) == 3 and len({json.dumps(f["param.x"]) for f in folds}) == 1, folds
    done = [f for f in folds if f["state"] == "completed"]
    failed_folds += 3 - len(done)
    assert folds[0]["cv_state"] == "completed", folds[0]
    means[c] = tuple(sum(f["metric." + k] for f in done) / len(done) for k in ("f1", "f2", "c"))
assert failed_folds > 0, "no fold failed: the test would not see means over fewer folds"
feasible = {c: m for c, m in means.items() if m[2] <= 0.85}
def dominates(a, b):
    return a[0] <= b[0] and a[1] <= b[1] and (a[0] < b[0] or a[1] < b[1])
front = sorted(c for c, m in feasible.items() if not any(dominates(q, m) for q in feasible.values()))
got = sorted(m["configuration"] for m in best["front"])
assert got == front, (got, front)
for m in best["front"]:
    c = m["configuration"]
    assert m["trials"] == [3 * c, 3 * c + 1, 3 * c + 2], m
    assert m["feasible"] and m["violation"] == 0, m
    assert abs(m["values"]["f1"] - means[c][0]) < 1e-12 and abs(m["values"]["f2"] - means[c][1]) < 1e-12, (m, means[c])
# The front of fold trials would be another set: the check above is about configurations.
fold_pts = {r["trial"]: (r["metric.f1"], r["metric.f2"], r["metric.c"]) for r in rows if r["state"] == "completed"}
for r in rows:
    c = r["configuration"]
    assert (r["pareto_rank"] == 1) == (c in front), (r["trial"], r["pareto_rank"])
    assert r["feasible"] == (c in feasible), (r["trial"], r["feasible"])
    assert abs(r["violation"] - max(0.0, means[c][2] - 0.85)) < 1e-12, (r["trial"], r["violation"])
infeasible_folds_of_feasible = sum(1 for r in rows if r["state"] == "completed" and r["configuration"] in feasible and fold_pts[r["trial"]][2] > 0.85)
print("front of %d among %d feasible of 14 configurations: %s; %d failed folds; %d infeasible folds in feasible configurations"
      % (len(front), len(feasible), front, failed_folds, infeasible_folds_of_feasible))
PY
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
assert len(study.trials) == 14, len(study.trials)
feasible = [t for t in study.trials if t.state.name == "COMPLETE" and all(c <= 0 for c in t.system_attrs["constraints"])]
front = sorted(t.number for t in _get_pareto_front_trials_by_trials(feasible, study.directions))
assert front == sorted(m["configuration"] for m in best["front"]), (front, best["front"])
print("Optuna's front of the feasible configurations is gpusweep's: %s" % front)
PY
