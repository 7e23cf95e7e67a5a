#!/usr/bin/env bash
# The main job: install what is missing, build, and run the Fashion-MNIST sweep.
# Running it again resumes the same experiment (finished trials are kept).
# Usage: scripts/run-example.sh [extra `gpusweep run` options, e.g. --gpus 0,1]
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh --examples
scripts/build.sh --main
exec build/gpusweep run examples/fashion-mnist/sweep.yaml "$@"
