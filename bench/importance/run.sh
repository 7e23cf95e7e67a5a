#!/usr/bin/env bash
# gpusweep's fANOVA parameter importance against Optuna's get_param_importances on the
# same trials of five test sweeps (see compare.py).  Usage: bench/importance/run.sh [TRIALS]
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${BUILD_DIR:-build}
scripts/install-deps.sh --bench
# Optuna's fANOVA fits scikit-learn's forest. python3-sklearn needs python3-scipy, which
# cannot be installed with apt next to libboost1.81-dev (python3-pythran -> libboost-dev
# = 1.74 conflicts), so their .debs are unpacked into the build directory instead, as
# bench/samplers/run.sh does for SciPy; liblbfgsb0 and python3-decorator do install.
deps="$PWD/$build/bench-deps"
if [[ ! -d "$deps/usr/lib/python3/dist-packages/sklearn" ]]; then
  mkdir -p "$deps"
  (cd "$deps" && apt-get download python3-scipy python3-sklearn python3-sklearn-lib \
      python3-joblib python3-threadpoolctl >/dev/null 2>&1 &&
    for deb in *.deb; do dpkg-deb -x "$deb" .; done)
fi
export PYTHONPATH="$deps/usr/lib/python3/dist-packages${PYTHONPATH:+:$PYTHONPATH}"
cmake -S . -B "$build" -DGPUSWEEP_BUILD_BENCH=ON >/dev/null  # the driver is a bench target
cmake --build "$build" -j2 --target gpusweep importance_of_export >/dev/null
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
/usr/bin/python3 bench/importance/compare.py "$build" "$work" "${1:-200}"
