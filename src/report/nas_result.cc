// FindNasResult, NasResultStage (gpusweep/report.h) and NasStageLabel.
#include "report/nas_result.h"

#include <cmath>

#include <fmt/format.h>

#include "gpusweep/experiment_files.h"
#include "gpusweep/objective.h"
#include "gpusweep/report.h"
#include "report/text.h"

namespace gpusweep {
namespace {

std::string StageOf(const TrialRecord& trial) {
  const auto stage = trial.params.find("nas_stage");
  return stage != trial.params.end() && stage->is_string() ? stage->get<std::string>() : "";
}

int BlockOf(const TrialRecord& trial) {
  const auto block = trial.params.find("nas_block");
  return block != trial.params.end() && block->is_number_integer() ? block->get<int>() : 0;
}

// Under constraints (ctx.pareto with constraints): ", infeasible (violation 5)" when the
// result breaks one; "" when it meets them all or there are none.
std::string InfeasibleText(const TrialRecord& trial, const ReportContext& ctx) {
  if (!ctx.pareto || !ctx.pareto->constrained()) return "";
  const double violation = ctx.pareto->Violation(trial.last_metrics);
  if (violation == 0) return "";
  return std::isinf(violation) ? ", infeasible (a constraint metric not reported)"
                               : fmt::format(", infeasible (violation {})", report::FormatNumber(violation));
}

// One line per constraint: "Constraint size_k = 30 (max 25): broken by 5".
std::string ConstraintLines(const TrialRecord& trial, const ReportContext& ctx) {
  if (!ctx.pareto) return "";
  std::string out;
  for (const ConstraintSpec& c : ctx.pareto->constraints()) {
    std::string bounds;
    if (c.min) bounds = fmt::format("min {}", report::FormatNumber(*c.min));
    if (c.max) bounds += fmt::format("{}max {}", bounds.empty() ? "" : ", ", report::FormatNumber(*c.max));
    const auto found = trial.last_metrics.find(c.metric);
    if (found == trial.last_metrics.end() || !found->is_number() ||
        std::isnan(found->get<double>())) {
      out += fmt::format("Constraint {} ({}): not reported, so broken\n", c.metric, bounds);
      continue;
    }
    const double value = found->get<double>();
    const double by = c.min && value < *c.min ? *c.min - value : c.max && value > *c.max ? value - *c.max : 0;
    out += fmt::format("Constraint {} = {} ({}): {}\n", c.metric, report::FormatNumber(value), bounds,
                       by == 0 ? std::string("met") : "broken by " + report::FormatNumber(by));
  }
  return out;
}

}  // namespace

std::optional<NasResult> FindNasResult(const std::vector<TrialRecord>& trials) {
  std::optional<NasResult> confirm;
  for (const TrialRecord& trial : trials) {
    if (trial.state != TrialState::kCompleted || !trial.objective || std::isnan(*trial.objective))
      continue;
    const std::string stage = StageOf(trial);
    if (stage == "retrain") return NasResult{&trial, true, BlockOf(trial)};
    if (stage == "confirm" && (!confirm || BlockOf(trial) > confirm->block))
      confirm = NasResult{&trial, false, BlockOf(trial)};
  }
  return confirm;
}

std::string NasResultStage(const NasResult& result) {
  if (result.retrain) return "retrain";
  return fmt::format("confirm of block {}, the retrain has not completed", result.block);
}

namespace report {

std::string NasStageLabel(const Json& params) {
  const auto stage = params.find("nas_stage");
  if (stage == params.end() || !stage->is_string()) return "";
  const std::string name = stage->get<std::string>();
  if (name == "retrain") return name;
  const int block = params.value("nas_block", 0);
  if (name == "round") return fmt::format("block {} round {}", block, params.value("nas_round", 0));
  return fmt::format("block {} {}", block, name);
}

std::string NasBestText(const std::vector<TrialRecord>& trials, const ReportContext& ctx) {
  const std::optional<NasResult> result = FindNasResult(trials);
  if (!result) return "- (no block confirmed yet)";
  return fmt::format("{}={} ({}) trial #{}, {}{}", ctx.metric.name,
                     FormatNumber(*result->trial->objective),
                     ModeName(ctx.metric.mode), result->trial->number,
                     NasResultStage(*result), InfeasibleText(*result->trial, ctx));
}

std::optional<std::string> FormatNasBest(const std::vector<TrialRecord>& trials,
                                         const ReportContext& ctx) {
  const std::optional<NasResult> result = FindNasResult(trials);
  if (!result) return std::nullopt;
  const TrialRecord& trial = *result->trial;
  std::string out =
      result->retrain
          ? fmt::format("Result of {}: trial #{}, the retrain of the confirmed blocks\n",
                        ctx.experiment_name, trial.number)
          : fmt::format("Result of {} so far: trial #{}, the confirm of block {} (the latest "
                        "confirmed block; the retrain has not completed)\n",
                        ctx.experiment_name, trial.number, result->block);
  out += fmt::format("Objective  {} = {} ({})\n", ctx.metric.name, FormatNumber(*trial.objective),
                     ModeName(ctx.metric.mode));
  out += ConstraintLines(trial, ctx);
  out += "Params\n";
  out += ParamLines(trial.params);
  out += fmt::format("Trial dir  {}\n",
                     ExperimentFiles{ctx.experiment_dir}.trial_dir(trial.number).string());
  return out;
}

std::string FormatNasNoBest(const std::vector<TrialRecord>& trials, const ReportContext& ctx) {
  int finished = 0;
  for (const TrialRecord& t : trials)
    finished += t.state == TrialState::kCompleted || t.state == TrialState::kFailed;
  return fmt::format("No block of {} is confirmed yet ({} of {} evaluations finished). A NAS "
                     "search's result is its retrain, or until then its latest confirm; round "
                     "and winner evaluations train on part of the data and are not results. "
                     "`gpusweep status` shows the tournament.\n",
                     ctx.experiment_name, finished, ctx.total_trials);
}

}  // namespace report
}  // namespace gpusweep
