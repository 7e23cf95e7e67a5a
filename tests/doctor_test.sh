#!/usr/bin/env bash
# `gpusweep doctor` with the fake libnvidia-ml (src/resources/fake_nvml.cc) scripting
# two GPUs, and without a working NVML; with and without python3 and SLURM's commands
# on PATH. Each missing piece is a "missing" line followed by what to do, and doctor
# exits 0 whatever is missing; only a failing stdout makes it fail.
# Usage: tests/doctor_test.sh GPUSWEEP_BINARY FAKE_NVML_LIBRARY
set -euo pipefail
gpusweep=$(realpath "$1")
fake_nvml=$(realpath "$2")
scratch=$(mktemp -d /tmp/gpusweep-doctor-test.XXXXXX)
trap 'rm -rf "$scratch"' EXIT
fail() { echo "FAIL: $*" >&2; echo "--- doctor printed:" >&2; cat "$scratch/out" >&2; exit 1; }
expect() { grep -Eq -- "$1" "$scratch/out" || fail "no line matching '$1'"; }
# A line, then the advice under it: "missing <topic> ..." followed by "   -> ...".
expect_missing() {
  grep -A1 -E "^missing +$1 " "$scratch/out" | tail -1 | grep -Eq '^ +-> .+' ||
    fail "no 'missing $1' line with advice under it"
}

mkdir -p "$scratch/lib" "$scratch/bin" "$scratch/empty"
ln -s "$fake_nvml" "$scratch/lib/libnvidia-ml.so.1"
echo "gpu 0 used 1073741824" > "$scratch/nvml-script"  # 1 GiB of GPU 0 taken
ln -s /usr/bin/python3 "$scratch/bin/python3"  # Debian's, not a shim that needs a PATH
for command in sbatch squeue scancel sacct; do printf '#!/bin/sh\nexit 0\n' > "$scratch/bin/$command"; done
chmod +x "$scratch"/bin/*

doctor() { env "$@" "$gpusweep" doctor > "$scratch/out" 2>&1; }

# Two scripted GPUs, python3 and SLURM on PATH.
doctor LD_LIBRARY_PATH="$scratch/lib" FAKE_NVML_SCRIPT="$scratch/nvml-script" PATH="$scratch/bin" ||
  fail "exit $? with everything there"
expect '^gpusweep [0-9.]+ \(.+\)$'
expect '^ok +NVML +2 GPUs$'
expect '^ok +GPU 0 +Fake A100, 40\.0 GiB, 39\.0 GiB free$'
expect '^ok +GPU 1 +Fake H100, 80\.0 GiB, 80\.0 GiB free$'
expect '^(ok +containment +a cgroup v2 per trial|missing +containment +process group)'
expect "^ok +python3 +$scratch/bin/python3 \\(Python 3\\."
expect '^ok +gpusweep\.py +/.*/gpusweep\.py$'
expect '^(ok|missing) +torch '
expect '^ok +SLURM +client commands found: sbatch squeue scancel sacct$'

# No NVML (the driver is not loaded), no python3, no SLURM: still exit 0.
doctor LD_LIBRARY_PATH="$scratch/lib" FAKE_NVML_MODE=driver_not_loaded PATH="$scratch/empty" ||
  fail "exit $? with things missing"
expect_missing NVML
expect 'trials run on CPU slots'
expect_missing python3
expect_missing SLURM
expect 'not on PATH: sbatch squeue scancel sacct'

# A driver that fails is a finding too, with its NVML message.
doctor LD_LIBRARY_PATH="$scratch/lib" FAKE_NVML_MODE=init_fails PATH="$scratch/bin" ||
  fail "exit $? with a failing driver"
expect_missing NVML
expect 'nvmlInit_v2 failed'

# The fallback when asked for: containment says so and how to undo it.
doctor LD_LIBRARY_PATH="$scratch/lib" GPUSWEEP_CONTAINMENT=tagged PATH="$scratch/bin"
expect_missing containment

# Its own output failing is the one failure.
if "$gpusweep" doctor > /dev/full 2> "$scratch/out"; then fail "exit 0 writing to /dev/full"; fi
expect 'could not write'
echo "ok: doctor's findings with and without the fake NVML, python3 and SLURM"
