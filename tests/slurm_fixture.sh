#!/usr/bin/env bash
# CTest fixture of the SLURM tests: starts (or stops) the one-node cluster of
# scripts/slurm-cluster.sh in DIR. GPUSWEEP_SLURM_TESTS=skip: does nothing (the tests
# then skip themselves); otherwise a cluster that cannot start is a failure.
set -euo pipefail
command=$1
dir=$2
if [[ "${GPUSWEEP_SLURM_TESTS:-}" == skip ]]; then
  echo "slurm fixture: GPUSWEEP_SLURM_TESTS=skip, not touching a cluster"
  exit 0
fi
scripts="$(dirname "$0")/../scripts"
case "$command" in
  start)
    "$scripts/slurm-cluster.sh" stop "$dir" || true  # one a killed test run left
    rm -rf "$dir"
    "$scripts/slurm-cluster.sh" start "$dir" ;;
  stop)
    "$scripts/slurm-cluster.sh" stop "$dir" ;;
esac
