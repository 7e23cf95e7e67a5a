#!/usr/bin/env bash
# Installs the SDK component of a gpusweep build into a temporary prefix, builds the
# out-of-tree consumer/ project against it, and sweeps that program with the real
# gpusweep binary: the C++ trial reads params.json and reports through the protocol.
# Usage: install_test.sh BUILD_DIR GPUSWEEP_BINARY EXPECT_FIT(ON|OFF)
set -euo pipefail
build_dir=$1 gpusweep=$2 expect_fit=$3
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gpusweep-sdk-install.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

cmake --install "$build_dir" --component sdk --prefix "$tmp/prefix" >/dev/null
test -f "$tmp/prefix/include/gpusweep/trial.hpp"
if [[ -e "$tmp/prefix/bin/gpusweep" ]]; then
  echo "FAIL: the sdk component installed the controller binary" >&2; exit 1
fi
# Only the installed prefix is searched: the consumer cannot see the source tree.
cmake -S "$here/consumer" -B "$tmp/build" -DCMAKE_PREFIX_PATH="$tmp/prefix" \
  -DEXPECT_FIT="$expect_fit" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$tmp/build" >/dev/null
if grep -q -- "-I$(cd "$here/../include" && pwd)" "$tmp/build/CMakeFiles/quadratic_trial.dir/flags.make"; then
  echo "FAIL: the consumer compiled against the source tree, not the install" >&2; exit 1
fi

# Standalone: no params file -> a clear error naming the missing parameter.
if "$tmp/build/quadratic_trial" 2>"$tmp/err"; then
  echo "FAIL: ran without the required parameter x" >&2; exit 1
fi
grep -q '"x" is not a parameter' "$tmp/err"

cat >"$tmp/sweep.yaml" <<YAML
name: sdk-consumer
command: ["$tmp/build/quadratic_trial"]
metric: {name: loss, mode: min}
sampler: {type: grid}
search_space:
  x: {type: choice, values: [0.5, 1.0, 3.0]}
  steps: 2
resources: {gpus: none, cpu_slots: 2}
output_dir: $tmp/runs
timeout: 2m
YAML
"$gpusweep" run "$tmp/sweep.yaml" >"$tmp/run.log" 2>&1 || { cat "$tmp/run.log"; exit 1; }
for trial in "$tmp"/runs/trials/*/; do
  /usr/bin/python3 - "$trial" <<'PY'
import json, pathlib, sys
trial = pathlib.Path(sys.argv[1])
x = json.loads((trial / "params.json").read_text())["x"]
lines = [json.loads(l) for l in (trial / "metrics.jsonl").read_text().splitlines()]
assert [l["step"] for l in lines] == [1, 2], lines
assert abs(lines[-1]["loss"] - ((x - 1) ** 2 + 0.5)) < 1e-12, (x, lines)
PY
done
"$gpusweep" best "$tmp/runs" >"$tmp/best.txt"
grep -q '^  x = 1.0$' "$tmp/best.txt" || { echo "FAIL: best is not x = 1.0:" >&2; cat "$tmp/best.txt" >&2; exit 1; }
echo "installed SDK: consumer built and swept"
