#!/usr/bin/env bash
# Configures and builds gpusweep into build/ (RelWithDebInfo: -O2, line tables, asserts on;
# warnings on).
# Usage: scripts/build.sh [--main] [extra cmake -D options]
#   With no option: everything, the tests, benchmark drivers and C++ example included
#   (what scripts/test.sh runs).
#   --main: only the gpusweep binary, what scripts/run-example.sh needs (tests,
#   benchmarks and fuzzers are CMake options, GPUSWEEP_BUILD_TESTS and
#   GPUSWEEP_BUILD_BENCH, off by default).
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc 2>/dev/null || echo 2)
# Ninja for a new build directory: it starts a library's objects before the libraries it
# links are built, which Make does not, so both cores stay busy through the unity
# batches. A build directory made with another generator keeps it.
generator=()
if [[ ! -f build/CMakeCache.txt ]] && command -v ninja >/dev/null 2>&1; then generator=(-G Ninja); fi
if [[ ${1:-} == --main ]]; then
  shift
  cmake -S . -B build "${generator[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGPUSWEEP_BUILD_TESTS=OFF \
    -DGPUSWEEP_BUILD_BENCH=OFF "$@" >/dev/null
  exec cmake --build build -j"$jobs" --target gpusweep
fi
cmake -S . -B build "${generator[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGPUSWEEP_BUILD_TESTS=ON \
  -DGPUSWEEP_BUILD_BENCH=ON "$@" >/dev/null
cmake --build build -j"$jobs"
