#include "gpusweep/objective.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>
#include <set>
#include <string>

namespace gpusweep {
namespace {

std::optional<double> Present(std::optional<double> value) {
  if (value && std::isnan(*value)) return std::nullopt;
  return value;
}

}  // namespace

std::string_view ModeName(Mode mode) { return mode == Mode::kMax ? "max" : "min"; }
std::string_view DirectionName(Mode mode) { return mode == Mode::kMax ? "maximize" : "minimize"; }

bool Better(Mode mode, double a, double b) { return mode == Mode::kMax ? a > b : a < b; }

std::weak_ordering Order(Mode mode, std::optional<double> a, std::optional<double> b) {
  a = Present(a);
  b = Present(b);
  if (a.has_value() != b.has_value())  // a number beats a missing value
    return a.has_value() ? std::weak_ordering::less : std::weak_ordering::greater;
  if (!a || *a == *b) return std::weak_ordering::equivalent;
  return Better(mode, *a, *b) ? std::weak_ordering::less : std::weak_ordering::greater;
}

bool RanksBefore(Mode mode, std::optional<double> a, std::optional<double> b) {
  return Order(mode, a, b) < 0;
}

double AsLoss(Mode mode, std::optional<double> value) {
  value = Present(value);
  if (!value) return std::numeric_limits<double>::infinity();
  return mode == Mode::kMin ? *value : -*value;
}

double FromLoss(Mode mode, double loss) { return mode == Mode::kMin ? loss : -loss; }

Objective::Objective(MetricSpec metric, std::vector<ConstraintSpec> constraints)
    : Objective(std::vector<MetricSpec>{std::move(metric)}, std::move(constraints)) {}

Objective::Objective(std::vector<MetricSpec> metrics, std::vector<ConstraintSpec> constraints)
    : metrics_(std::move(metrics)), constraints_(std::move(constraints)) {
  assert(!metrics_.empty() && "an objective has at least one metric");
  [[maybe_unused]] std::set<std::string> names;
  for (const MetricSpec& m : metrics_) assert(names.insert(m.name).second && "metric names are unique");
  for ([[maybe_unused]] const ConstraintSpec& c : constraints_)
    assert((c.min || c.max) && (!c.min || !c.max || *c.min <= *c.max) && "a constraint has a bound");
  const std::vector<std::string> columns = MetricNames();
  for (const ConstraintSpec& c : constraints_)
    constraint_columns_.push_back(static_cast<std::size_t>(
        std::find(columns.begin(), columns.end(), c.metric) - columns.begin()));
}

std::vector<std::string> Objective::MetricNames() const {
  std::vector<std::string> names;
  for (const MetricSpec& m : metrics_) names.push_back(m.name);
  for (const ConstraintSpec& c : constraints_)
    if (std::find(names.begin(), names.end(), c.metric) == names.end()) names.push_back(c.metric);
  return names;
}

namespace {

// The number a reported metric holds, NaN when absent or not a number (a bool is not one).
double ObjectiveReportedNumber(const Json& metrics, const std::string& name) {
  if (!metrics.is_object()) return std::numeric_limits<double>::quiet_NaN();
  const auto it = metrics.find(name);
  if (it == metrics.end() || !it->is_number()) return std::numeric_limits<double>::quiet_NaN();
  return it->get<double>();
}

}  // namespace

namespace {

// How far `value` lies outside c's bounds; +inf when it is missing (NaN).
double ConstraintViolation(const ConstraintSpec& c, double value) {
  if (std::isnan(value)) return std::numeric_limits<double>::infinity();
  double total = 0;
  if (c.min && value < *c.min) total += *c.min - value;
  if (c.max && value > *c.max) total += value - *c.max;
  return total;
}

}  // namespace

double Objective::Violation(const Json& metrics) const {
  double total = 0;
  for (const ConstraintSpec& c : constraints_)
    total += ConstraintViolation(c, ObjectiveReportedNumber(metrics, c.metric));
  return total;
}

double Objective::ViolationOfNamed(std::span<const double> named) const {
  assert(named.size() == MetricCount());
  double total = 0;
  for (std::size_t i = 0; i < constraints_.size(); ++i)
    total += ConstraintViolation(constraints_[i], named[constraint_columns_[i]]);
  return total;
}

std::size_t Objective::MetricCount() const {
  return constraint_columns_.empty() ? metrics_.size()
                                     : std::max(metrics_.size(), *std::max_element(constraint_columns_.begin(),
                                                                                  constraint_columns_.end()) + 1);
}

Dominance Objective::ConstrainedCompare(std::span<const double> a, double violation_a,
                                        std::span<const double> b, double violation_b) const {
  assert(!(violation_a < 0) && !(violation_b < 0) && "a violation is >= 0");
  const bool a_feasible = violation_a == 0, b_feasible = violation_b == 0;
  if (a_feasible != b_feasible) return a_feasible ? Dominance::kDominates : Dominance::kDominated;
  if (violation_a == violation_b) return Compare(a, b);  // both feasible, or equally infeasible
  return violation_a < violation_b ? Dominance::kDominates : Dominance::kDominated;
}

std::vector<double> Objective::Values(const Json& metrics) const {
  std::vector<double> values;
  values.reserve(metrics_.size());
  for (const MetricSpec& m : metrics_) values.push_back(ObjectiveReportedNumber(metrics, m.name));
  return values;
}

std::vector<double> Objective::Losses(std::span<const double> values) const {
  assert(values.size() == metrics_.size());
  std::vector<double> losses;
  losses.reserve(values.size());
  for (std::size_t i = 0; i < values.size(); ++i) losses.push_back(AsLoss(metrics_[i].mode, values[i]));
  return losses;
}

Dominance Objective::Compare(std::span<const double> a, std::span<const double> b) const {
  assert(a.size() == metrics_.size() && b.size() == metrics_.size());
  bool a_better = false, b_better = false;
  for (std::size_t i = 0; i < metrics_.size(); ++i) {
    const Mode mode = metrics_[i].mode;
    const std::weak_ordering order = Order(mode, a[i], b[i]);
    a_better |= order < 0;
    b_better |= order > 0;
  }
  if (a_better && !b_better) return Dominance::kDominates;
  if (b_better && !a_better) return Dominance::kDominated;
  return a_better ? Dominance::kIncomparable : Dominance::kEqual;
}

}  // namespace gpusweep
