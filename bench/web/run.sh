#!/usr/bin/env bash
# The dashboard under load: a 100-trial and a 10,000-trial experiment (20 intermediate
# values each), served by `gpusweep serve`, loaded in headless Chromium (page_load.py).
# Usage: bench/web/run.sh
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
"$build/bench/web/web_fixture" "$work/runs" trials-100 100 20
"$build/bench/web/web_fixture" "$work/runs" trials-10000 10000 20
echo "fixtures written in $(echo "$(date +%s.%N) - $start" | bc) s; journal $(du -h "$work/runs/trials-10000/gpusweep.db" | cut -f1)" >&2
"$build/gpusweep" serve --port 0 "$work/runs" >"$work/serve.out" 2>&1 &
server=$!
for _ in $(seq 100); do grep -q http "$work/serve.out" && break; sleep 0.1; done
url=$(grep -o 'http://[^ ]*' "$work/serve.out")
/usr/bin/python3 bench/web/page_load.py "$url" "$server" trials-100 trials-10000
