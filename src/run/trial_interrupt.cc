// TrialLoop::BeginInterrupt: Ctrl-C, SIGTERM or SIGHUP stops the running trials.
#include <csignal>

#include <fmt/format.h>

#include "gpusweep/trial.h"
#include "run/trial_loop.h"

namespace gpusweep {

void TrialLoop::BeginInterrupt(int signal, std::vector<ProcessEvent>& exited) {
  const double now = services_.monotonic_clock();
  if (interrupt_signal_ != 0) {
    // A second interrupt: the user does not want to wait for the grace period.
    for (auto& [pid, active] : active_) {
      active.kill_at = now;
    }
    observer_.OnWarning("second interrupt: killing every trial now");
    return;
  }
  // A trial that ended before the signal (reaped in the same Wait, or a job whose exit
  // record is written but that SLURM's next poll has not reported yet) is judged by how
  // it ended: sent the interrupt's SIGTERM, a finished trial would count as interrupted
  // and run again on resume.
  for (const ProcessEvent& event : exited) Reap(event);
  exited.clear();
  for (const ProcessEvent& event : services_.processes->TakeEnded()) Reap(event);
  interrupt_signal_ = signal;
  observer_.OnWarning(fmt::format(
      "interrupted by {}: stopping {} running trial{} (SIGTERM, SIGKILL after {})",
      SignalName(signal), active_.size(), active_.size() == 1 ? "" : "s",
      FormatDuration(config_.kill_grace_seconds)));
  for (auto& [pid, active] : active_) {
    services_.processes->SignalGroup(pid, SIGTERM);
    active.interrupt_sent = true;
    if (!active.kill_at) active.kill_at = now + config_.kill_grace_seconds;
  }
}

}  // namespace gpusweep
