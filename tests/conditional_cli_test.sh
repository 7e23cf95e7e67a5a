#!/usr/bin/env bash
# Nested and conditional search spaces end to end (docs/config.md, "Nested and
# conditional parameters"): a grid over a dotted name and a choice of sub-spaces with a
# when:, run through `gpusweep run` with a sh trial. Checks the grid's count (active
# combinations only), params.json (nested as written, inactive parameters absent), the
# command's sections, export (JSON key absent, CSV cell empty), the plan-time refusal of
# a bare conditional name, and a tpe sweep warm-started from the grid's trials.
# Usage: conditional_cli_test.sh GPUSWEEP_BINARY.
set -euo pipefail
gpusweep=$1
source_dir=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat > "$work/cond.yaml" <<'YAML'
name: cond
command: [/bin/sh, -c, 'echo "{\"loss\": {{model.depth}}{{#classifier.C}}, \"c\": {{classifier.C}}{{/classifier.C}}}" >> "$GPUSWEEP_METRICS"; echo "depth={{model.depth}} kind={{classifier}}"']
metric: {name: loss, mode: min}
sampler: {type: grid}
search_space:
  model.depth: {type: choice, values: [1, 2]}
  classifier:
    type: choice
    values:
      - {name: svm, C: {type: choice, values: [0.5, 1.5]}}
      - {name: rf, trees: {type: int, low: 10, high: 20, step: 10}}
      - none
  extra: {values: [x], when: {classifier: none}}
resources: {gpus: none, cpu_slots: 2}
YAML
cd "$work"
"$gpusweep" run cond.yaml > run.log 2>&1 || { cat run.log; exit 1; }
"$gpusweep" export --format json -o trials.json runs/cond
"$gpusweep" export --format csv -o trials.csv runs/cond
/usr/bin/python3 - <<'PY'
import csv, json, glob
params = [json.load(open(p)) for p in sorted(glob.glob("runs/cond/trials/*/params.json"))]
assert len(params) == 10, len(params)  # depth 2 x (svm 2 + rf 2 + none 1)
assert params[0] == {"model": {"depth": 1}, "classifier": {"name": "svm", "C": 0.5}}, params[0]
assert params[2] == {"model": {"depth": 1}, "classifier": {"name": "rf", "trees": 10}}, params[2]
assert params[4] == {"model": {"depth": 1}, "classifier": "none", "extra": "x"}, params[4]
rows = json.load(open("trials.json"))
assert all(r["state"] == "completed" for r in rows), rows
by = {r["trial"]: r for r in rows}
assert by[0]["param.classifier.C"] == 0.5 and by[0]["metric.c"] == 0.5, by[0]
assert "param.classifier.C" not in by[2] and "param.extra" not in by[2], by[2]
assert by[4]["param.extra"] == "x" and "param.classifier.trees" not in by[4], by[4]
cells = {int(r["trial"]): r for r in csv.DictReader(open("trials.csv"))}
assert cells[2]["param.classifier.C"] == "" and cells[2]["param.classifier.trees"] == "10", cells[2]
log = open("runs/cond/trials/0001/output.log").read()
assert 'depth=1 kind={name:svm,C:1.5}' in log, log  # the JSON, its quotes eaten by sh
print("10 trials; params.json, export and the command agree on the active parameters")
PY
# The Optuna export loads as a study whose trials have only their own parameters
# (skipped without Debian's python3-optuna).
if /usr/bin/python3 -c "import optuna" 2>/dev/null; then
  "$gpusweep" export --format optuna -o study.json runs/cond
  PYTHONPATH="$source_dir/python" /usr/bin/python3 - <<'PY'
import optuna, gpusweep_optuna
optuna.logging.set_verbosity(optuna.logging.WARNING)
study = gpusweep_optuna.load_study("study.json")
assert len(study.trials) == 10, len(study.trials)
for t in study.trials:
    assert set(t.params) == set(t.distributions), t
    assert ("classifier.C" in t.params) == ("svm" in str(t.params["classifier"])), t.params
print("Optuna study of 10 trials, each with its own parameters")
PY
fi
# A conditional parameter read outside a section where it is active: refused at plan time.
sed 's/"\$GPUSWEEP_METRICS"; echo "depth={{model.depth}}/"$GPUSWEEP_METRICS"; echo "C={{classifier.C}}/; s/^name: cond/name: bare/' cond.yaml > bare.yaml
set +e
"$gpusweep" run bare.yaml > bare.log 2>&1
rc=$?
set -e
[ "$rc" = 2 ] || { echo "bare conditional name: exit $rc, want 2"; cat bare.log; exit 1; }
grep -q "reads 'classifier.C', which only some trials have" bare.log || { cat bare.log; exit 1; }
[ ! -e runs/bare/trials ] || { echo "trials were started"; exit 1; }
# tpe over the same space, warm-started from the grid's trials (each seeds what it has).
sed 's/^name: cond/name: tpe/; s/^sampler: {type: grid}/sampler: {type: tpe, trials: 6, seed: 1, n_startup_trials: 2}\nwarm_start: {from: runs\/cond}/' cond.yaml > tpe.yaml
"$gpusweep" run tpe.yaml > tpe.log 2>&1 || { cat tpe.log; exit 1; }
/usr/bin/python3 - <<'PY'
import json, glob
params = [json.load(open(p)) for p in sorted(glob.glob("runs/tpe/trials/*/params.json"))]
assert len(params) == 6, len(params)
for p in params:
    c = p["classifier"]
    name = c if isinstance(c, str) else c["name"]
    want = {"svm": {"name", "C"}, "rf": {"name", "trees"}}.get(name)
    if want: assert set(c) == want, p
    assert ("extra" in p) == (name == "none"), p
print("tpe warm-started from 10 trials; 6 trials with only their active parameters")
PY
grep -q "10 trials" tpe.log || grep -qi "warm" tpe.log || { cat tpe.log; exit 1; }
