#!/usr/bin/env bash
# A small CPU sweep run by an installed gpusweep from a directory outside the source
# and build trees, with nothing of them on any search path: a grid of two Python
# trials that import the helper gpusweep puts on their PYTHONPATH and report it.
# Fails unless the best trial is x=2 and every trial imported EXPECTED_HELPER.
# Used by install_test.sh (cmake --install into a DESTDIR) and deb_test.sh (apt install).
# Usage: tests/installed_sweep.sh GPUSWEEP EXPECTED_HELPER WORK_DIR
set -euo pipefail
gpusweep=$1
helper_path=$2
work=$3
fail() { echo "FAIL: $*" >&2; exit 1; }

mkdir -p "$work"
cat > "$work/trial.py" <<'PY'
import gpusweep
with open("helper.txt", "w") as out:
    out.write(gpusweep.__file__)
gpusweep.report(acc=gpusweep.params()["x"])
PY
cat > "$work/sweep.yaml" <<YAML
name: installed
command: [/usr/bin/python3, $work/trial.py]
metric: {name: acc, mode: max}
sampler: {type: grid}
search_space:
  x: {type: choice, values: [1, 2]}
YAML
(cd "$work" && env -u PYTHONPATH "$gpusweep" run sweep.yaml > run.log 2>&1) ||
  { cat "$work/run.log"; fail "the installed gpusweep run failed"; }
(cd "$work" && "$gpusweep" best) | grep -q 'x.*2' || fail "best is not x=2: $(cd "$work" && "$gpusweep" best)"
found=0
for helper in "$work"/runs/installed/trials/*/helper.txt; do
  [[ -f $helper ]] || fail "no trial wrote helper.txt (runs/: $(ls -R "$work/runs" | head -20))"
  path=$(cat "$helper")
  [[ $path == "$helper_path" ]] || fail "the trial imported $path, not the installed helper $helper_path"
  found=$((found + 1))
done
[[ $found == 2 ]] || fail "$found trials wrote helper.txt, not 2"
