#include "schedule/rung_table.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "gpusweep/objective.h"
#include "gpusweep/pareto.h"

namespace gpusweep::schedule_detail {

std::optional<double> Normalized(std::optional<double> value) {
  if (value && std::isnan(*value)) return std::nullopt;
  return value;
}

bool RanksBefore(Mode mode, std::optional<double> a, int trial_a, std::optional<double> b,
                 int trial_b) {
  if (const auto order = Order(mode, a, b); order != 0) return order < 0;
  return trial_a < trial_b;
}

bool WorseThan(Mode mode, std::optional<double> a, double b) {
  return RanksBefore(mode, b, a);  // a missing a is worse than any b
}

std::string FormatValue(std::optional<double> value) {
  value = Normalized(value);
  return value ? fmt::format("{:.6g}", *value) : std::string("none");
}

int TopCount(int n, double eta, Rounding rounding) {
  // The epsilon keeps exact quotients exact despite binary rounding of eta.
  const double quotient = n / eta;
  const double rounded = rounding == Rounding::kFloor ? std::floor(quotient + 1e-9)
                                                      : std::ceil(quotient - 1e-9);
  return std::clamp(static_cast<int>(rounded), 0, n);
}

std::vector<RungTable::Entry>::const_iterator RungTable::Position(
    int trial, std::optional<double> value) const {
  return std::lower_bound(ranked_.begin(), ranked_.end(), Entry{trial, value},
                          [this](const Entry& x, const Entry& y) {
                            return RanksBefore(mode_, x.value, x.trial, y.value, y.trial);
                          });
}

std::vector<RungTable::Entry> ParetoRanked(const std::map<int, Evaluation>& evaluations) {
  std::vector<RungTable::Entry> valued, missing;
  std::vector<LossPoint> points;
  std::vector<double> violations;
  for (const auto& [trial, evaluation] : evaluations) {
    const std::optional<double> value = Normalized(evaluation.value);
    if (!value || evaluation.losses.empty()) {
      missing.push_back({trial, std::nullopt, -1, 0, evaluation.violation});
      continue;
    }
    valued.push_back({trial, value, 0, 0, evaluation.violation});
    points.push_back(evaluation.losses);
    violations.push_back(evaluation.violation);
  }
  const std::vector<int> fronts = ConstrainedRanks(points, violations);
  const std::vector<double> crowding = CrowdingDistances(points, fronts);
  for (size_t i = 0; i < valued.size(); ++i) {
    valued[i].front = fronts[i];
    valued[i].crowding = crowding[i];
  }
  // Trials come in increasing order from the map, so ParetoOrder's index tie-break is
  // the lower trial number.
  std::vector<RungTable::Entry> ranked;
  for (int index : ParetoOrder(fronts, crowding)) ranked.push_back(valued[index]);
  ranked.insert(ranked.end(), missing.begin(), missing.end());
  return ranked;
}

void RungTable::Record(int trial, const Evaluation& evaluation) {
  if (ranking_ == Ranking::kValue) return Record(trial, evaluation.value);
  evaluations_[trial] = evaluation;
  values_[trial] = Normalized(evaluation.value);
  ranked_ = ParetoRanked(evaluations_);
}

void RungTable::Record(int trial, std::optional<double> value) {
  if (ranking_ == Ranking::kPareto) return Record(trial, Evaluation{value, {}, 0});
  value = Normalized(value);
  if (auto old = values_.find(trial); old != values_.end()) {
    ranked_.erase(Position(trial, old->second));
  }
  values_[trial] = value;
  ranked_.insert(Position(trial, value), Entry{trial, value});
}

int RungTable::RankOf(int trial) const {
  auto found = values_.find(trial);
  if (found == values_.end()) return -1;
  if (ranking_ == Ranking::kPareto) {
    const auto at = std::find_if(ranked_.begin(), ranked_.end(),
                                 [trial](const Entry& e) { return e.trial == trial; });
    return static_cast<int>(at - ranked_.begin());
  }
  return static_cast<int>(Position(trial, found->second) - ranked_.begin());
}

}  // namespace gpusweep::schedule_detail
