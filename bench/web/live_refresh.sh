#!/usr/bin/env bash
# What a live page costs the server per commit of a run on a large experiment (issue 25:
# "live updates still incremental"): web_fixture's N-trial ASHA experiment (20 points a
# trial), served by `gpusweep serve`; live_refresh.py commits as a run does (a trial
# finished, the next started) and times the page's polls after each commit.
# Usage: bench/web/live_refresh.sh [N] [COMMITS]   (default 100000 20)
# BUILD_DIR picks the build (default build), e.g. an older one to compare against.
# MARKS=0 first turns the fixture's journal into a version 3 one (no change marks), which
# the server reads whole at every commit, as every server did before version 4: the
# baseline, in the same script with the same binary.
set -euo pipefail
cd "$(dirname "$0")/../.."
n=${1:-100000}
commits=${2:-20}
source bench/web/serve_lib.sh
"$build/bench/web/web_fixture" "$work/runs" "live-$n" "$n" 20
if [[ "${MARKS:-1}" == 0 ]]; then
  /usr/bin/python3 -c 'import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
db.executescript("DROP INDEX trials_by_change; ALTER TABLE trials DROP COLUMN changed; PRAGMA user_version = 3")' \
    "$work/runs/live-$n/gpusweep.db"
fi
start_server "$work/runs"
echo "build: $build; load average: $(cut -d' ' -f1-3 /proc/loadavg)"
/usr/bin/python3 bench/web/live_refresh.py "$url" "$server" "$work/runs/live-$n/gpusweep.db" "live-$n" "$commits"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
