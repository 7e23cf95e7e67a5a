// The defaults of SearchPolicy (gpusweep/policy.h).
#include "gpusweep/policy.h"

#include <algorithm>
#include <cassert>

#include "policy/bohb_policy.h"
#include "policy/fold_policy.h"
#include "policy/pbt_policy.h"
#include "policy/scheduled_policy.h"
#include "policy/sweep_policy.h"

namespace gpusweep {

int FinishedTrials(const std::vector<TrialRecord>& recorded) {
  return static_cast<int>(std::count_if(recorded.begin(), recorded.end(), [](const TrialRecord& t) {
    return t.state == TrialState::kCompleted || t.state == TrialState::kFailed ||
           t.state == TrialState::kPruned;
  }));
}

int SearchPolicy::ToRun(const std::vector<TrialRecord>& recorded) const {
  return total_trials() - FinishedTrials(recorded);
}

std::unique_ptr<SearchPolicy> MakeSweepPolicy(std::unique_ptr<Sampler> sampler) {
  return std::make_unique<SweepPolicy>(std::move(sampler));
}

std::unique_ptr<SearchPolicy> MakeScheduledPolicy(std::unique_ptr<Sampler> sampler,
                                                  std::unique_ptr<Scheduler> scheduler) {
  return std::make_unique<ScheduledPolicy>(std::move(sampler), std::move(scheduler));
}

std::unique_ptr<SearchPolicy> MakeFoldPolicy(std::unique_ptr<SearchPolicy> inner, const CvConfig& cv) {
  return std::make_unique<FoldPolicy>(std::move(inner), cv);
}

Expected<std::unique_ptr<SearchPolicy>> MakePbtSearchPolicy(const SchedulerConfig& scheduler,
                                                            const SamplerConfig& sampler,
                                                            const SearchSpace& space, Mode mode) {
  GS_ASSIGN_OR_RETURN(std::unique_ptr<PbtPolicy> policy, MakePbtPolicy(scheduler, sampler, space, mode));
  return std::unique_ptr<SearchPolicy>(std::move(policy));
}

std::unique_ptr<SearchPolicy> MakeBohbPolicy(std::unique_ptr<Sampler> sampler,
                                             std::unique_ptr<Scheduler> scheduler, TrialStyle style,
                                             const SchedulerConfig& config, const SearchSpace& space,
                                             std::uint64_t seed) {
  assert(config.kind == SchedulerKind::kBohb);
  return std::make_unique<BohbPolicy>(std::move(sampler), std::move(scheduler), style,
                                      config.max_resource, config.bohb,
                                      BohbMinPoints(config.bohb, space), seed);
}

}  // namespace gpusweep
