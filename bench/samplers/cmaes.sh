#!/usr/bin/env bash
# CMA-ES and regularized evolution against Optuna 3.1 (bench/README.md, "cmaes and
# evolution"). Usage:
#   bench/samplers/cmaes.sh [--seeds 20] [--evals 200]
# cmaes (IPOP restarts, the default) and cmaes_noipop (restart: none) against Optuna's
# CmaEsSampler (python3-cmaes) with its defaults (no restarts) and with
# restart_strategy="ipop", on the continuous functions (branin, hartmann6, rosenbrock10,
# ackley5; cmaes refuses the choice parameter of "mixed"); evolution against gpusweep's
# random sampler on all five. Writes bench/samplers/results/cmaes_*.jsonl and
# cmaes_table.md (medians, IQR, Mann-Whitney U per function: report_cmaes.py).
set -euo pipefail
cd "$(dirname "$0")/../.."
seeds=20 evals=200
while [[ $# -gt 0 ]]; do
  case "$1" in
    --seeds) seeds=$2; shift 2 ;;
    --evals) evals=$2; shift 2 ;;
    *) echo "usage: $0 [--seeds N] [--evals N]" >&2; exit 2 ;;
  esac
done
build=${BUILD_DIR:-build}
py=/usr/bin/python3
out=bench/samplers/results
mkdir -p "$out"
scripts/install-deps.sh --bench  # Optuna 3.1 and python3-cmaes
"$py" -c 'import cmaes' || { echo "python3-cmaes is missing (scripts/install-deps.sh --bench)" >&2; exit 1; }

cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGPUSWEEP_BUILD_BENCH=ON >/dev/null
cmake --build "$build" --target gs_bench_samplers -j"$(nproc)" >/dev/null
driver="$build/bench/samplers/gs_bench_samplers"
"$driver" points > "$out/points.jsonl"
(cd bench/samplers && "$py" run_optuna.py check "results/points.jsonl")

continuous=branin,hartmann6,rosenbrock10,ackley5
start=$(date +%s)
"$driver" run --functions "$continuous" --samplers cmaes,cmaes_noipop --seeds "$seeds" \
  --evals "$evals" > "$out/cmaes_gpusweep.jsonl"
"$driver" run --samplers evolution,random --seeds "$seeds" --evals "$evals" \
  > "$out/cmaes_evolution.jsonl"
(cd bench/samplers && "$py" run_optuna.py run --functions "$continuous" \
  --samplers cmaes,cmaes_ipop --seeds "$seeds" --evals "$evals" > results/cmaes_optuna.jsonl)
echo "benchmark took $(( $(date +%s) - start )) s" >&2
"$py" bench/samplers/report_cmaes.py "$out"
