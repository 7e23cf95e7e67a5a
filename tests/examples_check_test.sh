#!/usr/bin/env bash
# Every example's config still plans: `gpusweep check` (the same PlanRun as `run`,
# nothing written) on each examples/*/*.yaml exits 0. A renamed flag, a removed key or a
# train.py moved would otherwise surface only when a user runs the example.
# Usage: tests/examples_check_test.sh GPUSWEEP_BINARY REPO_ROOT
set -uo pipefail
binary=$1 root=$2
failed=0 checked=0
for config in "$root"/examples/*/*.yaml; do
  # The C++ SDK's example runs a binary the build makes only where LibTorch is found.
  if [[ $config == */cpp-fashion-mnist/* && ! -x $root/build/fmnist-cnn-cpp ]]; then
    echo "skipped $config: build/fmnist-cnn-cpp not built (no LibTorch)"
    continue
  fi
  checked=$((checked + 1))
  if ! out=$("$binary" check "$config" 2>&1); then
    echo "FAIL: gpusweep check $config" >&2
    echo "$out" | tail -n 5 >&2
    failed=$((failed + 1))
  fi
done
echo "$checked example configs checked, $failed failed"
(( checked > 0 && failed == 0 ))
