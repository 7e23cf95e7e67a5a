#include "gpusweep/cv.h"

#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "gpusweep/objective.h"

namespace gpusweep {
namespace {

// The value a fold contributes: completed folds their objective; pruned and paused
// ones their last value (as a scheduler ranks them); others none.
std::optional<double> FoldValue(const TrialRecord& fold) {
  const bool counts = fold.state == TrialState::kCompleted || fold.state == TrialState::kPruned ||
                      fold.state == TrialState::kPaused;
  if (!counts || !fold.objective || std::isnan(*fold.objective)) return std::nullopt;
  return fold.objective;
}

int CountState(const CvConfiguration& c, TrialState state) {
  return static_cast<int>(std::count_if(c.folds.begin(), c.folds.end(), [state](const TrialRecord* f) {
    return f != nullptr && f->state == state;
  }));
}

void SetMeanAndDeviation(CvConfiguration& c) {
  if (c.values.empty()) return;
  double sum = 0;
  for (double v : c.values) sum += v;
  const double mean = sum / static_cast<double>(c.values.size());
  double squares = 0;
  for (double v : c.values) squares += (v - mean) * (v - mean);
  c.mean = mean;
  c.stddev = c.values.size() > 1 ? std::sqrt(squares / static_cast<double>(c.values.size() - 1)) : 0.0;
}

// Whether a fold's reported `key` is a number a mean can take (NaN is a missing value).
bool HasNumber(const TrialRecord& fold, const std::string& key) {
  if (!fold.last_metrics.is_object()) return false;
  const auto it = fold.last_metrics.find(key);
  return it != fold.last_metrics.end() && it->is_number() && !std::isnan(it->get<double>());
}

// Per-key means over the folds that count (those with a value): a key is averaged only
// when every one of them reports it, since a mean over fewer folds would compare
// configurations on different data.
void SetMetricMeans(CvConfiguration& c) {
  std::vector<const TrialRecord*> counted;
  for (const TrialRecord* fold : c.folds)
    if (fold != nullptr && FoldValue(*fold)) counted.push_back(fold);
  if (counted.empty() || !counted.front()->last_metrics.is_object()) return;
  for (const auto& [key, first] : counted.front()->last_metrics.items()) {
    double sum = 0;
    bool everywhere = true;
    for (const TrialRecord* fold : counted) {
      everywhere = HasNumber(*fold, key);
      if (!everywhere) break;
      sum += fold->last_metrics.at(key).get<double>();
    }
    if (everywhere) c.metrics[key] = sum / static_cast<double>(counted.size());
  }
}

std::string FailedFoldsReason(const CvConfiguration& c, const CvConfig& cv) {
  std::string reason;
  for (std::size_t f = 0; f < c.folds.size(); ++f) {
    const TrialRecord* fold = c.folds[f];
    if (fold == nullptr || fold->state != TrialState::kFailed) continue;
    if (!reason.empty()) reason += "; ";
    reason += fmt::format("fold {} failed ({})", f, fold->failure_reason);
  }
  return fmt::format("{}; cv.allow_failed_folds is {}", reason, cv.allow_failed_folds);
}

void Judge(CvConfiguration& c, const CvConfig& cv) {
  for (const TrialRecord* fold : c.folds)
    if (fold != nullptr)
      if (std::optional<double> value = FoldValue(*fold)) c.values.push_back(*value);
  SetMeanAndDeviation(c);
  SetMetricMeans(c);
  c.completed = CountState(c, TrialState::kCompleted);
  c.failed = CountState(c, TrialState::kFailed);
  const int missing = static_cast<int>(std::count(c.folds.begin(), c.folds.end(), nullptr));
  if (c.failed > cv.allow_failed_folds) {
    c.state = TrialState::kFailed;
    c.failure_reason = FailedFoldsReason(c, cv);
  } else if (CountState(c, TrialState::kRunning) > 0 || missing > 0) {
    c.state = TrialState::kRunning;
    c.queued = CountState(c, TrialState::kRunning) == 0;
  } else if (CountState(c, TrialState::kInterrupted) > 0) {
    c.state = TrialState::kInterrupted;
  } else if (CountState(c, TrialState::kPruned) > 0) {
    c.state = TrialState::kPruned;
  } else if (CountState(c, TrialState::kPaused) > 0) {
    c.state = TrialState::kPaused;
  } else {
    c.state = TrialState::kCompleted;
  }
}

}  // namespace

FoldIndex FoldOf(int trial, int folds) { return FoldIndex{trial / folds, trial % folds}; }

int FoldTrialNumber(int configuration, int fold, int folds) { return configuration * folds + fold; }

std::vector<CvConfiguration> GroupFolds(const std::vector<TrialRecord>& trials, const CvConfig& cv) {
  std::map<int, CvConfiguration> by_number;
  for (const TrialRecord& trial : trials) {
    if (trial.number < 0) continue;  // warm-start history: not this experiment's folds
    const FoldIndex index = FoldOf(trial.number, cv.folds);
    CvConfiguration& c = by_number[index.configuration];
    if (c.folds.empty()) {
      c.configuration = index.configuration;
      c.folds.assign(static_cast<std::size_t>(cv.folds), nullptr);
    }
    c.folds[static_cast<std::size_t>(index.fold)] = &trial;
    if (c.params.empty() && !trial.params.empty()) {
      c.params = trial.params;
      c.repeat = trial.repeat;
    }
  }
  std::vector<CvConfiguration> configurations;
  configurations.reserve(by_number.size());
  for (auto& [number, c] : by_number) {
    Judge(c, cv);
    configurations.push_back(std::move(c));
  }
  return configurations;
}

TrialRecord ConfigurationRecord(const CvConfiguration& configuration) {
  TrialRecord record;
  record.number = configuration.configuration;
  record.repeat = configuration.repeat;
  record.params = configuration.params;
  record.state = configuration.state;
  record.objective = configuration.mean;
  record.failure_reason = configuration.failure_reason;
  record.last_metrics = configuration.metrics;
  bool first = true;
  for (const TrialRecord* fold : configuration.folds) {
    if (fold == nullptr) continue;
    record.start_time = first ? fold->start_time : std::min(record.start_time, fold->start_time);
    record.end_time = std::max(record.end_time, fold->end_time);
    first = false;
  }
  if (configuration.state == TrialState::kRunning) record.end_time = 0;
  return record;
}

std::vector<TrialRecord> ConfigurationRecords(const std::vector<TrialRecord>& trials, const CvConfig& cv) {
  std::vector<TrialRecord> records;
  for (const CvConfiguration& c : GroupFolds(trials, cv)) records.push_back(ConfigurationRecord(c));
  return records;
}

std::vector<const CvConfiguration*> RankConfigurations(
    const std::vector<CvConfiguration>& configurations, const MetricSpec& metric) {
  std::vector<const CvConfiguration*> ranked;
  for (const CvConfiguration& c : configurations)
    if (c.state == TrialState::kCompleted && c.mean) ranked.push_back(&c);
  std::stable_sort(ranked.begin(), ranked.end(), [&](const CvConfiguration* a, const CvConfiguration* b) {
    return RanksBefore(metric.mode, a->mean, b->mean);
  });
  return ranked;
}

}  // namespace gpusweep
