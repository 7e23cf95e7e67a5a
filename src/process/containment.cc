// containment.cc — cgroup per trial, or process group + tag + subreaper (containment.h).
#include "process/containment.h"

#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <thread>

#include <fmt/format.h>

#include "process/process_tag.h"

namespace gpusweep {
namespace {

std::string RunName() {
  const int pid = ::getpid();
  return fmt::format("run-{}-{}", pid, ProcessStartTicks(pid).value_or(0));
}

std::string ScopeOrDefault(const std::string& scope) {
  return scope.empty() ? fmt::format("pid{}", ::getpid()) : scope;
}

}  // namespace

Containment::Containment(const ProcessRunnerOptions& options)
    : scope_(ScopeOrDefault(options.scope)), run_(RunName()) {
  // Orphans of every trial come back to gpusweep instead of init: it can reap them and,
  // in kTagged, find those that left their process group.
  ::prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
  if (options.containment == ContainmentChoice::kAuto) cgroup_ = CgroupTree::Create(scope_, run_);
}

Containment::~Containment() {
  if (!cgroup_) return;
  // The runner killed every trial; their last processes may still be exiting.
  for (int attempt = 0; attempt < 50 && !unremoved_.empty(); ++attempt) {
    Tidy({});
    if (!unremoved_.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  cgroup_->RemoveRun();
}

std::string Containment::TagPrefix(int serial) const {
  return fmt::format("{}{}:", run_prefix(), serial);  // ":" ends it: trial 1 is not 10
}

Expected<TrialPlacement> Containment::Prepare(int serial) {
  TrialPlacement placement;
  placement.tag_entry = fmt::format("{}={}", kProcessTagVariable, TagPrefix(serial));
  if (cgroup_) {
    GS_ASSIGN_OR_RETURN(placement.cgroup_dir, cgroup_->PrepareTrial(serial));
  }
  return placement;
}

void Containment::Signal(int serial, int pgid, int sig) {
  if (pgid > 1) ::kill(-pgid, sig);
  if (cgroup_) return cgroup_->SignalTrial(serial, sig);
  const std::vector<int> own = OwnChildren();
  for (int pid : ProcessesTagged(TagPrefix(serial))) {
    ::kill(pid, sig);
    if (std::find(own.begin(), own.end(), pid) != own.end()) adopted_.insert(pid);
  }
}

void Containment::Release(int serial) {
  if (cgroup_ && !cgroup_->RemoveTrial(serial)) unremoved_.insert(serial);
}

void Containment::Tidy(const std::set<int>& own_children) {
  for (auto it = unremoved_.begin(); it != unremoved_.end();)
    it = cgroup_ && cgroup_->RemoveTrial(*it) ? unremoved_.erase(it) : std::next(it);
  for (int child : OwnChildren()) {
    if (own_children.count(child) != 0 || adopted_.count(child) != 0) continue;
    if (ProcessTag(child).starts_with(run_prefix())) adopted_.insert(child);
  }
  for (auto it = adopted_.begin(); it != adopted_.end();) {
    int status = 0;
    const pid_t reaped = ::waitpid(*it, &status, WNOHANG);
    it = reaped == *it || reaped < 0 ? adopted_.erase(it) : std::next(it);
  }
}

int Containment::StopLeftovers(double grace_seconds) {
  int found = cgroup_ ? cgroup_->StopOtherRuns(grace_seconds) : 0;
  found += StopTagged(scope_prefix(), run_prefix(), grace_seconds);
  return found;
}

int Containment::StopOwn(double grace_seconds) {
  if (cgroup_) return cgroup_->StopOwnRun(grace_seconds);
  return StopTagged(run_prefix(), {}, grace_seconds);
}

std::vector<int> Containment::TrialProcesses(int serial, int pgid) const {
  std::vector<int> pids = ProcessesInGroup(pgid);
  std::vector<int> more = cgroup_ ? cgroup_->TrialProcesses(serial) : ProcessesTagged(TagPrefix(serial));
  pids.insert(pids.end(), more.begin(), more.end());
  std::sort(pids.begin(), pids.end());
  pids.erase(std::unique(pids.begin(), pids.end()), pids.end());
  return pids;
}

}  // namespace gpusweep
