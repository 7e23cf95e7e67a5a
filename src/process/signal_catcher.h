// signal_catcher.h — module-internal: gpusweep's own SIGINT/SIGTERM/SIGHUP/SIGCHLD handling.
//
// While a SignalCatcher exists, those four signals stay blocked in the thread that made
// it and are let in only inside SleepUntilSignal's ppoll, ninja-style: a signal that
// arrives while gpusweep is busy stays pending and ends the next sleep at once, so the
// "check children, then sleep" loop cannot miss one. Handlers only record the signal
// (and write a byte to a self-pipe, which also wakes the sleep when some other thread
// took the signal). At most one SignalCatcher may exist at a time (global handlers).
#pragma once

#include <signal.h>

#include <optional>

#include "common/unique_fd.h"

namespace gpusweep {

class SignalCatcher {
 public:
  SignalCatcher();   // blocks the signals, installs the handlers
  ~SignalCatcher();  // restores the previous handlers, then the previous mask
  SignalCatcher(const SignalCatcher&) = delete;
  SignalCatcher& operator=(const SignalCatcher&) = delete;

  // Sleeps until one of the signals is handled or `timeout_seconds` pass (nullopt: no
  // limit). Returns early, without sleeping, if a signal is already pending.
  void SleepUntilSignal(std::optional<double> timeout_seconds);

  // The last SIGINT/SIGTERM/SIGHUP handled since the previous call, else 0.
  int TakeInterrupt();

 private:
  void DrainWakePipe();

  sigset_t previous_mask_;
  sigset_t sleep_mask_;  // previous_mask_ minus the four signals: used only inside ppoll
  struct sigaction previous_actions_[4];
  UniqueFd wake_read_;
  UniqueFd wake_write_;
};

}  // namespace gpusweep
