#!/usr/bin/env bash
# `gpusweep export --format optuna` of a cross-validated sweep: one Optuna trial per
# configuration (value: the folds' mean; the folds as user attributes), so best_trial
# is the configuration `gpusweep best` names and importances are over configurations.
# Usage: optuna_cv_export_test.sh GPUSWEEP_BINARY SOURCE_DIR. Exit 77 (skipped) without
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
# Fold 1 of every configuration with layers 5 fails, so those configurations fail.
cat > "$work/sweep.yaml" <<'YAML'
name: optcv
command: [/bin/sh, -c, 'if [ {{layers}} = 5 ] && [ {{fold}} = 1 ]; then exit 1; fi; for e in 1 2; do echo "{\"epoch\": $e, \"loss\": $(awk "BEGIN { print {{x}} * {{x}} + {{layers}} / 10 + {{fold}} / 100 + 1 / $e }")}" >> "$GPUSWEEP_METRICS"; done']
metric: {name: loss, mode: min}
sampler: {type: tpe, trials: 8, seed: 5, n_startup_trials: 4}
cv: {folds: 3}
search_space:
  x: {type: uniform, low: -2, high: 2}
  layers: {type: int, low: 1, high: 5, step: 2}
resources: {cpu_slots: 2}
YAML
cd "$work"
"$gpusweep" run sweep.yaml > run.log 2>&1 || { cat run.log; exit 1; }
"$gpusweep" export --format optuna -o study.json
"$gpusweep" best > best.txt
PYTHONPATH="$source_dir/python" "$python" - <<'PY'
import json, re, statistics
import optuna
import gpusweep_optuna

optuna.logging.set_verbosity(optuna.logging.WARNING)
study = gpusweep_optuna.load_study("study.json")
assert len(study.trials) == 8, len(study.trials)  # configurations, not 24 folds
best = open("best.txt").read()
configuration = int(re.search(r"Best configuration (\d+)", best).group(1))
assert study.best_trial.number == configuration, (study.best_trial.number, configuration)
folds = study.best_trial.user_attrs["fold_values"]
assert len(folds) == 3 and study.best_trial.user_attrs["fold_trials"] == [3 * configuration, 3 * configuration + 2]
assert abs(study.best_value - statistics.mean(folds)) < 1e-9, (study.best_value, folds)
assert abs(study.best_trial.user_attrs["cv_std"] - statistics.stdev(folds)) < 1e-9
assert study.best_trial.intermediate_values[2] == study.best_value  # mean at the last step
for t in study.trials:
    failed = t.params["layers"] == 5
    assert t.state.name == ("FAIL" if failed else "COMPLETE"), (t.number, t.state, t.params)
    if failed:
        assert t.user_attrs["fold_states"][1] == "failed" and "fold 1 failed" in t.user_attrs["failure_reason"]
try:
    importances = optuna.importance.get_param_importances(study)
except ImportError:  # Optuna 3.1's evaluators need scikit-learn
    importances = None
if importances is not None:
    assert set(importances) == {"x", "layers"}, importances
print("loaded %d configurations; best %d %s" % (len(study.trials), configuration, study.best_params))
PY
