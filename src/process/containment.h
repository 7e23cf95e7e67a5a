// containment.h — module-internal: which processes belong to a trial, and ending them.
//
// A trial is everything its leader ever started, whatever it did with sessions and
// process groups. Two mechanisms, chosen once per run:
//   kCgroup     one cgroup v2 per trial (trial_cgroup.h): complete, kernel-enforced.
//   kTagged     the trial's process group, plus every process carrying the trial's
//               GPUSWEEP_PROCESS_TAG (process_tag.h), with gpusweep as child subreaper
//               so re-parented descendants come back to it (and are reaped by it).
// Both tag the trial's environment, so a later run can find leftovers of a dead one.
#pragma once

#include <optional>
#include <set>
#include <string>

#include "common/unique_fd.h"
#include "gpusweep/status.h"
#include "process/process_runner.h"
#include "process/trial_cgroup.h"

namespace gpusweep {

// What Spawn needs to place one trial.
struct TrialPlacement {
  std::string tag_entry;   // "GPUSWEEP_PROCESS_TAG=<scope>:<run>:<serial>"
  UniqueFd cgroup_dir;     // the trial's cgroup (O_DIRECTORY); invalid: no cgroup
};

class Containment {
 public:
  Containment(const ProcessRunnerOptions& options);
  ~Containment();
  Containment(const Containment&) = delete;
  Containment& operator=(const Containment&) = delete;

  Expected<TrialPlacement> Prepare(int serial);
  // Signals the trial's group (leader `pgid`) and every other process of the trial.
  void Signal(int serial, int pgid, int sig);
  // After the leader was reaped and everything SIGKILLed: drops the trial's cgroup
  // (now or, if processes are still exiting, in a later Tidy).
  void Release(int serial);
  // Retries cgroup removals; reaps re-parented orphans that exited (kTagged/kCgroup
  // alike, since gpusweep is subreaper in both).
  void Tidy(const std::set<int>& own_children);

  int StopLeftovers(double grace_seconds);
  // Ends everything of this run (the guard, after the controller died).
  int StopOwn(double grace_seconds);
  ContainmentKind kind() const { return cgroup_ ? ContainmentKind::kCgroup : ContainmentKind::kTagged; }
  std::vector<int> TrialProcesses(int serial, int pgid) const;
  std::string scope_prefix() const { return scope_ + ":"; }
  std::string run_prefix() const { return scope_ + ":" + run_ + ":"; }

 private:
  std::string TagPrefix(int serial) const;

  std::string scope_;
  std::string run_;
  std::optional<CgroupTree> cgroup_;
  std::set<int> unremoved_;   // trial cgroups still to remove
  std::set<int> adopted_;     // re-parented orphans seen alive, ours to reap
};

}  // namespace gpusweep
