#!/usr/bin/env bash
# Multi-objective benchmark: gpusweep's nsga2, tpe, tpe_mv (`multivariate: true`) and gp
# (ParEGO with constrained EI; and random, as the floor) against Optuna 3.1's
# NSGAIISampler and multi-objective TPESampler (multivariate=False and True) on ZDT1-3,
# DTLZ2 and C2-DTLZ2 (bench/README.md, "multiobjective"), then seconds per tpe suggestion at 500 trials of
# history on both sides (time_suggest.py). Usage:
#   bench/multiobjective/run.sh [--seeds 20] [--evals 200] [--population 50] [--optuna-samplers nsga2,tpe,tpe_mv]
# Builds gs_bench_mo in $BUILD_DIR (default build/), checks that the C++ and Python
# problems agree, runs both sides in-process, scores both with gpusweep's hypervolume
# (include/gpusweep/pareto.h) and writes bench/multiobjective/results/.
set -euo pipefail
cd "$(dirname "$0")/../.."
seeds=20 evals=200 population=50 optuna_samplers=nsga2,tpe,tpe_mv
while [[ $# -gt 0 ]]; do
  case "$1" in
    --seeds) seeds=$2; shift 2 ;;
    --evals) evals=$2; shift 2 ;;
    --population) population=$2; shift 2 ;;
    --optuna-samplers) optuna_samplers=$2; shift 2 ;;
    *) echo "usage: $0 [--seeds N] [--evals N] [--population N] [--optuna-samplers LIST]" >&2; exit 2 ;;
  esac
done
build=${BUILD_DIR:-build}
out=bench/multiobjective/results
mkdir -p "$out"
scripts/install-deps.sh --bench
cmake -S . -B "$build" -DGPUSWEEP_BUILD_BENCH=ON > /dev/null
cmake --build "$build" --target gs_bench_mo -j"$(nproc)"
driver=$build/bench/multiobjective/gs_bench_mo

"$driver" points > "$out/points.jsonl"
bench/multiobjective/run_optuna.py --check "$out/points.jsonl"
"$driver" run --samplers nsga2,tpe,tpe_mv,gp,random --seeds "$seeds" --evals "$evals" --population "$population" \
  > "$out/gpusweep.jsonl"
bench/multiobjective/run_optuna.py --samplers "$optuna_samplers" --seeds "$seeds" --evals "$evals" \
  --population "$population" | "$driver" score > "$out/optuna.jsonl"
/usr/bin/python3 bench/multiobjective/report.py "$out"
/usr/bin/python3 bench/multiobjective/time_suggest.py --driver "$driver" --problems zdt1,zdt2,dtlz2,c2dtlz2 \
  --history 500 --repeat 10 --optuna-repeat 3 > "$out/time_suggest.jsonl"
