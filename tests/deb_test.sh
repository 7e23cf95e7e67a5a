#!/usr/bin/env bash
# The Debian package: `cpack -G DEB` makes gpusweep_<version>_amd64.deb holding the
# binary, the Python helper, the SDK's CMake package, man page, completions and docs
# under /usr, declaring the runtime libraries the binary links (dpkg-deb -I), and its
# binary runs from the unpacked tree. Where the machine allows (root, apt-get, no
# gpusweep package installed already, GPUSWEEP_TEST_NO_APT unset) it also installs the
# package with `apt-get install ./gpusweep_*.deb`, which must pull what it declares,
# runs the installed /usr/bin/gpusweep --version and a tiny sweep whose trials import
# /usr/share/gpusweep/python, and removes the package again. Skips (77) without dpkg-deb.
# Usage: tests/deb_test.sh BUILD_DIR VERSION
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "$1" && pwd)
version=$2
command -v dpkg-deb > /dev/null || { echo "skip: no dpkg-deb"; exit 77; }
scratch=$(mktemp -d /tmp/gpusweep-deb-test.XXXXXX)
trap 'rm -rf "$scratch"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

(cd "$build" && cpack -G DEB -B "$scratch" > "$scratch/cpack.log" 2>&1) ||
  { cat "$scratch/cpack.log"; fail "cpack -G DEB failed"; }
deb=$scratch/gpusweep_${version}_$(dpkg --print-architecture).deb
[[ -f $deb ]] || fail "no $(basename "$deb"); cpack made: $(ls "$scratch")"

dpkg-deb -c "$deb" | awk '{print $6}' > "$scratch/contents"
for file in ./usr/bin/gpusweep ./usr/share/gpusweep/python/gpusweep.py \
    ./usr/share/man/man1/gpusweep.1 ./usr/share/bash-completion/completions/gpusweep \
    ./usr/share/zsh/vendor-completions/_gpusweep ./usr/lib/cmake/gpusweep/gpusweepConfig.cmake \
    ./usr/include/gpusweep/trial.hpp ./usr/share/doc/gpusweep/README.md; do
  grep -qxF "$file" "$scratch/contents" || fail "the package lacks $file"
done
if grep -E '/(build|work|home|tmp)/' "$scratch/contents"; then fail "the package holds build-tree paths"; fi

depends=$(dpkg-deb -f "$deb" Depends)
for package in libyaml-cpp0.7 libsqlite3-0 libfmt9 libopencv-ml406 libcpp-httplib0.11 libc6 libstdc++6; do
  [[ ", $depends," == *", $package "* || ", $depends," == *", $package,"* ]] ||
    fail "Depends lacks $package: $depends"
done
[[ $(dpkg-deb -f "$deb" Package) == gpusweep && $(dpkg-deb -f "$deb" Version) == "$version" ]] ||
  fail "Package/Version: $(dpkg-deb -f "$deb" Package Version)"

dpkg-deb -x "$deb" "$scratch/root"
"$scratch/root/usr/bin/gpusweep" --version | grep -q "^gpusweep $version (" ||
  fail "the packaged binary's --version: $("$scratch/root/usr/bin/gpusweep" --version)"

# apt install, where installing a system package for a test is ours to do: the package
# replaces nothing a user installed, and is removed again whatever happens.
if [[ $(id -u) != 0 || -n ${GPUSWEEP_TEST_NO_APT:-} ]] || ! command -v apt-get > /dev/null; then
  echo "ok: $(basename "$deb"), Depends: $depends (apt install not tried: needs root and apt-get)"
  exit 0
fi
if dpkg-query -W -f '${Status}' gpusweep 2> /dev/null | grep -q 'install ok installed'; then
  echo "ok: $(basename "$deb"), Depends: $depends (apt install not tried: gpusweep is installed already)"
  exit 0
fi
trap 'dpkg --purge gpusweep > /dev/null 2>&1 || true; rm -rf "$scratch"' EXIT
DEBIAN_FRONTEND=noninteractive apt-get install -y "$deb" > "$scratch/apt.log" 2>&1 ||
  { tail -30 "$scratch/apt.log"; fail "apt-get install $(basename "$deb") failed"; }
/usr/bin/gpusweep --version | grep -q "^gpusweep $version (" ||
  fail "the installed /usr/bin/gpusweep --version: $(/usr/bin/gpusweep --version)"
"$here/installed_sweep.sh" /usr/bin/gpusweep /usr/share/gpusweep/python/gpusweep.py "$scratch/work"
dpkg --purge gpusweep > "$scratch/purge.log" 2>&1 || { cat "$scratch/purge.log"; fail "dpkg --purge gpusweep failed"; }
[[ ! -e /usr/bin/gpusweep ]] || fail "/usr/bin/gpusweep is still there after dpkg --purge"
echo "ok: $(basename "$deb"), Depends: $depends; apt-get installed it, /usr/bin/gpusweep ran a sweep, purged"
