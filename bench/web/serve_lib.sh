# Sourced by bench/web/*.sh from the project root: builds gpusweep and web_fixture in
# $build (BUILD_DIR, default build), makes $work (removed at exit, with the server), and
# start_server ROOT starts `gpusweep serve` on ROOT, setting $server (its pid) and $url.
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
start_server() {
  "$build/gpusweep" serve --port 0 "$1" >"$work/serve.out" 2>&1 &
  server=$!
  for _ in $(seq 100); do grep -q http "$work/serve.out" && break; sleep 0.1; done
  url=$(grep -o 'http://[^ ]*' "$work/serve.out")
}
