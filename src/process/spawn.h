// spawn.h — module-internal: start one trial process with posix_spawn.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "gpusweep/status.h"
#include "process/process_runner.h"

namespace gpusweep {

// Resolves `command` the way execvp would, but with the PATH found in `env` (not
// gpusweep's own) and relative names resolved against `cwd`, where the child will run.
// No PATH in `env` means "/bin:/usr/bin" (glibc's default); an empty PATH entry means ".".
// Returns an absolute path to an executable regular file, or Error{kProcess}:
// "command not found: foo (PATH=...)", "permission denied: foo", "empty command".
Expected<std::filesystem::path> ResolveExecutable(const std::string& command,
                                                  const std::vector<std::string>& env,
                                                  const std::filesystem::path& cwd);

// Where a trial's leader goes, set up by the child itself between fork and exec.
struct SpawnPlacement {
  std::string extra_env;        // one more "KEY=VALUE" (the process tag), "" for none
  int cgroup_dir_fd = -1;       // the cgroup the leader starts in (O_DIRECTORY); -1: none
  int parent_death_signal = 0;  // PR_SET_PDEATHSIG for the leader; 0 for none
};

// Starts `request` as the leader of a new process group (see ProcessRunner::Spawn for
// the child's setup) and returns its pid. Does not wait for or track the child.
// Not posix_spawn: the child must set PR_SET_PDEATHSIG, and be in its cgroup before
// exec so that no process of the trial is ever outside it. With a cgroup: clone3 with
// CLONE_INTO_CGROUP (Linux 5.7+; the child starts inside, no costly migration), else
// vfork, the child then moving itself in through cgroup.procs.
Expected<int> SpawnInNewProcessGroup(const SpawnRequest& request,
                                     const SpawnPlacement& placement = {});

}  // namespace gpusweep
