#!/usr/bin/env bash
# From a fresh Debian 12 machine to the example's first trial (issue 26's target: 6
# minutes on 2 cores): makes, once, a root that holds what this kind of machine's image
# ships (debootstrap minbase + build-essential, cmake, git, ca-certificates,
# ninja-build, and the image's NodeSource node + npm and CA bundle, copied from this
# machine when it has them), then, in a fresh copy of it, clones HEAD of this repository
# and runs scripts/run-example.sh with every output line timestamped, until the first
# trial starts. Prints the phases (apt + npm, build, start of trial 0) and the load.
# Needs root and debootstrap. Nothing of the host is changed but ROOT and ROOT.base.
# Usage: bench/build/first_trial.sh [ROOT]   (default /var/tmp/gpusweep-fresh)
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
root=${1:-/var/tmp/gpusweep-fresh}
base=$root.base

make_base() {
  debootstrap --variant=minbase bookworm "$base.tmp" http://deb.debian.org/debian >/dev/null
  cp /etc/apt/sources.list.d/debian.sources "$base.tmp/etc/apt/sources.list.d/" 2>/dev/null || true
  cp /etc/resolv.conf "$base.tmp/etc/resolv.conf"
  chroot "$base.tmp" apt-get update -q >/dev/null
  DEBIAN_FRONTEND=noninteractive chroot "$base.tmp" apt-get install -y -q --no-install-recommends \
    build-essential cmake git ca-certificates ninja-build >/dev/null
  # This machine's image has NodeSource's node (with npm) rather than Debian's, and its
  # CA bundle trusts the sandbox's TLS proxy: the fresh machine would have both too.
  if dpkg-query -W -f='${Version}' nodejs 2>/dev/null | grep -q nodesource; then
    dpkg -L nodejs | while read -r f; do
      if [[ -f $f || -L $f ]]; then cp -a --parents "$f" "$base.tmp" 2>/dev/null || true; fi
    done
    cp -a --parents /usr/lib/node_modules/npm "$base.tmp" 2>/dev/null || true
  fi
  cp /etc/ssl/certs/ca-certificates.crt "$base.tmp/etc/ssl/certs/ca-certificates.crt"
  mv "$base.tmp" "$base"
}
[[ -d $base ]] || make_base

rm -rf "$root"
cp -a "$base" "$root"
git clone -q "$repo" "$root/root/gpusweep"
rev=$(git -C "$root/root/gpusweep" rev-parse --short HEAD)
for m in proc sys dev; do mount --bind "/$m" "$root/$m"; done
log=$root/first_trial.log
cleanup() {
  if [[ -n ${pid:-} ]]; then kill -- -"$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
  for m in dev sys proc; do umount -l "$root/$m" 2>/dev/null || true; done
}
trap cleanup EXIT

load=$(cut -d' ' -f1-3 /proc/loadavg)
start=$EPOCHREALTIME
# Each line of output with its time since the start, in seconds.
set -m
chroot "$root" bash -c 'cd /root/gpusweep && scripts/run-example.sh' 2>&1 |
  while IFS= read -r line; do
    printf '%7.1f %s\n' "$(bc <<<"$EPOCHREALTIME - $start")" "$line"
  done >"$log" &
pid=$!
set +m
until grep -q 'trial 0 started' "$log" 2>/dev/null; do
  if ! kill -0 "$pid" 2>/dev/null; then
    tail -30 "$log" >&2
    echo "first_trial: run-example.sh ended before trial 0 started (log: $log)" >&2
    exit 1
  fi
  sleep 0.5
done
# The build's lines are CMake's progress lines ("[ 42%] ..." or ninja's "[12/40] ...").
read -r build_start build_end trial < <(awk '
  / trial 0 started/ { print (bs == "" ? "-" : bs), (be == "" ? "-" : be), $1; exit }
  $2 ~ /^\[( *[0-9]+%|[0-9]+\/[0-9]+)\]$/ || $2 == "[" { if (bs == "") bs = $1; be = $1 }
' "$log")
echo "first_trial.sh at $rev, 1-min/5-min/15-min load before: $load"
printf '  %-52s %7s s\n' "install-deps (apt + npm ci): the build starts at" "$build_start" \
  "the build's last step at" "$build_end" "trial 0 started at" "$trial"
echo "  log: $log"
