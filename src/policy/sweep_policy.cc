#include "policy/sweep_policy.h"

#include <algorithm>
#include <cassert>

namespace gpusweep {

SweepPolicy::SweepPolicy(std::unique_ptr<Sampler> sampler) : sampler_(std::move(sampler)) {
  assert(sampler_ != nullptr);
  for (int number = 0; number < sampler_->total_trials(); ++number) queue_.push_back(number);
}

std::vector<Decision> SweepPolicy::Restore(const std::vector<TrialRecord>& recorded,
                                           FailedTrials failed) {
  queue_.clear();
  auto record = recorded.begin();  // ordered by number, like the queue
  for (int number = 0; number < total_trials(); ++number) {
    while (record != recorded.end() && record->number < number) ++record;
    if (record == recorded.end() || record->number != number ||
        record->state == TrialState::kInterrupted ||
        (failed == FailedTrials::kRetry && record->state == TrialState::kFailed))
      queue_.push_back(number);
  }
  return {};
}

Job SweepPolicy::NextJob(const CanStart& can_start) const {
  if (queue_.empty()) return Job{Job::Kind::kDone};
  // Backfill: the first queued trial whose resources are free, in queue order.
  for (int number : queue_)
    if (Startable(can_start, number)) {
      Job job;
      job.kind = Job::Kind::kStart;
      job.trial = number;
      return job;
    }
  return Job{Job::Kind::kWait};
}

void SweepPolicy::JobStarted(const Job& job) {
  // Near the front: only trials that could not fit are passed.
  const auto it = std::find(queue_.begin(), queue_.end(), job.trial);
  assert(it != queue_.end());
  if (it != queue_.end()) queue_.erase(it);
}

std::vector<int> SweepPolicy::Upcoming(std::size_t count) const {
  const std::size_t n = std::min(count, queue_.size());
  return std::vector<int>(queue_.begin(), queue_.begin() + static_cast<std::ptrdiff_t>(n));
}

int SweepPolicy::ToRun(const std::vector<TrialRecord>& recorded) const {
  return static_cast<int>(queue_.size() + std::count_if(recorded.begin(), recorded.end(), [](const TrialRecord& t) {
                            return t.state == TrialState::kRunning;
                          }));
}

Decision SweepPolicy::OnJobFinished(const Job& job, std::optional<double> value) {
  Decision decision;
  decision.trial = job.trial;
  decision.value = value;
  decision.verdict = Verdict::kComplete;
  return decision;
}

}  // namespace gpusweep
