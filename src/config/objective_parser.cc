// ParseObjective / CheckObjectiveSupport (objective_parser.h).
#include "config/objective_parser.h"

#include <fmt/format.h>

#include <array>
#include <map>
#include <string>

namespace gpusweep::config_detail {
namespace {

constexpr std::array<std::string_view, 4> kObjectiveMetricKeys{"name", "mode", "goal", "direction"};
// Ray Tune's words, then Optuna's and W&B's (`direction`/`goal: minimize`).
constexpr std::array<std::string_view, 4> kObjectiveModes{"min", "max", "minimize", "maximize"};
constexpr std::array<std::string_view, 3> kConstraintKeys{"metric", "min", "max"};

Expected<MetricSpec> ParseObjectiveMetric(const Value& value) {
  GS_ASSIGN_OR_RETURN(Mapping metric, value.ToMapping());
  GS_TRY(metric.CheckKeys(kObjectiveMetricKeys));
  MetricSpec spec;
  GS_ASSIGN_OR_RETURN(Value name, metric.Require("name", "add the reported key, e.g. name: val_acc"));
  GS_ASSIGN_OR_RETURN(spec.name, name.ToText());
  if (spec.name.empty()) return name.Invalid("the metric name is empty", "e.g. name: val_acc");
  // One of mode (ours, Ray's), goal (W&B's), direction (Optuna's).
  const Value* mode = nullptr;
  for (std::string_view key : {"mode", "goal", "direction"}) {
    const Value* found = metric.Find(key);
    if (found == nullptr) continue;
    if (mode != nullptr)
      return found->Invalid(fmt::format("'{}' says the same as '{}'", key, mode->path()),
                            "give only mode: min or mode: max");
    mode = found;
  }
  if (mode == nullptr)
    return tl::unexpected(
        metric.Require("mode", fmt::format("add mode: min or mode: max for {}", spec.name)).error());
  GS_ASSIGN_OR_RETURN(std::string_view mode_text, mode->ToEnum(kObjectiveModes));
  spec.mode = mode_text.starts_with("min") ? Mode::kMin : Mode::kMax;
  return spec;
}

Status ParseObjectiveList(const Value& value, ExperimentConfig& config) {
  if (!value.IsList())
    return value.WrongType("a list of {name, mode}",
                           "write metrics: [{name: val_acc, mode: max}, {name: params_m, mode: min}]");
  GS_ASSIGN_OR_RETURN(std::vector<Value> list, value.ToList());
  if (list.size() == 1)
    return value.Invalid("lists one objective",
                         "write metric: {name: ..., mode: ...} for one, or list 2 to 8");
  if (list.size() < 2 || list.size() > kMaxObjectives)
    return value.Invalid(fmt::format("lists {} objectives", list.size()),
                         fmt::format("list 2 to {} objectives", kMaxObjectives));
  std::map<std::string, int> lines;  // name -> line of its first entry
  for (const Value& element : list) {
    GS_ASSIGN_OR_RETURN(MetricSpec spec, ParseObjectiveMetric(element));
    if (const auto it = lines.find(spec.name); it != lines.end())
      return element.Invalid(
          fmt::format("metric '{}' is named twice (first on line {})", spec.name, it->second),
          "list each objective once");
    lines.emplace(spec.name, element.line());
    config.metrics.push_back(std::move(spec));
  }
  config.metric = config.metrics.front();
  return {};
}

Expected<std::optional<double>> ParseConstraintBound(const Mapping& entry, std::string_view key) {
  const Value* bound = entry.Find(key);
  if (bound == nullptr || bound->IsNull()) return std::optional<double>();
  GS_ASSIGN_OR_RETURN(double number, bound->ToNumber());  // finite: ToNumber refuses .inf, .nan
  return std::optional<double>(number);
}

Status ParseConstraints(const Value* value, ExperimentConfig& config) {
  if (value == nullptr || value->IsNull()) return {};
  if (!value->IsList())
    return value->WrongType("a list of {metric, min, max}",
                            "write constraints: [{metric: latency_ms, max: 10}]");
  GS_ASSIGN_OR_RETURN(std::vector<Value> list, value->ToList());
  for (const Value& element : list) {
    GS_ASSIGN_OR_RETURN(Mapping entry, element.ToMapping());
    GS_TRY(entry.CheckKeys(kConstraintKeys));
    ConstraintSpec spec;
    GS_ASSIGN_OR_RETURN(
        Value metric, entry.Require("metric", "name the reported metric it bounds, e.g. metric: latency_ms"));
    GS_ASSIGN_OR_RETURN(spec.metric, metric.ToText());
    if (spec.metric.empty())
      return metric.Invalid("the constraint's metric name is empty", "e.g. metric: latency_ms");
    GS_ASSIGN_OR_RETURN(spec.min, ParseConstraintBound(entry, "min"));
    GS_ASSIGN_OR_RETURN(spec.max, ParseConstraintBound(entry, "max"));
    if (!spec.min && !spec.max)
      return element.Invalid(fmt::format("the constraint on '{}' has no bound", spec.metric),
                             "add min: and/or max:, e.g. max: 10");
    if (spec.min && spec.max && *spec.min > *spec.max)
      return element.Invalid(fmt::format("the constraint on '{}' has min {:g} > max {:g}",
                                         spec.metric, *spec.min, *spec.max),
                             "no value could satisfy it; swap them or fix one");
    config.constraints.push_back(std::move(spec));
  }
  return {};
}

// `hypervolume_reference: {name: value, ...}`: one finite number per objective.
Status ParseHypervolumeReference(const Value* value, ExperimentConfig& config) {
  if (value == nullptr || value->IsNull()) return {};
  if (config.metrics.empty())
    return value->Invalid("hypervolume_reference needs several objectives",
                          "list them under metrics: [{name: ..., mode: ...}, ...], or drop the key");
  std::vector<std::string> names;
  for (const MetricSpec& m : config.metrics) names.push_back(m.name);
  const std::string example = fmt::format("e.g. hypervolume_reference: {{{}: ..., {}: ...}}",
                                          names[0], names[1]);
  if (!value->IsMapping()) return value->WrongType("a mapping of each objective to a number", example);
  GS_ASSIGN_OR_RETURN(Mapping reference, value->ToMapping());
  std::vector<std::string_view> valid(names.begin(), names.end());
  GS_TRY(reference.CheckKeys(valid));
  for (const MetricSpec& m : config.metrics) {
    GS_ASSIGN_OR_RETURN(Value entry, reference.Require(m.name, fmt::format(
        "give a reference value for every objective ({})", example)));
    GS_ASSIGN_OR_RETURN(double number, entry.ToNumber());
    config.hypervolume_reference.push_back(number);
  }
  return {};
}

// What the search asks for, and why it cannot take the objective.
Status RefuseObjectiveAt(const Mapping& top, std::string_view section, std::string_view problem,
                         std::string_view hint) {
  const Value* at = top.Find(section);
  if (at != nullptr && at->IsMapping())
    if (const YAML::Node type = at->node()["type"]; type) return at->Child(type, "type").Invalid(problem, hint);
  return (at ? *at : top.self()).Invalid(problem, hint);
}

}  // namespace

Status ParseObjective(const Mapping& top, ExperimentConfig& config) {
  const Value* metric = top.Find("metric");
  const Value* metrics = top.Find("metrics");
  if (metric != nullptr && metrics != nullptr)
    return metrics->Invalid(fmt::format("metric: (line {}) and metrics: are both given", metric->line()),
                            "give metric: for one objective or metrics: for 2 to 8");
  if (metrics != nullptr) {
    GS_TRY(ParseObjectiveList(*metrics, config));
  } else {
    GS_ASSIGN_OR_RETURN(
        Value value,
        top.Require("metric", "add e.g. metric: {name: val_acc, mode: max} (or metrics: [...] "
                              "for several objectives)"));
    GS_ASSIGN_OR_RETURN(config.metric, ParseObjectiveMetric(value));
  }
  GS_TRY(ParseConstraints(top.Find("constraints"), config));
  return ParseHypervolumeReference(top.Find("hypervolume_reference"), config);
}

Status CheckObjectiveSupport(const Mapping& top, const ExperimentConfig& config) {
  const bool multi = !config.metrics.empty();
  const bool constrained = !config.constraints.empty();
  if (!multi && !constrained) return {};
  const std::string_view asked = multi ? "several objectives (metrics:)" : "constraints";
  // NAS ranks by one metric; constraints it honours (an infeasible evaluation ranks below
  // every feasible one in its round: nas/tournament.h).
  if (config.nas && multi)
    return RefuseObjectiveAt(top, "metrics", "a NAS experiment does not take several objectives (metrics:)",
                             "NAS is single-objective: give metric: {name: ..., mode: ...}, and "
                             "constraints: [...] for the other metrics' bounds");
  if (config.nas) return {};
  const SamplerKind kind = config.sampler.kind;
  // tpe is multi-objective TPE with several metrics or constraints, gp ParEGO with
  // constrained expected improvement (docs/samplers.md).
  if (kind == SamplerKind::kCmaes || kind == SamplerKind::kEvolution)
    return RefuseObjectiveAt(
        top, "sampler",
        fmt::format("the {} sampler models one metric and cannot honour {}", ToString(kind), asked),
        fmt::format("use sampler type tpe, gp or nsga2 (or random, sobol, grid), or one metric without "
                    "constraints for {}",
                    ToString(kind)));
  // asha, hyperband and successive_halving rank rungs by Pareto ranking (multi-objective
  // ASHA). The median rule compares a trial with the median of the others' values, and
  // vectors have no median that orders them (a componentwise one is dominated by no
  // one and dominates no one), so it refuses rather than quietly using the first metric.
  const SchedulerKind scheduler = config.scheduler.kind;
  if (scheduler == SchedulerKind::kPbt)
    return RefuseObjectiveAt(
        top, "scheduler",
        fmt::format("population-based training ranks members by one metric and cannot "
                    "honour {}", asked),
        "remove scheduler:, or give one metric without constraints");
  if (scheduler == SchedulerKind::kBohb)
    return RefuseObjectiveAt(
        top, "scheduler",
        fmt::format("BOHB models one metric at each budget and cannot honour {}", asked),
        "use scheduler: {type: hyperband, ...} with sampler: {type: tpe} (multi-objective TPE "
        "over Pareto-ranked brackets), or give one metric without constraints");
  if (scheduler == SchedulerKind::kMedian)
    return RefuseObjectiveAt(
        top, "scheduler",
        fmt::format("the median scheduler stops trials by one metric and cannot honour {}", asked),
        "use scheduler: {type: asha, ...} (multi-objective ASHA: Pareto ranking at each rung), "
        "hyperband or successive_halving, or give one metric without constraints");
  // cv: a configuration's objectives and violation are its folds' means (gpusweep/cv.h).
  return {};
}

}  // namespace gpusweep::config_detail
