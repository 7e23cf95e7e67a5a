#!/usr/bin/env bash
# Where the build's time goes, and what a build option saves: builds TARGET (default
# gpusweep, what scripts/run-example.sh builds) in fresh build directories, without a
# compiler cache, with OPTION=ON then OFF back to back (same machine, same load), and
# prints for each the wall time, the CPU time of the whole build (user + sys: less
# sensitive than wall time to what else the machine runs), the number of compile steps
# and the slowest of them (bench/build/time_compile.sh logs each).
# Usage: bench/build/run.sh [TARGET] [JOBS] [OPTION]
#   (default: gpusweep, nproc, GPUSWEEP_UNITY; GPUSWEEP_PCH is the other one)
set -euo pipefail
cd "$(dirname "$0")/../.."
target=${1:-gpusweep}
jobs=${2:-$(nproc)}
option=${3:-GPUSWEEP_UNITY}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for value in ON OFF; do
  dir=$work/$value
  mkdir -p "$dir"
  cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -D$option=$value \
    -DGPUSWEEP_BUILD_TESTS=OFF -DGPUSWEEP_BUILD_BENCH=OFF \
    -DCMAKE_CXX_COMPILER_LAUNCHER="$PWD/bench/build/time_compile.sh" >/dev/null
  load=$(cut -d' ' -f1 /proc/loadavg)
  GPUSWEEP_COMPILE_LOG=$dir/compile-times.txt /usr/bin/time -f "%e %U %S" -o "$dir/time" \
    cmake --build "$dir" -j"$jobs" --target "$target" >/dev/null
  read -r wall user sys <"$dir/time"
  awk -v opt=$option=$value -v wall="$wall" -v user="$user" -v sys="$sys" -v load="$load" \
    '{ n++; sum += $1 } END { printf "%s: wall %.0f s, CPU %.0f s (user %.0f + sys %.0f), %d compile steps (%.0f s of step time), 1-min load before %s\n", opt, wall, user + sys, user, sys, n, sum, load }' \
    "$dir/compile-times.txt"
  sort -rn "$dir/compile-times.txt" | head -6 | sed "s|$dir/||; s/^/    /"
done
