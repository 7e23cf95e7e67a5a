#include "gpusweep/objective.h"

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

Objective::Objective(MetricSpec metric) : metrics_{std::move(metric)} {}

Objective::Objective(std::vector<MetricSpec> metrics) : metrics_(std::move(metrics)) {
  assert(!metrics_.empty() && "an objective has at least one metric");
  [[maybe_unused]] std::set<std::string> names;
  for (const MetricSpec& m : metrics_) assert(names.insert(m.name).second && "metric names are unique");
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
