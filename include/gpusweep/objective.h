// objective.h — what "better" means for an experiment's results: one or more metrics,
// each with its direction, and the one ordering every comparison goes through.
//
// Contract:
// - A value is *missing* when it is absent (nullopt) or NaN: it ranks after every number,
//   and two missing values tie. Infinities are numbers and rank by direction.
// - `Better(mode, a, b)`: a is strictly better than b (both numbers) in that direction.
// - `Order(mode, a, b)` is the one ranking of single values: less when a ranks before b
//   (numbers before missing values, then `Better`), equivalent on a tie, so callers add
//   their own tie-break (the lower trial number, the earlier group) after it.
//   `RanksBefore(mode, a, b)` is `Order(...) < 0`, a strict weak ordering for std::sort.
// - `AsLoss(mode, v)` is v as a loss (lower is better): v for min, -v for max, +inf for a
//   missing value — what minimising samplers (TPE) and NAS scores model. `FromLoss`
//   inverts it for numbers.
// - `Objective` is one or more metrics (unique names, at least one; asserted). Its
//   `Compare` is Pareto dominance over value vectors of the objective's size: a dominates
//   b when it is no worse in every metric and strictly better in one (Deb, Pratap,
//   Agarwal & Meyarivan, "A fast and elitist multiobjective genetic algorithm: NSGA-II",
//   IEEE TEC 6(2), 2002, section III-A). A missing value is worse than any number, so a
//   vector with a missing entry never dominates one without it there. With one metric,
//   Compare(a, b) == kDominates exactly when RanksBefore(a, b): single-objective ranking
//   is the special case, not a separate code path.
// - Constraints (`constraints:`; Deb, "An efficient constraint handling method for
//   genetic algorithms", CMAME 186, 2000, and NSGA-II's section IV-B): `Violation` is a
//   trial's total violation, the sum over constraints of how far its value lies outside
//   [min, max] (0 inside, in the metric's own units); a constraint metric that is
//   missing (not reported, NaN, not a number) violates by +inf. Feasible: violation 0.
//   `ConstrainedCompare` is constraint-domination: a feasible vector dominates every
//   infeasible one; of two infeasible ones the smaller violation dominates, and two
//   with equal violations (both +inf: a constraint's metric never reported, say) compare
//   by `Compare`, as two feasible ones do, so that a trial beaten in every objective is
//   not ranked beside the one beating it. Without constraints it is `Compare`. Works
//   with one metric too.
// - `Values(metrics)` reads the objective's values out of a JSON object of reported
//   metrics (a trial's `last_metrics`), in metric order, NaN where a value is missing;
//   `Losses` turns values into minimisation losses (AsLoss per metric, +inf if missing),
//   what the Pareto algorithms of pareto.h take.
// No I/O, no allocation beyond the metric list; every function is pure.
#pragma once

#include <compare>
#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "gpusweep/json.h"
#include "gpusweep/metric.h"

namespace gpusweep {

// "min" or "max": the word the config, the journal's meta file and the dashboard use.
std::string_view ModeName(Mode mode);
// "minimize" or "maximize": Optuna's word (a study's direction).
std::string_view DirectionName(Mode mode);

bool Better(Mode mode, double a, double b);
std::weak_ordering Order(Mode mode, std::optional<double> a, std::optional<double> b);
bool RanksBefore(Mode mode, std::optional<double> a, std::optional<double> b);
double AsLoss(Mode mode, std::optional<double> value);
double FromLoss(Mode mode, double loss);

enum class Dominance { kDominates, kDominated, kEqual, kIncomparable };

class Objective {
 public:
  explicit Objective(MetricSpec metric, std::vector<ConstraintSpec> constraints = {});
  explicit Objective(std::vector<MetricSpec> metrics, std::vector<ConstraintSpec> constraints = {});

  const std::vector<MetricSpec>& metrics() const { return metrics_; }
  const MetricSpec& primary() const { return metrics_.front(); }
  std::size_t size() const { return metrics_.size(); }
  bool multi() const { return metrics_.size() > 1; }
  const std::vector<ConstraintSpec>& constraints() const { return constraints_; }
  bool constrained() const { return !constraints_.empty(); }
  // The metrics it reads: each objective's, then each constraint's not named before.
  std::vector<std::string> MetricNames() const;

  // Pareto dominance of a over b; both have size() entries (asserted). NaN is missing.
  Dominance Compare(std::span<const double> a, std::span<const double> b) const;
  bool Dominates(std::span<const double> a, std::span<const double> b) const {
    return Compare(a, b) == Dominance::kDominates;
  }

  // Total constraint violation of reported metrics (>= 0; +inf for a missing one).
  double Violation(const Json& metrics) const;
  // The same from the values of MetricNames(), in that order (NaN where missing): what
  // a ranking row holds (Journal::LoadRankingRows). Its first size() are the objectives'.
  double ViolationOfNamed(std::span<const double> named) const;
  // MetricNames().size(), without building the names.
  std::size_t MetricCount() const;
  bool Feasible(const Json& metrics) const { return Violation(metrics) == 0; }
  // Constraint-domination of (a, violation_a) over (b, violation_b).
  Dominance ConstrainedCompare(std::span<const double> a, double violation_a,
                               std::span<const double> b, double violation_b) const;

  // size() values from reported metrics, NaN where missing.
  std::vector<double> Values(const Json& metrics) const;
  // size() losses (lower is better) of size() values.
  std::vector<double> Losses(std::span<const double> values) const;

 private:
  std::vector<MetricSpec> metrics_;
  std::vector<ConstraintSpec> constraints_;
  std::vector<std::size_t> constraint_columns_;  // each constraint's metric in MetricNames()
};

}  // namespace gpusweep
