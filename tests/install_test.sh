#!/usr/bin/env bash
# The installed gpusweep works on its own: `cmake --install` into a scratch DESTDIR,
# then, from a directory outside the source and build trees, --version, a small CPU
# sweep whose Python trial imports the installed helper, and the installed man page
# and completions. Fails if the trial's `import gpusweep` (or anything the run records)
# reaches back into the source or build tree.
# Usage: tests/install_test.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$(cd "$1" && pwd)
source=$(cd "$2" && pwd)
scratch=$(mktemp -d /tmp/gpusweep-install-test.XXXXXX)
trap 'rm -rf "$scratch"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

prefix=/opt/gpusweep-test
DESTDIR=$scratch/root cmake --install "$build" --prefix "$prefix" > "$scratch/install.log"
installed=$scratch/root$prefix
gpusweep=$installed/bin/gpusweep
for file in bin/gpusweep share/gpusweep/python/gpusweep.py share/man/man1/gpusweep.1 \
    share/bash-completion/completions/gpusweep share/zsh/site-functions/_gpusweep \
    lib/cmake/gpusweep/gpusweepConfig.cmake include/gpusweep/trial.hpp \
    share/doc/gpusweep/README.md; do
  [[ -f $installed/$file ]] || fail "cmake --install left out $file"
done

"$gpusweep" --version | grep -Eq '^gpusweep [0-9]+\.[0-9]+\.[0-9]+ \(.+\)$' ||
  fail "--version prints '$("$gpusweep" --version)', not 'gpusweep X.Y.Z (revision)'"
bash -n "$installed/share/bash-completion/completions/gpusweep" || fail "bash completion does not parse"
# The man page covers every command --help lists.
for command in $("$gpusweep" --help | sed -n '/^Subcommands:/,$p' | awk 'NR > 1 {print $1}'); do
  grep -q "^\.SS $command\$" "$installed/share/man/man1/gpusweep.1" || fail "gpusweep.1 lacks $command"
done

# A sweep from outside both trees, with nothing of them on any search path.
work=$scratch/work
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
for helper in "$work"/runs/installed/trials/*/helper.txt; do
  [[ -f $helper ]] || fail "no trial wrote helper.txt (runs/: $(ls -R "$work/runs" | head -20))"
  path=$(cat "$helper")
  [[ $path == "$installed/share/gpusweep/python/gpusweep.py" ]] ||
    fail "the trial imported $path, not the installed helper under $installed"
done
# Nothing the run wrote names the source or build tree.
if grep -rlF -e "$source" -e "$build" "$work" 2>/dev/null; then
  fail "the files above, written by the installed gpusweep, name $source or $build"
fi
echo "ok: installed under $prefix, sweep ran with $installed/share/gpusweep/python/gpusweep.py"
