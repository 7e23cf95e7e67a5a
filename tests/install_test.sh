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
"$source/tests/installed_sweep.sh" "$gpusweep" "$installed/share/gpusweep/python/gpusweep.py" "$work"
# Nothing the run wrote names the source or build tree.
if grep -rlF -e "$source" -e "$build" "$work" 2>/dev/null; then
  fail "the files above, written by the installed gpusweep, name $source or $build"
fi
echo "ok: installed under $prefix, sweep ran with $installed/share/gpusweep/python/gpusweep.py"
