#!/usr/bin/env bash
# The main job: install what is missing, build, and run the Fashion-MNIST sweep.
# Running it again resumes the same experiment (finished trials are kept).
# Usage: scripts/run-example.sh [extra `gpusweep run` options, e.g. --gpus 0,1]
set -euo pipefail
cd "$(dirname "$0")/.."
# What the build needs first (compiler, libraries, the dashboard's npm packages); then
# the example's own packages (PyTorch, the data set: mostly download and unpacking) go
# in while the binary compiles, instead of before it.
scripts/install-deps.sh
apt_log=$(mktemp)
trap 'rm -f "$apt_log"' EXIT
scripts/install-deps.sh --extras-only --examples >"$apt_log" 2>&1 &
apt_pid=$!
build_status=0
scripts/build.sh --main || build_status=$?
apt_status=0
wait "$apt_pid" || apt_status=$?
if ((apt_status != 0)); then
  cat "$apt_log" >&2
  echo "run-example: installing the example's packages failed (above)" >&2
  exit 1
fi
if ((build_status != 0)); then exit "$build_status"; fi
exec build/gpusweep run examples/fashion-mnist/sweep.yaml "$@"
