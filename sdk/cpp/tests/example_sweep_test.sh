#!/usr/bin/env bash
# End-to-end: sweeps examples/cpp-fashion-mnist with the real gpusweep binary and the
# example's own sweep.yaml, shrunk to a tiny budget (3 trials, 1-2 epochs on a small
# part of the data) so that it takes seconds: TPE suggests, ASHA decides at epoch 1,
# the C++ trials read params.json, train with the Estimator and report per epoch.
# Usage: example_sweep_test.sh GPUSWEEP_BINARY EXAMPLE_BINARY SWEEP_YAML
set -euo pipefail
gpusweep=$1 example=$2 sweep=$3
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gpusweep-cpp-example.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# The shipped config with the budget shrunk; every edit must apply (grep -c checks).
sed -e "s|^command: .*|command: [\"$example\"]|" \
    -e 's|trials: 6, seed: 3, n_startup_trials: 3|trials: 3, seed: 3, n_startup_trials: 2|' \
    -e 's|max_resource: 4|max_resource: 2|' \
    -e 's|^  epochs: 4 |  epochs: 2 |' \
    -e 's|^  train_size: 10000 |  train_size: 600 |' \
    -e 's|^  val_size: 2000 |  val_size: 300 |' \
    -e 's|cpu_slots: auto|cpu_slots: 2|' \
    "$sweep" >"$tmp/sweep.yaml"
echo "output_dir: $tmp/runs" >>"$tmp/sweep.yaml"
for edited in "trials: 3" "max_resource: 2" "epochs: 2 " "train_size: 600 " "val_size: 300 " "$example"; do
  grep -qF "$edited" "$tmp/sweep.yaml" || { echo "FAIL: sweep.yaml changed; cannot set '$edited'" >&2; exit 1; }
done

OMP_NUM_THREADS=1 "$gpusweep" run "$tmp/sweep.yaml" >"$tmp/run.log" 2>&1 || { cat "$tmp/run.log"; exit 1; }
"$gpusweep" export "$tmp/runs" --format json -o "$tmp/export.json"
/usr/bin/python3 - "$tmp" <<'PY'
import json, pathlib, sys
tmp = pathlib.Path(sys.argv[1])
exported = json.loads((tmp / "export.json").read_text())
trials = exported["trials"] if isinstance(exported, dict) else exported
assert len(trials) == 3, trials
states = sorted(t["state"] for t in trials)
assert all(s in ("completed", "pruned") for s in states), states
assert "completed" in states, states
for trial_dir in sorted((tmp / "runs" / "trials").iterdir()):
    lines = [json.loads(l) for l in (trial_dir / "metrics.jsonl").read_text().splitlines()]
    assert lines, trial_dir
    assert [l["epoch"] for l in lines] == list(range(1, len(lines) + 1)), lines
    for line in lines:
        assert set(line) == {"epoch", "train_loss", "train_acc", "val_loss", "val_acc"}, line
    # 600 images, 1-2 epochs: clearly better than chance (0.1) if training works.
    assert max(l["val_acc"] for l in lines) > 0.4, (trial_dir, lines)
    # ASHA answers the trial's report at its rung (epoch 1) in verdicts.jsonl; the
    # trial waits for it, and a pruned one stops right there, saying so.
    verdicts = [json.loads(l) for l in (trial_dir / "verdicts.jsonl").read_text().splitlines()]
    assert verdicts and verdicts[0]["resource"] == 1, (trial_dir, verdicts)
    if verdicts[0]["verdict"] == "stop":
        assert len(lines) == 1, (trial_dir, lines)
        log = (trial_dir / "output.log").read_text()
        assert "pruned by gpusweep's scheduler at epoch 1" in log, log
print("states:", states)
PY
echo "C++ example swept"
