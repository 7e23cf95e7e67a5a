#!/usr/bin/env bash
# Builds what `cmake --install` installs (the gpusweep binary, its man page and shell
# completions, the C++ SDK) in build/ and installs it under PREFIX (default /usr/local):
#   PREFIX/bin/gpusweep, PREFIX/share/gpusweep/python/gpusweep.py (trials import it),
#   PREFIX/lib/cmake/gpusweep (find_package(gpusweep)), PREFIX/share/man/man1/gpusweep.1,
#   bash and zsh completion, PREFIX/share/doc/gpusweep.
# Uses sudo when PREFIX is not writable. DESTDIR is honoured (staged installs).
# Usage: scripts/install.sh [PREFIX]
set -euo pipefail
prefix=${1:-/usr/local}
root=$(cd "$(dirname "$0")/.." && pwd)
build=${GPUSWEEP_BUILD_DIR:-$root/build}
jobs=${GPUSWEEP_JOBS:-$(nproc)}

if [[ ! -f $build/CMakeCache.txt ]]; then
  cmake -S "$root" -B "$build"
fi
cmake --build "$build" --target gpusweep_installables -j "$jobs"

target=${DESTDIR:-}$prefix
sudo=()
probe=$target
while [[ ! -e $probe ]]; do probe=$(dirname "$probe"); done
if [[ ! -w $probe ]] && (( EUID != 0 )); then sudo=(sudo --preserve-env=DESTDIR); fi
"${sudo[@]}" cmake --install "$build" --prefix "$prefix" --strip
echo "installed gpusweep under $target; try: $prefix/bin/gpusweep doctor"
