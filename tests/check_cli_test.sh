#!/usr/bin/env bash
# `gpusweep check CONFIG` end to end: it prints the plan (trial count, each parameter's
# distribution in our words and what another tool's spelling was read as, the first
# trials, resources, scheduler rungs), writes nothing (no experiment directory, no
# journal, not even with --dir), exits 2 on a bad config as run does, and its first
# trials are the ones `gpusweep run` then runs.
# Usage: check_cli_test.sh GPUSWEEP_BINARY.
set -euo pipefail
gpusweep=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
cat > exp.yaml <<'YAML'
name: demo
command: [/bin/sh, -c, 'echo "{\"loss\": {{x}}}" >> "$GPUSWEEP_METRICS"']
metric: {name: loss, mode: min}
sampler: {type: random, trials: 4, seed: 3}
search_space:
  lr: {distribution: log_normal, mu: -7, sigma: 1}
  batch: {distribution: q_uniform, min: 1, max: 10, q: 3}
  opt: {values: [sgd, adam], probabilities: [0.3, 0.7]}
  x: {type: normal, mu: 0, sigma: 1, low: -1, high: 2, q: 0.5}
  n: {_type: randint, _value: [1, 10]}
scheduler: {type: asha, max_resource: 27}
resources: {gpus: none, cpu_slots: 1}
YAML
fail() { echo "FAIL: $*"; cat out.txt 2>/dev/null || true; exit 1; }

"$gpusweep" check exp.yaml --trials 4 > out.txt 2> err.txt || fail "check exited $?"
grep -q "valid; nothing was written" out.txt || fail "no verdict"
grep -q "experiment demo: 4 trials" out.txt || fail "trial count"
grep -q "lr: log-normal: exp(normal(mu -7, sigma 1))  (read from W&B's distribution: log_normal)" out.txt || fail "lognormal line"
grep -q "batch: uniform over \[1, 10\], rounded to multiples of 3  (read from W&B's distribution: q_uniform)" out.txt || fail "q_uniform line"
grep -q 'opt: choice of 2: \["sgd","adam"\], weights \[0.3,0.7\]' out.txt || fail "weights line"
grep -q "x: normal(mu 0, sigma 1), truncated to \[-1, 2\], rounded to multiples of 0.5" out.txt || fail "normal line"
grep -q "n: int 1..9  (read from NNI's _type: randint)" out.txt || fail "NNI line"
grep -q "scheduler: asha on epoch, rungs at 1, 3, 9, 27" out.txt || fail "rungs"
grep -q "resources: no GPUs; 1 CPU slot, at most 1 trial at once" out.txt || fail "resources"
grep -q "^objective: loss min$" out.txt || fail "objective line"
[ "$(ls -A)" = "$(printf 'err.txt\nexp.yaml\nout.txt')" ] || fail "check wrote: $(ls -A)"
"$gpusweep" check exp.yaml --dir "$work/elsewhere" > /dev/null || fail "check --dir"
[ ! -e "$work/elsewhere" ] || fail "check --dir created the directory"

# Several objectives, constraints, a reference and multivariate TPE are said as read.
cat > mo.yaml <<'YAML'
name: mo
command: [/bin/sh, -c, 'echo "{\"acc\": {{x}}, \"size\": 1, \"ms\": 2}" >> "$GPUSWEEP_METRICS"']
metrics: [{name: acc, mode: max}, {name: size, mode: min}]
constraints: [{metric: ms, max: 10}, {metric: size, min: 0.5, max: 4}]
hypervolume_reference: {acc: 0.5, size: 8}
sampler: {type: tpe, trials: 4, multivariate: true}
search_space:
  x: {type: uniform, low: 0, high: 1}
resources: {gpus: none, cpu_slots: 2}
YAML
"$gpusweep" check mo.yaml > mo.txt || { cat mo.txt; fail "check of mo.yaml exited $?"; }
grep -qF "objectives: acc max, size min; feasible when ms <= 10 and 0.5 <= size <= 4; hypervolume reference acc=0.5, size=8" mo.txt ||
  { cat mo.txt; fail "objectives line"; }
grep -qF "sampler: tpe, seed 0 (multivariate: one joint density; the first 10 trials drawn at random)" mo.txt ||
  { cat mo.txt; fail "tpe line"; }
sed -i 's/sampler: {type: tpe, trials: 4, multivariate: true}/sampler: {type: gp, trials: 4, seed: 2}/' mo.yaml
"$gpusweep" check mo.yaml > mo.txt || { cat mo.txt; fail "check of mo.yaml with gp exited $?"; }
grep -qF "sampler: gp, seed 2 (the first 10 trials drawn by sobol; ParEGO: the objectives scalarised under new weights each trial; a GP per constraint bound)" mo.txt ||
  { cat mo.txt; fail "gp line"; }
rm mo.yaml mo.txt

# The first trials check shows are the ones run runs.
sed -n '/^first 4 trials:/,/^resources:/p' out.txt | sed '1d;$d' | sed 's/^  [0-9]*  //' > shown.jsonl
"$gpusweep" run exp.yaml > run.log 2>&1 || { cat run.log; fail "run"; }
"$gpusweep" export --format json -o trials.json
python3 - <<'PY' || fail "check's first trials differ from run's"
import json
shown = [json.loads(line) for line in open("shown.jsonl")]
trials = json.load(open("trials.json"))
ran = {row["trial"]: {k[len("param."):]: v for k, v in row.items() if k.startswith("param.")}
       for row in trials}
assert len(shown) == 4, shown
for number, params in enumerate(shown):
    assert ran[number] == params, (number, ran[number], params)
PY

# An experiment already in the directory: check accepts what run would resume, and
# refuses, as run does, a config run with other settings.
"$gpusweep" check exp.yaml > /dev/null || fail "check of the experiment it would resume"
sed -e 's/trials: 4, seed: 3/trials: 3, seed: 3/' exp.yaml > shrunk.yaml
set +e
"$gpusweep" check shrunk.yaml > out.txt 2> err.txt
rc=$?
set -e
[ "$rc" = 2 ] || { cat err.txt; fail "check of a shrunk sweep exited $rc, not 2"; }
grep -qF "was run with a different config (changed: sampler.trials (4 -> 3) [a sweep may only grow" err.txt ||
  { cat err.txt; fail "shrunk sweep message"; }

# warm_start: check reads the source as run would, says what seeds the sampler, and its
# first trial (already model-based) is the one run runs; a source run would refuse is
# refused here too, with run's message and exit code.
sed -e 's/^name: demo/name: warm/' -e 's/^sampler: .*/sampler: {type: tpe, trials: 1, seed: 4, n_startup_trials: 2}/' \
  -e 's/, probabilities: \[0.3, 0.7\]//' exp.yaml > warm.yaml
echo "warm_start: {from: runs/demo}" >> warm.yaml
"$gpusweep" check warm.yaml --trials 1 > out.txt 2> err.txt || { cat err.txt; fail "check of warm.yaml exited $?"; }
grep -qF "warm start: 4 trials of $work/runs/demo seed the sampler (not rerun)" out.txt || fail "warm start line"
grep -qF "sampler: tpe, seed 4 (one density per parameter; the model from trial 0: the 4 warm-start trials count toward n_startup_trials 2)" out.txt ||
  fail "tpe line with warm start"
# Later preview trials are suggested while the earlier ones run (gp: as constant liars),
# so they spread out; drawn from the same history, gp's came out within 1e-6 of trial 0.
sed -e 's/^name: warm/name: warm3/' -e 's/^sampler: .*/sampler: {type: gp, trials: 3, seed: 4, n_startup_trials: 2}/' \
  warm.yaml > warm3.yaml
"$gpusweep" check warm3.yaml --trials 3 > preview.txt 2> err.txt || { cat err.txt; fail "check --trials 3"; }
sed -n '/^first 3 trials:/,/^resources:/p' preview.txt | sed '1d;$d' | sed 's/^  [0-9]*  //' > preview.jsonl
python3 - <<'PY' || { cat preview.txt; fail "the three preview trials are not spread out"; }
import json, math
rows = [json.loads(line) for line in open("preview.jsonl")]
assert len(rows) == 3, rows
def apart(a, b):
    return a["opt"] != b["opt"] or any(abs(math.log(a["lr"]) - math.log(b["lr"])) > 0.01 or
                                       abs(a[k] - b[k]) > 0.01 for k in ("batch", "x", "n"))
assert apart(rows[0], rows[1]) and apart(rows[0], rows[2]) and apart(rows[1], rows[2]), rows
PY
[ ! -e runs/warm ] || fail "check wrote runs/warm"
sed -n '/^first 1 trials:/,/^resources:/p' out.txt | sed '1d;$d' | sed 's/^  [0-9]*  //' > shown.jsonl
"$gpusweep" run warm.yaml > run.log 2>&1 || { cat run.log; fail "run of warm.yaml"; }
"$gpusweep" export runs/warm --format json -o warm.json
python3 - <<'PY' || fail "check's warm-started first trial differs from run's"
import json
shown = json.loads(open("shown.jsonl").readline())
row = json.load(open("warm.json"))[0]
assert {k[len("param."):]: v for k, v in row.items() if k.startswith("param.")} == shown, (row, shown)
PY
sed -e 's/^name: warm/name: warm2/' -e 's/mode: min}/mode: max}/' warm.yaml > warm2.yaml
set +e
"$gpusweep" check warm2.yaml > out.txt 2> err.txt
rc=$?
set -e
[ "$rc" = 2 ] || fail "a warm start from another mode exited $rc, not 2"
grep -qF "warm2.yaml:13: warm_start.from: $work/runs/demo optimised 'loss' (min), this experiment 'loss' (max)" err.txt ||
  { cat err.txt; fail "warm start message"; }

# A bad config: exit 2, located message, nothing written.
rm -rf runs
printf 'name: bad\ncommand: [echo]\nmetric: {name: loss, mode: min}\nsampler: {type: grid}\nsearch_space:\n  x: {type: normal}\n' > bad.yaml
set +e
"$gpusweep" check bad.yaml > out.txt 2> err.txt
rc=$?
set -e
[ "$rc" = 2 ] || fail "bad config exited $rc, not 2"
grep -q "bad.yaml:6:13: search_space.x.type: the grid sampler cannot enumerate a continuous normal parameter" err.txt || { cat err.txt; fail "message"; }
[ ! -e runs ] || fail "bad config wrote runs/"

# A conditional parameter's line says when it is active: a sub-space's leaves carry
# their choice's value, a `when:` its own condition.
cat > cond.yaml <<'YAML'
name: cond
command: [/bin/sh, -c, 'echo "{\"loss\": 1}" >> "$GPUSWEEP_METRICS"']
metric: {name: loss, mode: min}
sampler: {type: tpe, trials: 4}
search_space:
  model:
    values:
      - {name: svm, C: {type: loguniform, low: 0.01, high: 100}}
      - {name: knn, k: {type: int, low: 1, high: 9}}
  kernel: {values: [rbf, poly, linear], when: {model: {name: svm}}}
  gamma: {type: loguniform, low: 0.001, high: 1, when: {kernel: [rbf, poly]}}
resources: {gpus: none, cpu_slots: 1}
YAML
"$gpusweep" check cond.yaml > out.txt 2> err.txt || { cat err.txt; fail "check cond.yaml exited $?"; }
grep -qF 'model.C: log-uniform over [0.01, 100]; only when model = {"name":"svm"}' out.txt || fail "sub-space leaf's condition"
grep -qF 'gamma: log-uniform over [0.001, 1]; only when kernel in ["rbf","poly"]' out.txt || fail "when: condition"
grep -qF 'model: choice of 2: [{"name":"svm"},{"name":"knn"}]' out.txt || fail "unconditional choice"
echo "check_cli_test: ok"
