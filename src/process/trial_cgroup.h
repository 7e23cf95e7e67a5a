// trial_cgroup.h — module-internal: one cgroup v2 per trial, when the machine lets us.
//
// Layout, under the cgroup gpusweep itself runs in (from /proc/self/cgroup, on the
// cgroup2 mount found in /proc/self/mountinfo):
//   gpusweep-<scope>/                 one per experiment (scope: see ProcessRunnerOptions)
//     run-<pid>-<start ticks>/        one per gpusweep process running it
//       trial-<serial>/               one per spawned trial; the leader joins before exec
// A cgroup holds every descendant whatever it does with sessions, process groups or
// double forks, so killing one kills the whole trial. Needs write access to gpusweep's
// own cgroup (root, or a delegated subtree as systemd gives with Delegate=yes).
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "common/unique_fd.h"
#include "gpusweep/status.h"

namespace gpusweep {

class CgroupTree {
 public:
  // The run's directory created under gpusweep's own cgroup, or nullopt when cgroup v2
  // is not mounted, gpusweep's cgroup is not writable, or mkdir fails (then the caller
  // falls back to process groups). `run_name` is "run-<pid>-<ticks>".
  static std::optional<CgroupTree> Create(const std::string& scope, const std::string& run_name);

  // Makes trial-<serial>/ and returns an O_DIRECTORY fd on it, for clone3's
  // CLONE_INTO_CGROUP (or for a child that writes "0" to its cgroup.procs before exec).
  Expected<UniqueFd> PrepareTrial(int serial) const;
  // Sends `sig` to every process in trial-<serial>. SIGKILL uses cgroup.kill when the
  // kernel has it (atomic against forks), else signals cgroup.procs until it is empty.
  void SignalTrial(int serial, int sig) const;
  // Removes trial-<serial>/ once it is empty; false if it still has processes.
  bool RemoveTrial(int serial) const;
  // Every process in the trial's cgroup (for tests and diagnostics).
  std::vector<int> TrialProcesses(int serial) const;

  // Other runs' directories of this scope (a gpusweep that died): SIGTERM everything in
  // them, wait up to `grace_seconds`, SIGKILL, then remove them. Returns how many
  // processes were found. Blocks.
  int StopOtherRuns(double grace_seconds) const;
  // The same for this run's own directory (used by the controller guard).
  int StopOwnRun(double grace_seconds) const;
  // Removes the run's directory (all trial dirs must be empty) and the scope's if empty.
  void RemoveRun() const;

  const std::filesystem::path& run_dir() const { return run_dir_; }

 private:
  CgroupTree(std::filesystem::path scope_dir, std::filesystem::path run_dir)
      : scope_dir_(std::move(scope_dir)), run_dir_(std::move(run_dir)) {}
  std::filesystem::path TrialDir(int serial) const;

  std::filesystem::path scope_dir_;
  std::filesystem::path run_dir_;
};

// Every pid listed in <dir>/cgroup.procs and in all cgroups below it.
std::vector<int> ProcessesInCgroupTree(const std::filesystem::path& dir);

}  // namespace gpusweep
