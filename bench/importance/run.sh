#!/usr/bin/env bash
# gpusweep's fANOVA parameter importance against Optuna's get_param_importances on the
# same trials of five test sweeps (see compare.py). Needs Optuna and scikit-learn:
#   scripts/install-deps.sh --bench && bench/importance/run.sh [TRIALS]
set -euo pipefail
cd "$(dirname "$0")/../.."
cmake --build build -j2 --target gpusweep importance_of_export >/dev/null
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
/usr/bin/python3 bench/importance/compare.py build "$work" "${1:-200}"
