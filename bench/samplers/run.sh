#!/usr/bin/env bash
# Sampler benchmark: gpusweep's samplers vs Optuna 3.1 on the same test functions
# (bench/README.md, "samplers"). Usage:
#   bench/samplers/run.sh [--seeds 20] [--evals 200] [--reps 20] [--timing-only]
# Builds gs_bench_samplers in $BUILD_DIR (default build/), checks that the C++ and Python
# test functions agree, runs both sides in-process, and writes bench/samplers/results/
# (raw per-seed regrets as JSON lines, summary.json, table.md). --timing-only redoes the
# suggestion timings and the table, keeping the optimisation runs already in results/.
set -euo pipefail
cd "$(dirname "$0")/../.."
seeds=20 evals=200 reps=20 runs=yes
while [[ $# -gt 0 ]]; do
  case "$1" in
    --seeds) seeds=$2; shift 2 ;;
    --evals) evals=$2; shift 2 ;;
    --reps) reps=$2; shift 2 ;;
    --timing-only) runs=no; shift ;;
    *) echo "usage: $0 [--seeds N] [--evals N] [--reps N] [--timing-only]" >&2; exit 2 ;;
  esac
done
build=${BUILD_DIR:-build}
py=/usr/bin/python3
out=bench/samplers/results
mkdir -p "$out"

# --- set-up: Optuna 3.1 and, for its QMCSampler, SciPy (Debian packages) -------------
scripts/install-deps.sh --bench
# (SciPy and scikit-learn come with --bench: Boost is Debian's default 1.74 now, so
# python3-scipy installs.)

# --- build ---------------------------------------------------------------------------
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGPUSWEEP_BUILD_BENCH=ON >/dev/null
cmake --build "$build" --target gs_bench_samplers -j"$(nproc)" >/dev/null
driver="$build/bench/samplers/gs_bench_samplers"

# --- identical definitions on both sides ------------------------------------------------
"$driver" points > "$out/points.jsonl"
(cd bench/samplers && "$py" run_optuna.py check "results/points.jsonl")

# --- optimisation runs and timing -------------------------------------------------------
start=$(date +%s)
if [[ $runs == yes ]]; then
  "$driver" run --seeds "$seeds" --evals "$evals" > "$out/gpusweep_run.jsonl"
  (cd bench/samplers && "$py" run_optuna.py run --seeds "$seeds" --evals "$evals" \
    > results/optuna_run.jsonl)
fi
# Time per suggestion: both sides back to back, so they see the same machine load.
: > "$out/gpusweep_time.jsonl"
: > "$out/optuna_time.jsonl"
for function in hartmann6 rosenbrock10; do
  "$driver" time --reps "$reps" --function "$function" >> "$out/gpusweep_time.jsonl"
  (cd bench/samplers && "$py" run_optuna.py time --reps "$reps" --function "$function" \
    >> results/optuna_time.jsonl)
done
echo "benchmark took $(( $(date +%s) - start )) s" >&2
"$py" bench/samplers/report.py "$out"
