#include "schedule/rung_table.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "gpusweep/objective.h"

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

void RungTable::Record(int trial, std::optional<double> value) {
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
  return static_cast<int>(Position(trial, found->second) - ranked_.begin());
}

}  // namespace gpusweep::schedule_detail
