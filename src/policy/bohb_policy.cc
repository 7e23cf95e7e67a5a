#include "policy/bohb_policy.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstdint>
#include <random>

namespace gpusweep {
namespace {

constexpr std::uint32_t kRandomFractionSalt = 0xB0B5u;

// Rung resources and reports are compared as the schedulers compare them: a report at
// 2.9999999999 has reached rung 3.
bool Reached(double resource, double rung) { return resource >= rung - 1e-9 * std::max(1.0, rung); }
bool SameBudget(double a, double b) { return std::abs(a - b) <= 1e-9 * std::max(1.0, std::abs(b)); }

}  // namespace

BohbPolicy::BohbPolicy(std::unique_ptr<Sampler> sampler, std::unique_ptr<Scheduler> scheduler,
                       TrialStyle style, double max_resource, const BohbConfig& config,
                       int min_points, std::uint64_t seed)
    : ScheduledPolicy(std::move(sampler), std::move(scheduler)),
      style_(style),
      max_resource_(max_resource),
      config_(config),
      min_points_(min_points),
      seed_(seed) {
  assert(min_points_ >= 1 && max_resource_ > 0);
  assert(config_.random_fraction >= 0 && config_.random_fraction <= 1);
}

int BohbMinPoints(const BohbConfig& config, const SearchSpace& space) {
  if (config.min_points_in_model > 0) return config.min_points_in_model;
  const auto varying = std::count_if(space.params.begin(), space.params.end(),
                                     [](const ParamSpec& p) { return p.kind != ParamKind::kConstant; });
  return static_cast<int>(varying) + 1;
}

// ---- Observations: what each result says about its configuration at one budget ----

void BohbPolicy::ObserveReport(int trial, double resource, std::optional<double> value) {
  // Budgeted trials are observed when their job ends, at its budget.
  if (style_ != TrialStyle::kIterative || !value || !std::isfinite(*value)) return;
  std::vector<double> rungs = StopPoints(trial);
  rungs.push_back(max_resource_);
  // The first report at or past a rung is the trial's result there, as ASHA judges it.
  for (double rung : rungs)
    if (Reached(resource, rung)) observations_[rung].try_emplace(trial, *value);
}

void BohbPolicy::ObserveJob(const Job& job, std::optional<double> value) {
  // An iterative job's last value is at its last report, not at job.budget: its
  // observations came with its reports.
  if (style_ != TrialStyle::kBudgeted || !value || !std::isfinite(*value)) return;
  observations_[job.budget][job.trial] = *value;
}

std::optional<Decision> BohbPolicy::OnReport(int trial, double resource, std::optional<double> value) {
  ObserveReport(trial, resource, value);
  return ScheduledPolicy::OnReport(trial, resource, value);
}

Decision BohbPolicy::OnJobFinished(const Job& job, std::optional<double> value) {
  ObserveJob(job, value);
  return ScheduledPolicy::OnJobFinished(job, value);
}

std::optional<Decision> BohbPolicy::OnEvaluatedReport(int trial, double resource,
                                                      const Evaluation& evaluation) {
  ObserveReport(trial, resource, evaluation.value);
  return ScheduledPolicy::OnEvaluatedReport(trial, resource, evaluation);
}

Decision BohbPolicy::OnJobEvaluated(const Job& job, const Evaluation& evaluation) {
  ObserveJob(job, evaluation.value);
  return ScheduledPolicy::OnJobEvaluated(job, evaluation);
}

// ---- Suggestions ----

namespace {

// A warm-start trial (an earlier experiment's, number < 0) observed at its budget.
std::optional<double> WarmBudget(const TrialRecord& record, double max_resource) {
  if (record.number >= 0 || record.state != TrialState::kCompleted || !record.objective ||
      !std::isfinite(*record.objective))
    return std::nullopt;
  return record.budget.value_or(max_resource);
}

}  // namespace

std::optional<double> BohbPolicy::ModelBudget(const std::vector<TrialRecord>& history) const {
  std::map<double, int> counts;
  for (const auto& [budget, values] : observations_) counts[budget] += static_cast<int>(values.size());
  for (const TrialRecord& record : history)
    if (const auto budget = WarmBudget(record, max_resource_)) {
      auto near = std::find_if(counts.begin(), counts.end(),
                               [&](const auto& entry) { return SameBudget(entry.first, *budget); });
      ++(near == counts.end() ? counts[*budget] : near->second);
    }
  // Algorithm 2: the largest budget with |D_b| >= N_min + 2.
  for (auto it = counts.rbegin(); it != counts.rend(); ++it)
    if (it->second >= min_points_ + 2) return it->first;
  return std::nullopt;
}

bool BohbPolicy::DrawsAtRandom(int number) const {
  if (config_.random_fraction <= 0) return false;
  // std::seed_seq and mt19937_64 are specified by the standard: the same draw everywhere.
  std::seed_seq seq{static_cast<std::uint32_t>(seed_), static_cast<std::uint32_t>(seed_ >> 32),
                    static_cast<std::uint32_t>(number), kRandomFractionSalt};
  std::mt19937_64 rng(seq);
  const double u = static_cast<double>(rng() >> 11) * 0x1.0p-53;
  return u < config_.random_fraction;
}

std::vector<TrialRecord> BohbPolicy::HistoryAt(double budget,
                                               const std::vector<TrialRecord>& history) const {
  const auto found = observations_.find(budget);
  const std::map<int, double> none;
  const std::map<int, double>& observed = found == observations_.end() ? none : found->second;
  std::vector<TrialRecord> at;
  for (const TrialRecord& record : history) {
    if (const auto warm = WarmBudget(record, max_resource_); warm && SameBudget(*warm, budget)) {
      at.push_back(record);
    } else if (const auto value = observed.find(record.number); value != observed.end()) {
      TrialRecord result = record;
      result.state = TrialState::kCompleted;
      result.objective = value->second;
      at.push_back(std::move(result));
    } else if (record.state == TrialState::kRunning &&
               (style_ == TrialStyle::kIterative || (record.budget && SameBudget(*record.budget, budget)))) {
      at.push_back(record);  // on its way to `budget`: tpe's constant liar sees it
    }
  }
  // An observed trial the history does not hold is skipped, never invented.
  return at;
}

Suggestion BohbPolicy::Suggest(int number, const std::vector<TrialRecord>& history) const {
  const std::optional<double> budget = ModelBudget(history);
  if (!budget || DrawsAtRandom(number)) return ScheduledPolicy::Suggest(number, {});
  return ScheduledPolicy::Suggest(number, HistoryAt(*budget, history));
}

}  // namespace gpusweep
