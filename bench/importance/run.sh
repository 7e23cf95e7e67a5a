#!/usr/bin/env bash
# gpusweep's fANOVA parameter importance against Optuna's get_param_importances on the
# same trials of five test sweeps (see compare.py).  Usage: bench/importance/run.sh [TRIALS]
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${BUILD_DIR:-build}
scripts/install-deps.sh --bench
# Optuna's fANOVA fits scikit-learn's forest: python3-sklearn comes with --bench.
cmake -S . -B "$build" -DGPUSWEEP_BUILD_BENCH=ON >/dev/null  # the driver is a bench target
cmake --build "$build" -j2 --target gpusweep importance_of_export >/dev/null
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
/usr/bin/python3 bench/importance/compare.py "$build" "$work" "${1:-200}"
