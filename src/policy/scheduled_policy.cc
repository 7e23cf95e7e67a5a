#include "policy/scheduled_policy.h"

#include <cassert>

namespace gpusweep {

ScheduledPolicy::ScheduledPolicy(std::unique_ptr<Sampler> sampler,
                                 std::unique_ptr<Scheduler> scheduler)
    : sampler_(std::move(sampler)), scheduler_(std::move(scheduler)) {
  assert(sampler_ != nullptr && scheduler_ != nullptr);
}

Job ScheduledPolicy::NextJob(const CanStart& can_start) const {
  const Job job = scheduler_->NextJob();
  const bool runs = job.kind == Job::Kind::kStart || job.kind == Job::Kind::kPromote;
  if (runs && !Startable(can_start, job.trial)) return Job{Job::Kind::kWait};
  return job;
}

FailureWords ScheduledPolicy::failure_words() const {
  return FailureWords{"trial", "failed trials stay failed: the scheduler counted them"};
}

Status ScheduledPolicy::AcceptRetryFailed() const {
  return Fail(ErrorCode::kInvalidArgument,
              "--retry-failed cannot be used with a scheduler: its decisions already counted "
              "the failed trials as the worst results; start a new experiment instead");
}

}  // namespace gpusweep
