#!/bin/sh
# Builds bohb_bench (Release, modules policy, schedule, search) and prints its table.
# Usage: bench/bohb/run.sh [bohb_bench options, e.g. --seeds 20 --workers 8 --horizon 40]
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD_DIR:-$root/build-bench-bohb}
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release \
  -DGPUSWEEP_MODULES="config;search;schedule;policy" -DGPUSWEEP_BUILD_BENCH=ON >/dev/null
cmake --build "$build" -j2 --target bohb_bench >/dev/null
"$build/bench/bohb/bohb_bench" "$@"
