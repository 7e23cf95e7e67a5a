#!/usr/bin/env bash
# Conditional-space benchmark: gpusweep's tree-structured tpe (multivariate) and random
# against Optuna 3.1's TPESampler(multivariate=True, group=True) on three synthetic
# conditional problems and CASH on two of scikit-learn's data sets (bench/README.md,
# "conditional"). Usage:
#   bench/conditional/run.sh [--seeds 20] [--cash-seeds 20] [--evals 150]
# Builds gs_bench_cond in $BUILD_DIR (default build/), checks that the C++ and Python
# problems agree, runs both sides (CASH scored by cash.py on both: gpusweep's driver
# talks to one long-lived `cash.py serve DATA` over pipes) and writes
# bench/conditional/results/ (raw per-seed bests as JSON lines, table.md).
set -euo pipefail
cd "$(dirname "$0")/../.."
seeds=20 cash_seeds=20 evals=150
while [[ $# -gt 0 ]]; do
  case "$1" in
    --seeds) seeds=$2; shift 2 ;;
    --cash-seeds) cash_seeds=$2; shift 2 ;;
    --evals) evals=$2; shift 2 ;;
    *) echo "usage: $0 [--seeds N] [--cash-seeds N] [--evals N]" >&2; exit 2 ;;
  esac
done
build=${BUILD_DIR:-build}
py=/usr/bin/python3
out=bench/conditional/results
mkdir -p "$out"
scripts/install-deps.sh --bench   # Optuna 3.1, scikit-learn (Debian packages)
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGPUSWEEP_BUILD_BENCH=ON >/dev/null
cmake --build "$build" --target gs_bench_cond -j"$(nproc)" >/dev/null
driver="$build/bench/conditional/gs_bench_cond"

"$driver" points > "$out/points.jsonl"
(cd bench/conditional && "$py" run_optuna.py check results/points.jsonl)

start=$(date +%s)
synthetic=branches3,hierarchical,branches5
# Three streams at once (the CASH ones dominate: sklearn fits); CASH in parts of 10 seeds,
# so a part that finished is kept if the rest is stopped. Each CASH problem's data set:
# cash.py's PROBLEM_DATA.
declare -A data=([cash]=breast_cancer [cash_digits]=digits)
( "$driver" run --problems "$synthetic" --samplers tpe,random --seeds "$seeds" --evals "$evals" \
    > "$out/gpusweep_synthetic.jsonl"
  "$driver" run --problems "$synthetic" --samplers tpe_uv --seeds "$seeds" --evals "$evals" \
    > "$out/gpusweep_synthetic_uv.jsonl"
  cd bench/conditional && "$py" run_optuna.py run --problems "$synthetic" --seeds "$seeds" \
    --evals "$evals" > results/optuna_synthetic.jsonl ) &
pids=($!)
( for problem in cash cash_digits; do
    for ((part = 0; part < cash_seeds; part += 10)); do
      "$driver" run --problems "$problem" --samplers tpe,random --first-seed "$part" \
        --seeds $(( cash_seeds - part < 10 ? cash_seeds - part : 10 )) --evals "$evals" \
        --evaluator "$py bench/conditional/cash.py serve ${data[$problem]}" \
        > "$out/gpusweep_${problem}_$part.jsonl"
    done
  done ) &
pids+=($!)
( cd bench/conditional
  for problem in cash cash_digits; do
    for ((part = 0; part < cash_seeds; part += 10)); do
      "$py" run_optuna.py run --problems "$problem" --first-seed "$part" \
        --seeds $(( cash_seeds - part < 10 ? cash_seeds - part : 10 )) --evals "$evals" \
        > "results/optuna_${problem}_$part.jsonl"
    done
  done ) &
pids+=($!)
for pid in "${pids[@]}"; do wait "$pid"; done  # set -e: a stream that failed stops here
echo "benchmark took $(( $(date +%s) - start )) s" >&2
"$py" bench/conditional/report.py "$out"
