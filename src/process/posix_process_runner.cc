// posix_process_runner.cc — the real ProcessRunner: posix_spawn + ppoll + waitid.
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <map>
#include <set>

#include <fmt/format.h>

#include "process/containment.h"
#include "process/controller_guard.h"
#include "process/process_runner.h"
#include "process/signal_catcher.h"
#include "process/spawn.h"

namespace gpusweep {
namespace {

using Clock = std::chrono::steady_clock;

constexpr double kNoTimeoutAbove = 1e8;  // seconds; ~3 years is "forever"

std::atomic<bool> g_runner_exists{false};

// Frees the one-runner-per-process slot; a member declared first so it is released last.
struct RunnerSlot {
  RunnerSlot() = default;
  RunnerSlot(const RunnerSlot&) = delete;
  RunnerSlot& operator=(const RunnerSlot&) = delete;
  ~RunnerSlot() { g_runner_exists.store(false); }
};

ProcessExit ExitFromStatus(int status) {
  ProcessExit exit;
  if (WIFSIGNALED(status)) {
    exit.signaled = true;
    exit.signal = WTERMSIG(status);
  } else {
    exit.exit_code = WEXITSTATUS(status);
  }
  return exit;
}

void WaitForZombie(int pid, int* status) {
  while (::waitpid(pid, status, 0) < 0 && errno == EINTR) {
  }
}

// If `pid` has exited: `kill_rest()` (SIGKILL to what is left of the trial), reaps it
// and returns how it ended. The leader is only peeked at first (WNOWAIT): while it is
// an unreaped zombie its pid cannot be reused, so kill(-pid) cannot hit an unrelated,
// newer process group.
template <class KillRest>
std::optional<ProcessExit> TryReap(int pid, KillRest kill_rest) {
  siginfo_t info = {};
  int rc;
  do {
    rc = ::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT);
  } while (rc < 0 && errno == EINTR);
  if (rc < 0) {
    // ECHILD: someone else in this process reaped it; the status is lost, and with the
    // pid possibly reused already, its group must not be signalled.
    ProcessExit lost;
    lost.exit_code = -1;
    return lost;
  }
  if (info.si_pid == 0) return std::nullopt;  // still running
  kill_rest();
  int status = 0;
  WaitForZombie(pid, &status);
  return ExitFromStatus(status);
}

class PosixProcessRunner final : public ProcessRunner {
 public:
  explicit PosixProcessRunner(const ProcessRunnerOptions& options)
      : containment_(options),
        guard_(options.guard == ControllerGuard::kOn
                   ? GuardProcess::Start(containment_, options.guard_grace_seconds)
                   : std::nullopt) {}
  ~PosixProcessRunner() override;

  Expected<ProcessId> Spawn(const SpawnRequest& request) override;
  WaitOutcome Wait(double timeout_seconds) override;
  void SignalGroup(ProcessId pid, int sig) override;
  std::size_t running() const override { return running_.size(); }
  std::vector<ProcessEvent> TakeEnded() override { return ReapExited(); }
  int StopLeftovers(double grace_seconds) override {
    return containment_.StopLeftovers(grace_seconds);
  }
  ContainmentKind containment() const override { return containment_.kind(); }
  std::vector<int> TrialProcesses(ProcessId pid) const override {
    auto it = running_.find(pid);
    return it == running_.end() ? std::vector<int>{} : containment_.TrialProcesses(it->second, pid);
  }

 private:
  std::vector<ProcessEvent> ReapExited();
  std::set<int> OwnChildren() const;

  RunnerSlot slot_;
  SignalCatcher signals_;
  Containment containment_;
  std::optional<GuardProcess> guard_;
  std::map<ProcessId, int> running_;  // leader pid -> the trial's serial
  int next_serial_ = 0;
};

PosixProcessRunner::~PosixProcessRunner() {
  for (const auto& [pid, serial] : running_) containment_.Signal(serial, pid, SIGKILL);
  for (const auto& [pid, serial] : running_) {
    int status = 0;
    WaitForZombie(pid, &status);
    containment_.Release(serial);
  }
  containment_.Tidy(OwnChildren());
}

std::set<int> PosixProcessRunner::OwnChildren() const {
  std::set<int> own;
  for (const auto& [pid, serial] : running_) own.insert(pid);
  if (guard_) own.insert(guard_->pid());
  return own;
}

Expected<ProcessId> PosixProcessRunner::Spawn(const SpawnRequest& request) {
  const int serial = next_serial_++;
  GS_ASSIGN_OR_RETURN(TrialPlacement placement, containment_.Prepare(serial));
  // SIGTERM, not SIGKILL: a trial whose controller died gets the same chance to save
  // its work as on Ctrl-C; the guard SIGKILLs it after the grace period.
  SpawnPlacement where{placement.tag_entry, placement.cgroup_dir.get(), SIGTERM};
  Expected<int> pid = SpawnInNewProcessGroup(request, where);
  if (!pid) {
    containment_.Release(serial);
    return tl::unexpected(pid.error());
  }
  running_.emplace(*pid, serial);
  return *pid;
}

WaitOutcome PosixProcessRunner::Wait(double timeout_seconds) {
  const bool unlimited = std::isinf(timeout_seconds) || timeout_seconds > kNoTimeoutAbove;
  const double bounded = (std::isnan(timeout_seconds) || timeout_seconds < 0)
                             ? 0.0
                             : (unlimited ? 0.0 : timeout_seconds);
  const Clock::time_point deadline =
      Clock::now() + std::chrono::duration_cast<Clock::duration>(
                         std::chrono::duration<double>(bounded));
  WaitOutcome outcome;
  // Let signals that arrived while blocked be handled now, even when a child has
  // already exited and this call will not sleep: otherwise a stream of instant trials
  // keeps a Ctrl-C pending forever.
  signals_.SleepUntilSignal(0.0);
  for (;;) {
    outcome.exited = ReapExited();
    containment_.Tidy(OwnChildren());
    outcome.interrupt_signal = signals_.TakeInterrupt();
    if (!outcome.exited.empty() || outcome.interrupt_signal != 0) return outcome;
    if (unlimited) {
      signals_.SleepUntilSignal(std::nullopt);
      continue;
    }
    const double remaining = std::chrono::duration<double>(deadline - Clock::now()).count();
    if (remaining <= 0) return outcome;
    // Wakes on any SIGCHLD, including ones for children that other code in gpusweep
    // started (e.g. a GPU query); then nothing of ours is reaped and we sleep again.
    signals_.SleepUntilSignal(remaining);
  }
}

void PosixProcessRunner::SignalGroup(ProcessId pid, int sig) {
  // Only tracked (unreaped) leaders: their pid, and so their group id, cannot be reused.
  auto it = running_.find(pid);
  if (it != running_.end()) containment_.Signal(it->second, pid, sig);
}

std::vector<ProcessEvent> PosixProcessRunner::ReapExited() {
  std::vector<ProcessEvent> events;
  for (auto it = running_.begin(); it != running_.end();) {
    const auto [pid, serial] = *it;
    std::optional<ProcessExit> exit =
        TryReap(pid, [&, pid = pid, serial = serial] { containment_.Signal(serial, pid, SIGKILL); });
    if (!exit) {
      ++it;
      continue;
    }
    containment_.Release(serial);
    events.push_back(ProcessEvent{pid, *exit});
    it = running_.erase(it);
  }
  return events;
}

}  // namespace

std::unique_ptr<ProcessRunner> MakePosixProcessRunner(const ProcessRunnerOptions& options) {
  if (g_runner_exists.exchange(true)) return nullptr;
  return std::make_unique<PosixProcessRunner>(options);
}

std::string ProcessScopeFor(const std::filesystem::path& experiment_dir) {
  std::error_code ec;
  const std::string path = std::filesystem::weakly_canonical(
      std::filesystem::absolute(experiment_dir, ec), ec).string();
  std::uint64_t hash = 14695981039346656037ull;  // FNV-1a: stable across builds
  for (unsigned char c : path) hash = (hash ^ c) * 1099511628211ull;
  return fmt::format("{:016x}", hash);
}

}  // namespace gpusweep
