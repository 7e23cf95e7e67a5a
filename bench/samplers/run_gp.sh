#!/usr/bin/env bash
# GP sampler benchmark (bench/README.md, "samplers/run_gp.sh"): gpusweep's gp against
# gpusweep's tpe and Optuna 3.1's TPESampler() on the test functions of functions.h,
# 20 seeds x 100 evaluations (regret read at 50 and 100), and the gp's time per
# suggestion at several history sizes. Usage:
#   bench/samplers/run_gp.sh [--seeds 20] [--evals 100] [--reps 5]
# Writes bench/samplers/results/gp_{run,optuna_run,time}.jsonl and gp_table.md.
set -euo pipefail
cd "$(dirname "$0")/../.."
seeds=20 evals=100 reps=5
while [[ $# -gt 0 ]]; do
  case "$1" in
    --seeds) seeds=$2; shift 2 ;;
    --evals) evals=$2; shift 2 ;;
    --reps) reps=$2; shift 2 ;;
    *) echo "usage: $0 [--seeds N] [--evals N] [--reps N]" >&2; exit 2 ;;
  esac
done
build=${BUILD_DIR:-build}
py=/usr/bin/python3
out=bench/samplers/results
mkdir -p "$out"
scripts/install-deps.sh --bench
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGPUSWEEP_BUILD_BENCH=ON >/dev/null
cmake --build "$build" --target gs_bench_samplers -j"$(nproc)" >/dev/null
driver="$build/bench/samplers/gs_bench_samplers"
"$driver" points > "$out/points.jsonl"
(cd bench/samplers && "$py" run_optuna.py check "results/points.jsonl")

start=$(date +%s)
"$driver" run --samplers gp,tpe --seeds "$seeds" --evals "$evals" > "$out/gp_run.jsonl"
(cd bench/samplers && "$py" run_optuna.py run --samplers tpe --seeds "$seeds" --evals "$evals" \
  > results/gp_optuna_run.jsonl)
: > "$out/gp_time.jsonl"
for function in hartmann6 rosenbrock10 mixed; do
  "$driver" time --reps "$reps" --function "$function" --samplers gp,tpe \
    --history 10,25,50,100,200,1000 >> "$out/gp_time.jsonl"
done
echo "benchmark took $(( $(date +%s) - start )) s" >&2
"$py" bench/samplers/gp_report.py "$out"
