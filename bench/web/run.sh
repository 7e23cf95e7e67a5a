#!/usr/bin/env bash
# The dashboard under load: a 100-trial and a 10,000-trial experiment (20 intermediate
# values each), served by `gpusweep serve`, loaded in headless Chromium (page_load.py).
# Usage: bench/web/run.sh [SIZES...]   (default: 100 10000; e.g. 100 10000 100000 for
# issue 25's 100k page: its fixture has 2,000,000 points)
set -euo pipefail
cd "$(dirname "$0")/../.."
source bench/web/serve_lib.sh
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
start_server "$work/runs"
/usr/bin/python3 bench/web/page_load.py "$url" "$server" "${experiments[@]}"
