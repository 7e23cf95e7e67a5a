#!/usr/bin/env bash
# `gpusweep export --format optuna` loads into Optuna with python/gpusweep_optuna.py:
# a TPE sweep with a float, a log-float, an int, a log-int, a categorical of maps and a constant,
# under ASHA (pruned trials with intermediate values) and with one failing trial.
# Usage: optuna_export_test.sh GPUSWEEP_BINARY SOURCE_DIR. Exit 77 (skipped) without
# Debian's python3-optuna (scripts/install-deps.sh --tests installs it).
set -euo pipefail
gpusweep=$1
source_dir=$2
python=/usr/bin/python3
if ! "$python" -c "import optuna" 2>/dev/null; then
  echo "python3-optuna is not installed: skipped (scripts/install-deps.sh --tests)"
  exit 77
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat > "$work/sweep.yaml" <<'YAML'
name: opt
command: [/bin/sh, -c, 'if [ {{layers}} = 3 ] && [ {{act.kind}} = gelu ]; then echo boom >&2; exit 1; fi; for e in 1 2 3 4; do echo "{\"epoch\": $e, \"loss\": $(awk "BEGIN { print {{x}} * {{x}} + {{lr}} * {{layers}} / $e }")}" >> "$GPUSWEEP_METRICS"; done']
metric: {name: loss, mode: min}
sampler: {type: tpe, trials: 12, seed: 3, n_startup_trials: 4}
scheduler: {type: asha, resource: epoch, min_resource: 1, max_resource: 4, reduction_factor: 2}
search_space:
  x: {type: uniform, low: -2, high: 2}
  lr: {type: loguniform, low: 1.0e-3, high: 1.0}
  layers: {type: int, low: 1, high: 5, step: 2}
  width: {type: int, low: 1, high: 64, log: true}
  act: {type: choice, values: [{kind: relu}, {kind: gelu}]}
  epochs: 4
resources: {cpu_slots: 2}
YAML
cd "$work"
"$gpusweep" run sweep.yaml > run.log 2>&1 || { cat run.log; exit 1; }
"$gpusweep" export --format optuna -o study.json
"$gpusweep" best --single > best.txt
PYTHONPATH="$source_dir/python" "$python" - <<'PY'
import json, re
import optuna
import gpusweep_optuna

optuna.logging.set_verbosity(optuna.logging.WARNING)
study = gpusweep_optuna.load_study("study.json")
data = json.load(open("study.json"))
states = {t.state.name for t in study.trials}
assert len(study.trials) == len(data["trials"]) == 12, len(study.trials)
assert "COMPLETE" in states and "PRUNED" in states, states
best = open("best.txt").read()
number = int(re.search(r"Best trial #(\d+)", best).group(1))
assert study.best_trial.user_attrs["gpusweep_state"] == "completed"
assert abs(study.best_value - data["trials"][[t["number"] for t in data["trials"]].index(number)]["value"]) < 1e-12
assert study.best_params["act"] in ('{"kind":"relu"}', '{"kind":"gelu"}'), study.best_params
assert isinstance(study.best_params["layers"], int)
assert study.best_trial.distributions["width"].log, study.best_trial.distributions
pruned = [t for t in study.trials if t.state.name == "PRUNED"]
assert all(t.intermediate_values for t in pruned)
# Optuna can keep optimizing from the loaded history over the same distributions.
trial = study.ask(study.best_trial.distributions)
assert -2 <= trial.params["x"] <= 2
print("loaded %d trials (%s); best %s" % (len(study.trials), sorted(states), study.best_params))
PY
