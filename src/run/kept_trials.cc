#include "run/kept_trials.h"

#include <algorithm>
#include <cassert>

#include "gpusweep/objective.h"

namespace gpusweep {

std::size_t TrialCapacity(int total_trials) {
  constexpr int kAtMost = 1 << 22;
  return static_cast<std::size_t>(std::clamp(total_trials, 0, kAtMost));
}

KeptTrials::KeptTrials(const SearchPolicy& policy, const ExperimentConfig& config,
                       FailedTrials failed)
    : policy_(&policy), failed_(failed) {
  if (!policy.reads_finished_trials()) finished_metrics_ = ObjectiveOf(config).MetricNames();
}

TrialRecord KeptTrials::Keep(const TrialRecord& record) const {
  if (!finished_metrics_) return record;
  // A failed trial runs again only in a run with --retry-failed, whose Restore requeues
  // it: there it keeps the params it reruns with.
  const bool retried = record.state == TrialState::kFailed && failed_ == FailedTrials::kRetry &&
                       policy_->Retriable(record);
  const bool finished = record.state == TrialState::kCompleted ||
                        record.state == TrialState::kPruned ||
                        (record.state == TrialState::kFailed && !retried);
  if (!finished) return record;
  return FinishedRecord(record, *finished_metrics_);
}

Expected<std::vector<TrialRecord>> KeptTrials::Load(Journal& journal, int total_trials) const {
  if (!finished_metrics_) return journal.LoadTrials();
  std::vector<TrialRecord> trials;
  trials.reserve(TrialCapacity(total_trials));
  GS_TRY(journal.ForEachTrial(TrialQuery{}, [&](const TrialRecord& record) -> Status {
    assert(trials.empty() || trials.back().number < record.number);
    trials.push_back(Keep(record));
    return {};
  }));
  return trials;
}

}  // namespace gpusweep
