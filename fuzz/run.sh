#!/usr/bin/env bash
# Builds the libFuzzer targets with clang (ASan + UBSan) and runs each for a while,
# one at a time, at low priority.
#
# Usage: fuzz/run.sh [--seconds N] [--build-dir DIR] [--merge] [target...]
#   --seconds N   how long each target runs (default 30)
#   --build-dir   where to build (default build-fuzz/ at the repository root)
#   --merge       add what the run found to the kept corpus fuzz/corpus/<target>/,
#                 minimised (-merge=1); without it the kept corpus is only read
# Exit status: 0 when every target ran its time without a finding; otherwise the
# finding's reproducer is under <build-dir>/findings/<target>/ and the status is 1.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
seconds=30
build_dir="$root/build-fuzz"
merge=0
targets=()
while (($#)); do
  case "$1" in
    --seconds) seconds=$2; shift 2 ;;
    --build-dir) build_dir=$2; shift 2 ;;
    --merge) merge=1; shift ;;
    -*) echo "fuzz/run.sh: unknown option $1" >&2; exit 2 ;;
    *) targets+=("$1"); shift ;;
  esac
done
((${#targets[@]})) || targets=(config_fuzzer metrics_line_fuzzer)

cmake -S "$root/fuzz" -B "$build_dir" -DCMAKE_CXX_COMPILER=clang++-14 \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build_dir" -j2 --target "${targets[@]}"

status=0
for target in "${targets[@]}"; do
  kept="$root/fuzz/corpus/${target%_fuzzer}"
  work="$build_dir/corpus/$target"      # new inputs land here, not in the repository
  findings="$build_dir/findings/$target"
  mkdir -p "$work" "$findings"
  dict=()
  [[ -f "$root/fuzz/${target%_fuzzer}.dict" ]] && dict=(-dict="$root/fuzz/${target%_fuzzer}.dict")
  echo "fuzz: $target for ${seconds}s" >&2
  if ! nice -n 15 "$build_dir/$target" -max_total_time="$seconds" -timeout=10 \
      -rss_limit_mb=2048 -max_len=8192 -print_final_stats=1 "${dict[@]}" \
      -artifact_prefix="$findings/" "$work" "$kept"; then
    echo "fuzz: $target found a problem; reproducer in $findings/" >&2
    status=1
  fi
  if ((merge)); then
    nice -n 15 "$build_dir/$target" -merge=1 "${dict[@]}" -artifact_prefix="$findings/" \
      "$kept" "$work" >/dev/null 2>&1
  fi
done
exit $status
