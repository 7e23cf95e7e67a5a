#!/usr/bin/env bash
# Whether this machine lets gpusweep put each trial in a cgroup v2 of its own, found
# independently of gpusweep's code (so a bug there cannot make both agree on "no"):
# cgroup2 is mounted, and a child cgroup of our own can be made and a process moved in.
# Exit 0 and print "cgroup v2: available (<dir>)", or exit 1 and print why not.
# Usage: scripts/cgroup-probe.sh
set -uo pipefail
mount=$(awk '{ for (i = 1; i <= NF; i++) if ($i == "-" && $(i + 1) == "cgroup2") print $5 }' \
  /proc/self/mountinfo | head -1)
if [[ -z "$mount" ]]; then echo "cgroup v2: not available (no cgroup2 file system mounted)"; exit 1; fi
own=$(sed -n 's/^0:://p' /proc/self/cgroup)
probe="$mount$own/gpusweep-probe-$$"
probe=${probe//\/\//\/}
if ! mkdir "$probe" 2>/dev/null; then
  echo "cgroup v2: not available (cannot create a cgroup under $mount$own: not root, and no delegated subtree)"
  exit 1
fi
# Move a short-lived shell in and ask it where it is.
inside=$(sh -c "echo \$\$ > '$probe/cgroup.procs' 2>/dev/null && sed -n 's/^0:://p' /proc/self/cgroup")
# The shell has exited; its cgroup may take a moment to read as empty.
for _ in 1 2 3 4 5 6 7 8 9 10; do rmdir "$probe" 2>/dev/null && break; sleep 0.1; done
if [[ "$inside" != "$own/gpusweep-probe-$$" && "$inside" != "${own%/}/gpusweep-probe-$$" ]]; then
  echo "cgroup v2: not available (a process cannot be moved into a cgroup under $mount$own)"
  exit 1
fi
echo "cgroup v2: available ($mount$own)"
