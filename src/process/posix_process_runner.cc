// posix_process_runner.cc — the real ProcessRunner: posix_spawn + ppoll + waitid.
#include <signal.h>
#include <sys/wait.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <set>

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

// If `pid` has exited: SIGKILLs its group, reaps it and returns how it ended.
// The leader is only peeked at first (WNOWAIT): while it is an unreaped zombie its
// pid cannot be reused, so kill(-pid) cannot hit an unrelated, newer process group.
std::optional<ProcessExit> TryReap(int pid) {
  siginfo_t info = {};
  int rc;
  do {
    rc = ::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT);
  } while (rc < 0 && errno == EINTR);
  if (rc < 0) {
    // ECHILD: someone else in this process reaped it; the status is lost, and with the
    // pid possibly reused already, its group must not be signalled.
    return ProcessExit{.signaled = false, .exit_code = -1, .signal = 0};
  }
  if (info.si_pid == 0) return std::nullopt;  // still running
  ::kill(-pid, SIGKILL);
  int status = 0;
  WaitForZombie(pid, &status);
  return ExitFromStatus(status);
}

class PosixProcessRunner final : public ProcessRunner {
 public:
  PosixProcessRunner() = default;
  ~PosixProcessRunner() override;

  Expected<ProcessId> Spawn(const SpawnRequest& request) override;
  WaitOutcome Wait(double timeout_seconds) override;
  void SignalGroup(ProcessId pid, int sig) override;
  std::size_t running() const override { return running_.size(); }

 private:
  std::vector<ProcessEvent> ReapExited();

  RunnerSlot slot_;
  SignalCatcher signals_;
  std::set<ProcessId> running_;
};

PosixProcessRunner::~PosixProcessRunner() {
  for (ProcessId pid : running_) ::kill(-pid, SIGKILL);
  for (ProcessId pid : running_) {
    int status = 0;
    WaitForZombie(pid, &status);
  }
}

Expected<ProcessId> PosixProcessRunner::Spawn(const SpawnRequest& request) {
  GS_ASSIGN_OR_RETURN(int pid, SpawnInNewProcessGroup(request));
  running_.insert(pid);
  return pid;
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
  if (running_.count(pid) != 0) ::kill(-pid, sig);
}

std::vector<ProcessEvent> PosixProcessRunner::ReapExited() {
  std::vector<ProcessEvent> events;
  for (auto it = running_.begin(); it != running_.end();) {
    std::optional<ProcessExit> exit = TryReap(*it);
    if (!exit) {
      ++it;
      continue;
    }
    events.push_back(ProcessEvent{*it, *exit});
    it = running_.erase(it);
  }
  return events;
}

}  // namespace

std::unique_ptr<ProcessRunner> MakePosixProcessRunner() {
  if (g_runner_exists.exchange(true)) return nullptr;
  return std::make_unique<PosixProcessRunner>();
}

}  // namespace gpusweep
