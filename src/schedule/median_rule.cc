#include "schedule/median_rule.h"

#include <algorithm>

#include <cassert>
#include <fmt/format.h>

#include "schedule/rung_table.h"

namespace gpusweep::schedule_detail {

void Curve::Add(double resource, double value, Mode mode) {
  // A restarted trial reports from its start again: its newer points replace the old.
  auto keep = std::lower_bound(resources_.begin(), resources_.end(), resource);
  const auto kept = keep - resources_.begin();
  resources_.resize(kept);
  prefix_sums_.resize(kept);
  prefix_best_.resize(kept);
  const bool first = prefix_sums_.empty();
  resources_.push_back(resource);
  prefix_sums_.push_back((first ? 0.0 : prefix_sums_.back()) + value);
  prefix_best_.push_back(first || WorseThan(mode, prefix_best_.back(), value)
                             ? value
                             : prefix_best_.back());
}

std::optional<double> Curve::Best() const {
  if (prefix_best_.empty()) return std::nullopt;
  return prefix_best_.back();
}

std::optional<double> Curve::RunningAverage(double t) const {
  const auto count = std::upper_bound(resources_.begin(), resources_.end(), t) -
                     resources_.begin();
  if (count == 0) return std::nullopt;
  return prefix_sums_[count - 1] / static_cast<double>(count);
}

double Median(std::vector<double> values) {
  assert(!values.empty() && "min_trials >= 1 (the parser's bound) keeps the list non-empty");
  std::sort(values.begin(), values.end());
  const size_t mid = values.size() / 2;
  return values.size() % 2 == 1 ? values[mid] : (values[mid - 1] + values[mid]) / 2;
}

MedianStopping::MedianStopping(const SchedulerConfig& config, Mode mode, int configurations,
                               TrialStyle style)
    : config_(config),
      mode_(mode),
      style_(style),
      book_(configurations),
      curves_(static_cast<size_t>(std::max(configurations, 0))) {}

Job MedianStopping::NextJob() const {
  if (auto job = book_.Requeued()) return *job;
  if (auto trial = book_.NextConfiguration()) {
    Job job;
    job.kind = Job::Kind::kStart;
    job.trial = *trial;
    job.budget = config_.max_resource;
    return job;
  }
  return IdleJob(Job::Kind::kDone);  // running trials never create new jobs
}

std::vector<double> MedianStopping::OthersAverages(int trial, double t) const {
  std::vector<double> averages;
  for (size_t other = 0; other < curves_.size(); ++other) {
    const Curve& curve = curves_[other];
    if (static_cast<int>(other) == trial || curve.empty() || curve.last_resource() < t) continue;
    if (auto average = curve.RunningAverage(t)) averages.push_back(*average);
  }
  return averages;
}

std::optional<Decision> MedianStopping::OnReport(int trial, double resource,
                                                 std::optional<double> value) {
  value = Normalized(value);
  if (trial < 0 || stopped_.count(trial) != 0) return std::nullopt;  // invalid or decided
  last_resource_[trial] = resource;
  if (static_cast<size_t>(trial) >= curves_.size()) curves_.resize(trial + 1);
  if (value) curves_[trial].Add(resource, *value, mode_);
  if (resource < config_.grace_steps) return std::nullopt;
  // A trial that reached its full budget has finished its work: stopping it now saves
  // nothing and would record a finished trial as pruned.
  if (config_.max_resource > 0 && resource >= config_.max_resource) return std::nullopt;
  const std::vector<double> averages = OthersAverages(trial, resource);
  if (static_cast<int>(averages.size()) < config_.min_trials) return std::nullopt;
  const double median = Median(averages);
  const std::optional<double> best = curves_[trial].Best();
  if (!WorseThan(mode_, best, median)) return std::nullopt;
  stopped_.insert(trial);
  return Decision{trial, 0, -1, resource, value, Verdict::kStop,
                  fmt::format("best {} is worse than the median {} of {} other trials' "
                              "running averages at {} {:g}",
                              FormatValue(best), FormatValue(median), averages.size(),
                              config_.resource, resource)};
}

Decision MedianStopping::OnJobFinished(const Job& job, std::optional<double> value) {
  book_.Finished(job);
  auto last = last_resource_.find(job.trial);
  const double resource = last == last_resource_.end() ? job.budget : last->second;
  if (stopped_.count(job.trial) != 0)
    return Decision{job.trial, 0, -1, resource, value, Verdict::kStop,
                    "stopped by the median rule"};
  return Decision{job.trial, 0, -1, resource, value, Verdict::kComplete,
                  "ran to the end: the median rule never stopped it"};
}

void MedianStopping::OnJobInterrupted(const Job& job) {
  book_.Interrupted(job, stopped_.count(job.trial) != 0 ? JobBook::Requeue::kNo
                                                        : JobBook::Requeue::kYes);
}

}  // namespace gpusweep::schedule_detail
