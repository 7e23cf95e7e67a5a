#include "schedule/job_book.h"

#include <algorithm>

namespace gpusweep::schedule_detail {

std::optional<Job> JobBook::Requeued() const {
  if (requeued_.empty()) return std::nullopt;
  return requeued_.front();
}

std::optional<int> JobBook::NextConfiguration() const {
  if (next_configuration_ >= configurations_) return std::nullopt;
  return next_configuration_;
}

void JobBook::Started(const Job& job) {
  auto same_trial = [&](const Job& queued) { return queued.trial == job.trial; };
  if (auto it = std::find_if(requeued_.begin(), requeued_.end(), same_trial);
      it != requeued_.end()) {
    requeued_.erase(it);
  }
  if (job.kind == Job::Kind::kStart)
    next_configuration_ = std::max(next_configuration_, job.trial + 1);
  running_[job.trial] = job;
}

void JobBook::Interrupted(const Job& job, Requeue requeue) {
  running_.erase(job.trial);
  if (requeue == Requeue::kYes) requeued_.push_back(job);
}

Job IdleJob(Job::Kind kind) {
  Job job;
  job.kind = kind;
  return job;
}

}  // namespace gpusweep::schedule_detail
