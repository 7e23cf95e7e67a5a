// TrialLoop's cross-validation duties (gpusweep/cv.h, docs/config.md "Cross-validation"):
// the folds of a configuration that has failed do not run, and max_failures counts
// configurations. With a scheduler the fold scheduler decides which folds to drop
// (FoldScheduler::AbandonFailed); the loop records them (SettleEliminated).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "gpusweep/cv.h"
#include "run/trial_loop.h"

namespace gpusweep {

std::optional<std::string> TrialLoop::ConfigurationFailure(int configuration) const {
  std::vector<std::string> failed;
  const int first = FoldTrialNumber(configuration, 0, config_.cv.folds);
  for (int number = first; number < first + config_.cv.folds; ++number) {
    const TrialRecord* record = Find(number);
    if (record != nullptr && record->state == TrialState::kFailed && !retry_queued_.contains(number))
      failed.push_back(fmt::format("fold {}: {}", number - first, record->failure_reason));
  }
  if (static_cast<int>(failed.size()) <= config_.cv.allow_failed_folds) return std::nullopt;
  return fmt::format("configuration {} failed ({}; cv.allow_failed_folds is {})", configuration,
                     fmt::join(failed, "; "), config_.cv.allow_failed_folds);
}

void TrialLoop::SkipFoldsOfFailedConfigurations() {
  // One pass over the (ordered) queue: each configuration is judged once.
  std::optional<int> judged;
  std::optional<std::string> failure;
  for (auto it = queue_.begin(); it != queue_.end();) {
    const int number = *it;
    const int configuration = FoldOf(number, config_.cv.folds).configuration;
    if (configuration != judged) {
      judged = configuration;
      failure = ConfigurationFailure(configuration);
    }
    if (!failure) {
      ++it;
      continue;
    }
    it = queue_.erase(it);
    RecordNotRun(number, *failure, Notice::kQuiet);
  }
}

void TrialLoop::AbandonFailedConfigurations() {
  std::vector<int> configurations;
  configurations.swap(to_abandon_);
  for (int configuration : configurations) AbandonFailedConfiguration(configuration);
}

void TrialLoop::AbandonFailedConfiguration(int configuration) {
  const std::optional<std::string> failure = ConfigurationFailure(configuration);
  if (!failure) return;
  const int first = FoldTrialNumber(configuration, 0, config_.cv.folds);
  const int end = first + config_.cv.folds;
  bool any_queued = false;  // scan the queue only when a fold may be in it
  for (int number = first; number < end; ++number) {
    const TrialRecord* record = Find(number);
    any_queued |= record == nullptr || record->state == TrialState::kInterrupted ||
                  retry_queued_.contains(number);
  }
  if (any_queued)
    for (auto it = queue_.begin(); it != queue_.end();) {
      const int number = *it;
      if (number < first || number >= end) {
        ++it;
        continue;
      }
      it = queue_.erase(it);
      retry_queued_.erase(number);
      RecordNotRun(number, *failure, Notice::kNotify);
    }
  for (auto& [pid, active] : active_)  // their slots are better spent on other configurations
    if (active.record.number >= first && active.record.number < end && !active.pruned &&
        !active.kill_at)
      Prune(active, *failure);
}

void TrialLoop::RecordNotRun(int number, const std::string& reason, Notice notice) {
  const TrialRecord* previous = Find(number);
  TrialRecord record = previous != nullptr ? *previous : TrialRecord{};
  const double now = services_.wall_clock();
  if (previous == nullptr) {
    record.number = number;
    record.start_time = now;
    const int first = FoldTrialNumber(FoldOf(number, config_.cv.folds).configuration, 0,
                                      config_.cv.folds);
    for (int sibling = first; sibling < first + config_.cv.folds; ++sibling)
      if (const TrialRecord* found = Find(sibling); found != nullptr && !found->params.empty()) {
        record.params = found->params;  // every fold has its configuration's params
        record.repeat = found->repeat;
        break;
      }
  }
  record.state = TrialState::kPruned;
  record.failure_reason = std::string(kNotRun) + reason;
  record.end_time = now;
  record.objective.reset();
  record.pid = 0;
  record.job_id.clear();
  record.gpus.clear();
  Record(JournalWrite::Kind::kUpsertTrial, record);
  Store(record);
  if (notice == Notice::kNotify) NotifyFinished(record);
}

void TrialLoop::PrunedWithoutScheduler(Active& active) {
  TrialRecord& record = active.record;
  if (record.state != TrialState::kFailed) return;  // interrupted: runs again as usual
  record.state = TrialState::kPruned;
  record.objective = LastMetricValue(active.lines, config_.metric.name);
}

bool TrialLoop::RunsAgainOnRetry(const TrialRecord& record) const {
  if (options_.failed_trials != FailedTrials::kRetry) return false;
  return record.state == TrialState::kFailed ||
         (config_.cv.enabled() && record.state == TrialState::kPruned);
}

bool TrialLoop::SettledNotStarted(const Decision& decision, const TrialRecord* found) {
  if (!config_.cv.enabled() || (found != nullptr && found->state != TrialState::kInterrupted))
    return false;
  RecordNotRun(decision.trial, decision.reason, Notice::kNotify);
  return true;
}

void TrialLoop::CountFinished(const TrialRecord& record) {
  if (!config_.cv.enabled() || record.number < 0) {
    failures_.Count(record);
    return;
  }
  const int configuration = FoldOf(record.number, config_.cv.folds).configuration;
  if (scheduler_ == nullptr && record.state == TrialState::kFailed)
    to_abandon_.push_back(configuration);  // the fold scheduler does this itself
  if (configurations_counted_.contains(configuration)) return;
  std::vector<TrialRecord> folds;  // a failed fold queued to run again has not failed yet
  const int first = FoldTrialNumber(configuration, 0, config_.cv.folds);
  for (int number = first; number < first + config_.cv.folds; ++number)
    if (const TrialRecord* fold = Find(number); fold != nullptr && !retry_queued_.contains(number))
      folds.push_back(*fold);
  if (folds.empty()) return;
  const CvConfiguration grouped = GroupFolds(folds, config_.cv).front();
  if (grouped.state != TrialState::kCompleted && grouped.state != TrialState::kFailed &&
      grouped.state != TrialState::kPruned)
    return;  // folds still to run (or paused, or interrupted)
  configurations_counted_.insert(configuration);
  int show = record.number;  // the first failed fold says most
  for (const TrialRecord& fold : folds)
    if (fold.state == TrialState::kFailed) {
      show = fold.number;
      break;
    }
  failures_.Count(ConfigurationRecord(grouped), show);
}

}  // namespace gpusweep
