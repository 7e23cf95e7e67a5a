#!/bin/sh
# Builds scheduler_bench (module schedule only) and prints its Markdown tables.
# Usage: bench/schedulers/run.sh [scheduler_bench options, e.g. --seeds 3 --no-sweep
#        --no-horizon]
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD_DIR:-$root/build-bench-schedulers}
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release \
  -DGPUSWEEP_MODULES="schedule" -DGPUSWEEP_BUILD_BENCH=ON >/dev/null
make -C "$build" -j2 scheduler_bench >/dev/null
"$build/bench/schedulers/scheduler_bench" "$@"
