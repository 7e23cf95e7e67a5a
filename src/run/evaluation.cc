#include "run/evaluation.h"

#include <cmath>
#include <limits>

namespace gpusweep {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

Json FiniteOrNull(double x) { return std::isfinite(x) ? Json(x) : Json(); }

double NumberOrInf(const Json& json) { return json.is_number() ? json.get<double>() : kInf; }

}  // namespace

Evaluation EvaluationOf(const ExperimentConfig& config, std::optional<double> value,
                        const Json& metrics) {
  Evaluation evaluation{value, {}, 0};
  if (config.metrics.empty() && config.constraints.empty()) return evaluation;
  const Objective objective = ObjectiveOf(config);
  evaluation.losses = objective.Losses(objective.Values(metrics));
  evaluation.violation = objective.Violation(metrics);
  return evaluation;
}

void WriteEvaluation(const Evaluation& evaluation, Json& detail) {
  if (evaluation.losses.empty()) return;
  Json losses = Json::array();
  for (double loss : evaluation.losses) losses.push_back(FiniteOrNull(loss));
  detail["losses"] = std::move(losses);
  detail["violation"] = FiniteOrNull(evaluation.violation);
}

Evaluation ReadEvaluation(const Json& detail) {
  Evaluation evaluation;
  if (const auto value = detail.find("value"); value != detail.end() && value->is_number())
    evaluation.value = value->get<double>();
  if (const auto losses = detail.find("losses"); losses != detail.end() && losses->is_array()) {
    for (const Json& loss : *losses) evaluation.losses.push_back(NumberOrInf(loss));
    evaluation.violation = NumberOrInf(detail.value("violation", Json()));
  }
  return evaluation;
}

}  // namespace gpusweep
