// scheduled_policy.h — a sampler and a scheduler: the sampler gives each trial its
// params, the scheduler (median rule, successive halving, ASHA, Hyperband; unchanged
// inside, gpusweep/scheduler.h) says which trial runs next with which budget, judges
// reports and decides pauses, promotions and stops.
//
// Jobs run in the scheduler's order (ASHA's promotions first): a job whose resources
// are not free waits for them instead of being passed by later ones. Every call is
// journaled and replayed (the scheduler's state is a function of the calls).
#pragma once

#include <memory>

#include "gpusweep/policy.h"
#include "gpusweep/sampler.h"
#include "gpusweep/scheduler.h"

namespace gpusweep {

class ScheduledPolicy : public SearchPolicy {
 public:
  // Both != nullptr; `scheduler` built for sampler->total_trials() configurations.
  ScheduledPolicy(std::unique_ptr<Sampler> sampler, std::unique_ptr<Scheduler> scheduler);

  int total_trials() const override { return sampler_->total_trials(); }
  TrialStyle style() const override { return scheduler_->style(); }
  bool judges_reports() const override { return style() == TrialStyle::kIterative; }
  bool journaled() const override { return true; }

  Job NextJob(const CanStart& can_start) const override;
  void JobStarted(const Job& job) override { scheduler_->JobStarted(job); }
  Suggestion Suggest(int number, const std::vector<TrialRecord>& history) const override {
    return sampler_->Suggest(number, history);
  }

  std::optional<Decision> OnReport(int trial, double resource,
                                   std::optional<double> value) override {
    return scheduler_->OnReport(trial, resource, value);
  }
  Decision OnJobFinished(const Job& job, std::optional<double> value) override {
    return scheduler_->OnJobFinished(job, value);
  }
  std::optional<Decision> OnEvaluatedReport(int trial, double resource,
                                            const Evaluation& evaluation) override {
    return scheduler_->OnEvaluatedReport(trial, resource, evaluation);
  }
  Decision OnJobEvaluated(const Job& job, const Evaluation& evaluation) override {
    return scheduler_->OnJobEvaluated(job, evaluation);
  }
  void OnJobInterrupted(const Job& job) override { scheduler_->OnJobInterrupted(job); }
  std::vector<double> StopPoints(int trial) const override { return scheduler_->StopPoints(trial); }
  const std::vector<Decision>& Eliminated() const override { return scheduler_->Eliminated(); }
  bool reads_finished_trials() const override { return sampler_->reads_history(); }

  FailureWords failure_words() const override;
  Status AcceptRetryFailed() const override;

 private:
  std::unique_ptr<Sampler> sampler_;
  std::unique_ptr<Scheduler> scheduler_;
};

}  // namespace gpusweep
