// controller_guard.h — module-internal: ends a run's trials when gpusweep dies.
//
// gpusweep forks the guard when its process runner is made. The guard sits in its own
// process group (a kill of gpusweep's group or a Ctrl-C leaves it alone), with
// SIGINT/SIGTERM/SIGHUP blocked, reading a pipe whose only writer is gpusweep. A
// normal end writes "Q" and the guard exits. End of file without "Q" means gpusweep
// died (kill -9, OOM killer, crash): the guard stops every process of the run
// (Containment::StopOwn: SIGTERM, grace, SIGKILL) and exits. So trials never run
// unwatched for longer than the grace period.
#pragma once

#include <optional>

#include "common/unique_fd.h"

namespace gpusweep {

class Containment;

class GuardProcess {
 public:
  // nullopt if pipe or fork fails (the run goes on unguarded; a later run still stops
  // leftovers with StopLeftovers).
  static std::optional<GuardProcess> Start(Containment& containment, double grace_seconds);

  GuardProcess(GuardProcess&& other) noexcept;
  GuardProcess& operator=(GuardProcess&&) = delete;
  GuardProcess(const GuardProcess&) = delete;
  GuardProcess& operator=(const GuardProcess&) = delete;
  ~GuardProcess();  // tells the guard "Q" and reaps it

  int pid() const { return pid_; }

 private:
  GuardProcess(int pid, UniqueFd pipe) : pid_(pid), pipe_(std::move(pipe)) {}

  int pid_ = -1;
  UniqueFd pipe_;  // write end; closed by the kernel when gpusweep dies
};

}  // namespace gpusweep
