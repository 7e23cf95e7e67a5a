#!/usr/bin/env bash
# The dashboard under load: a 100-trial and a 10,000-trial experiment (20 intermediate
# values each), served by `gpusweep serve`, loaded in headless Chromium (page_load.py).
# Usage: bench/web/run.sh [SIZES...]   (default: 100 10000; e.g. 100 10000 100000 for
# issue 25's 100k page: its fixture has 2,000,000 points)
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${BUILD_DIR:-build}
cmake -S . -B "$build" -DGPUSWEEP_BUILD_BENCH=ON >/dev/null  # web_fixture is a bench target
cmake --build "$build" -j2 --target gpusweep web_fixture >/dev/null
work=$(mktemp -d)
server=""
cleanup() {
  if [[ -n "$server" ]]; then kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
start=$(date +%s.%N)
sizes=("$@")
[[ ${#sizes[@]} -gt 0 ]] || sizes=(100 10000)
experiments=()
for n in "${sizes[@]}"; do
  "$build/bench/web/web_fixture" "$work/runs" "trials-$n" "$n" 20
  experiments+=("trials-$n")
done
largest=${experiments[-1]}
echo "fixtures written in $(echo "$(date +%s.%N) - $start" | bc) s; journal of $largest $(du -h "$work/runs/$largest/gpusweep.db" | cut -f1)" >&2
"$build/gpusweep" serve --port 0 "$work/runs" >"$work/serve.out" 2>&1 &
server=$!
for _ in $(seq 100); do grep -q http "$work/serve.out" && break; sleep 0.1; done
url=$(grep -o 'http://[^ ]*' "$work/serve.out")
/usr/bin/python3 bench/web/page_load.py "$url" "$server" "${experiments[@]}"
