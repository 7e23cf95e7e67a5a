// sweep_policy.h — a plain sweep: every trial of a sampler once, in number order.
//
// Trial k's params are the sampler's suggestion for k. Trials run in number order, but
// a trial waiting for more GPUs than are free does not hold back later trials that fit
// (backfill: GPUs are never idle while work that fits is queued). A trial interrupted
// by its cluster (node failure, preemption) runs again first. The state is the queue of
// trials still to run, rebuilt from the trial records on resume (Restore: trials
// without a record or interrupted, and with --retry-failed the failed ones), so its
// calls are not journaled. Growth (`trials:` raised on resume) just extends the queue.
#pragma once

#include <deque>
#include <memory>

#include "gpusweep/policy.h"
#include "gpusweep/sampler.h"

namespace gpusweep {

class SweepPolicy final : public SearchPolicy {
 public:
  // `sampler` != nullptr.
  explicit SweepPolicy(std::unique_ptr<Sampler> sampler);

  int total_trials() const override { return sampler_->total_trials(); }
  TrialStyle style() const override { return TrialStyle::kIterative; }
  bool journaled() const override { return false; }
  std::vector<Decision> Restore(const std::vector<TrialRecord>& recorded,
                                FailedTrials failed) override;

  Job NextJob(const CanStart& can_start) const override;
  void JobStarted(const Job& job) override;
  Suggestion Suggest(int number, const std::vector<TrialRecord>& history) const override {
    return sampler_->Suggest(number, history);
  }
  std::vector<int> Upcoming(std::size_t count) const override;
  bool reads_finished_trials() const override { return sampler_->reads_history(); }

  std::optional<Decision> OnReport(int, double, std::optional<double>) override {
    return std::nullopt;
  }
  Decision OnJobFinished(const Job& job, std::optional<double> value) override;
  void OnJobInterrupted(const Job& job) override { queue_.push_front(job.trial); }
  // Queued, and running (a re-attached job).
  int ToRun(const std::vector<TrialRecord>& recorded) const override;

 private:
  std::unique_ptr<Sampler> sampler_;
  std::deque<int> queue_;  // trial numbers still to start, in the order they start
};

}  // namespace gpusweep
