// job_book.h — the bookkeeping every scheduler shares: which configurations were
// started, which jobs run, and which interrupted jobs must run again first.
//
// Interrupted jobs are queued in the order they were interrupted and come before any
// other work; JobStarted of a job of the same trial takes it off that queue. Every
// update is idempotent where replay could repeat it (starting trial k again never
// moves the next configuration backwards).
#pragma once

#include <deque>
#include <map>
#include <optional>

#include "gpusweep/scheduler.h"

namespace gpusweep::schedule_detail {

class JobBook {
 public:
  explicit JobBook(int configurations) : configurations_(configurations) {}

  int configurations() const { return configurations_; }
  // The oldest interrupted job not yet started again.
  std::optional<Job> Requeued() const;
  // The lowest configuration never started, if any remain.
  std::optional<int> NextConfiguration() const;
  bool AnyRunning() const { return !running_.empty(); }
  bool IsRunning(int trial) const { return running_.count(trial) != 0; }

  void Started(const Job& job);
  void Finished(const Job& job) { running_.erase(job.trial); }
  // kNo: the trial's outcome is already decided (it was stopped), so it does not run again.
  enum class Requeue { kYes, kNo };
  void Interrupted(const Job& job, Requeue requeue);

 private:
  int configurations_;
  int next_configuration_ = 0;
  std::deque<Job> requeued_;
  std::map<int, Job> running_;  // by trial: a trial runs at most one job at a time
};

// Job{kWait} / Job{kDone} with no trial.
Job IdleJob(Job::Kind kind);

}  // namespace gpusweep::schedule_detail
