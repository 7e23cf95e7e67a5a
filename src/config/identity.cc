// ConfigIdentity / DiffConfigIdentity (gpusweep/config.h): what makes two configs
// produce the same experiment, and where two identities differ.
#include <fmt/format.h>

#include <cmath>
#include <string>

#include "config/template_parser.h"
#include "gpusweep/config.h"
#include "gpusweep/objective.h"

namespace gpusweep {
namespace {

// The distribution block (config.h), only where used, so that identities of experiments
// recorded before it existed are unchanged.
void AddShapeIdentity(const ParamSpec& param, Json& identity) {
  if (param.q > 0) identity["q"] = param.q;
  if (param.q_clip) identity["clip"] = true;
  if (!param.weights.empty()) identity["weights"] = param.weights;
}

Json BareParamIdentity(const ParamSpec& param) {
  switch (param.kind) {
    case ParamKind::kNormal:
    case ParamKind::kLogNormal: {
      // An absent bound is null (JSON has no infinity), so the identity read back from
      // the journal equals the one computed from the YAML on resume.
      const auto bound = [](double x) { return std::isfinite(x) ? Json(x) : Json(nullptr); };
      return Json{{"type", param.kind == ParamKind::kNormal ? "normal" : "lognormal"},
                  {"mu", param.mu},
                  {"sigma", param.sigma},
                  {"low", bound(param.low)},
                  {"high", bound(param.high)}};
    }
    case ParamKind::kChoice:
      return Json{{"type", "choice"}, {"values", param.values}};
    case ParamKind::kUniform:
      return Json{{"type", "uniform"}, {"low", param.low}, {"high", param.high}};
    case ParamKind::kLogUniform:
      return Json{{"type", "loguniform"}, {"low", param.low}, {"high", param.high}};
    case ParamKind::kInt: {
      Json identity{{"type", "int"},
                    {"low", param.int_low},
                    {"high", param.int_high},
                    {"step", param.int_step}};
      if (param.int_log) identity["log"] = true;  // absent otherwise: identities unchanged
      return identity;
    }
    case ParamKind::kConstant:
      break;
  }
  return Json{{"type", "constant"}, {"value", param.constant}};
}

Json ParamIdentity(const ParamSpec& param) {
  Json identity = BareParamIdentity(param);
  AddShapeIdentity(param, identity);
  return identity;
}

Json SamplerKindIdentity(const SamplerConfig& sampler) {
  switch (sampler.kind) {
    case SamplerKind::kGrid:
      return Json{{"type", "grid"}, {"repeats", sampler.repeats}};
    case SamplerKind::kRandom:
      break;
    case SamplerKind::kSobol:
      return Json{{"type", "sobol"}, {"trials", sampler.trials}, {"seed", sampler.seed}};
    case SamplerKind::kCmaes:
      return Json{{"type", "cmaes"},
                  {"trials", sampler.trials},
                  {"seed", sampler.seed},
                  {"population_size", sampler.cmaes.population_size},
                  {"sigma0", sampler.cmaes.sigma0},
                  {"restart", sampler.cmaes.ipop ? "ipop" : "none"}};
    case SamplerKind::kEvolution:
      return Json{{"type", "evolution"},
                  {"trials", sampler.trials},
                  {"seed", sampler.seed},
                  {"population", sampler.evolution.population},
                  {"sample", sampler.evolution.sample}};
    case SamplerKind::kGp:
      return Json{{"type", "gp"},
                  {"trials", sampler.trials},
                  {"seed", sampler.seed},
                  {"n_startup_trials", sampler.gp.n_startup_trials},
                  {"max_model_trials", sampler.gp.max_model_trials}};
    case SamplerKind::kTpe: {
      const TpeConfig& tpe = sampler.tpe;
      return Json{{"type", "tpe"},
                  {"trials", sampler.trials},
                  {"seed", sampler.seed},
                  {"n_startup_trials", tpe.n_startup_trials},
                  {"n_ei_candidates", tpe.n_ei_candidates},
                  {"prior_weight", tpe.prior_weight},
                  {"multivariate", tpe.multivariate},
                  {"constant_liar", tpe.constant_liar},
                  {"consider_magic_clip", tpe.consider_magic_clip},
                  {"consider_endpoints", tpe.consider_endpoints}};
    }
    case SamplerKind::kNsga2: {
      const Nsga2Config& nsga2 = sampler.nsga2;
      return Json{{"type", "nsga2"},
                  {"trials", sampler.trials},
                  {"seed", sampler.seed},
                  {"population", nsga2.population},
                  {"crossover_prob", nsga2.crossover_prob},
                  {"mutation_prob", nsga2.mutation_prob},
                  {"crossover_eta", nsga2.crossover_eta},
                  {"mutation_eta", nsga2.mutation_eta}};
    }
  }
  return Json{{"type", "random"}, {"trials", sampler.trials}, {"seed", sampler.seed}};
}

Json SamplerIdentity(const SamplerConfig& sampler) {
  Json identity = SamplerKindIdentity(sampler);
  // Absent when empty, so experiments created before enqueue existed keep their identity.
  if (!sampler.enqueue.empty()) identity["enqueue"] = sampler.enqueue;
  return identity;
}

// Every field, so that any change to how trials are stopped is a different experiment.
Json SchedulerIdentity(const SchedulerConfig& scheduler) {
  Json identity{{"type", ToString(scheduler.kind)},
                {"resource", scheduler.resource},
                {"min_resource", scheduler.min_resource},
                {"max_resource", scheduler.max_resource},
                {"reduction_factor", scheduler.reduction_factor},
                {"growth", scheduler.growth == BudgetGrowth::kLinear ? "linear" : "geometric"},
                {"budget_step", scheduler.budget_step},
                {"grace_steps", scheduler.grace_steps},
                {"min_trials", scheduler.min_trials}};
  identity["brackets"] = scheduler.brackets ? Json(*scheduler.brackets) : Json();
  // Only for pbt, so every earlier scheduler keeps its identity.
  if (scheduler.kind == SchedulerKind::kPbt) {
    const PbtConfig& pbt = scheduler.pbt;
    identity["pbt"] = Json{{"perturbation_interval", pbt.perturbation_interval},
                           {"population", pbt.population},
                           {"quantile", pbt.quantile},
                           {"synchronous", pbt.synchronous},
                           {"resample_probability", pbt.resample_probability},
                           {"factors", pbt.factors},
                           {"mutations", pbt.mutations}};
    if (!pbt.replay.empty()) identity["pbt"]["replay"] = pbt.replay;  // older ones keep theirs
  }
  if (scheduler.kind == SchedulerKind::kBohb)
    identity["bohb"] = Json{{"random_fraction", scheduler.bohb.random_fraction},
                            {"min_points_in_model", scheduler.bohb.min_points_in_model}};
  return identity;
}

// The template's text, so that editing it changes the identity. Bytes that are not
// UTF-8 cannot live in a JSON string; they are kept as hex instead.
Json TemplateIdentity(const TemplateSpec& spec) {
  Json identity{{"dst", spec.dst}};
  try {
    (void)Json(spec.text).dump();
    identity["content"] = spec.text;
  } catch (const Json::type_error&) {
    std::string hex;
    for (unsigned char byte : spec.text) hex += fmt::format("{:02x}", byte);
    identity["content_hex"] = std::move(hex);
  }
  return identity;
}

void Diff(const std::string& path, const Json& before, const Json& after,
          std::vector<std::string>& out) {
  if (before == after) return;
  const std::string where = path.empty() ? "(all)" : path;
  auto child = [&](std::string_view key) {
    return path.empty() ? std::string(key) : fmt::format("{}.{}", path, key);
  };
  if (before.is_object() && after.is_object()) {
    const std::size_t found_before = out.size();
    for (const auto& [key, value] : before.items()) {
      if (!after.contains(key))
        out.push_back(child(key) + " (removed)");
      else
        Diff(child(key), value, after.at(key), out);
    }
    for (const auto& [key, value] : after.items())
      if (!before.contains(key)) out.push_back(child(key) + " (added)");
    if (out.size() == found_before) out.push_back(where + " (order changed)");
    return;
  }
  if (before.is_array() && after.is_array() && before.size() == after.size()) {
    for (std::size_t i = 0; i < before.size(); ++i)
      Diff(fmt::format("{}[{}]", path, i), before[i], after[i], out);
    return;
  }
  out.push_back(where);
}

}  // namespace

std::string_view ToString(SamplerKind kind) {
  switch (kind) {
    case SamplerKind::kGrid: return "grid";
    case SamplerKind::kRandom: return "random";
    case SamplerKind::kSobol: return "sobol";
    case SamplerKind::kTpe: return "tpe";
    case SamplerKind::kCmaes: return "cmaes";
    case SamplerKind::kEvolution: return "evolution";
    case SamplerKind::kGp: return "gp";
    case SamplerKind::kNsga2: return "nsga2";
  }
  return "random";
}

std::string_view ToString(SchedulerKind kind) {
  switch (kind) {
    case SchedulerKind::kNone: return "none";
    case SchedulerKind::kMedian: return "median";
    case SchedulerKind::kSuccessiveHalving: return "successive_halving";
    case SchedulerKind::kAsha: return "asha";
    case SchedulerKind::kHyperband: return "hyperband";
    case SchedulerKind::kPbt: return "pbt";
    case SchedulerKind::kBohb: return "bohb";
  }
  return "none";
}

Json ConfigIdentity(const ExperimentConfig& config) {
  Json identity = Json::object();
  identity["command"] = config.shell ? Json(config.shell_command) : Json(config.command);
  identity["shell"] = config.shell;
  identity["metric"] = Json{{"name", config.metric.name},
                            {"mode", ModeName(config.metric.mode)}};
  // Absent with one metric and no constraints, so earlier experiments keep their identity.
  if (!config.metrics.empty()) {
    Json metrics = Json::array();
    for (const MetricSpec& m : config.metrics)
      metrics.push_back(Json{{"name", m.name}, {"mode", ModeName(m.mode)}});
    identity["metrics"] = std::move(metrics);
  }
  if (!config.constraints.empty()) {
    Json constraints = Json::array();
    for (const ConstraintSpec& c : config.constraints) {
      Json entry{{"metric", c.metric}};
      if (c.min) entry["min"] = *c.min;
      if (c.max) entry["max"] = *c.max;
      constraints.push_back(std::move(entry));
    }
    identity["constraints"] = std::move(constraints);
  }
  identity["sampler"] = SamplerIdentity(config.sampler);
  // Absent without a scheduler, so experiments created before schedulers existed
  // keep their identity.
  if (config.scheduler.kind != SchedulerKind::kNone)
    identity["scheduler"] = SchedulerIdentity(config.scheduler);
  Json space = Json::object();
  for (const ParamSpec& param : config.search_space.params) {
    Json one = ParamIdentity(param);
    // Conditions only where the space has them, so older identities are unchanged.
    if (!param.when.empty()) {
      Json when = Json::array();
      for (const ParamCondition& c : param.when)
        when.push_back(Json{{"param", c.param}, {"values", c.values}});
      one["when"] = std::move(when);
    }
    // One name in two sub-spaces of a choice (nested_space.h): a list of the leaves.
    if (space.contains(param.name)) {
      if (!space[param.name].is_array()) space[param.name] = Json::array({space[param.name]});
      space[param.name].push_back(std::move(one));
    } else {
      space[param.name] = std::move(one);
    }
  }
  identity["search_space"] = std::move(space);
  Json templates = Json::array();
  for (const TemplateSpec& spec : config.templates) templates.push_back(TemplateIdentity(spec));
  identity["templates"] = std::move(templates);
  // Which experiment seeded the sampler (its trials are journaled when this one is
  // created); absent without one, as in experiments created before warm starts existed.
  // Absent without nas:, so sweeps keep the identity they had before NAS existed.
  if (config.nas) identity["nas"] = NasConfigJson(*config.nas);
  if (config.warm_start) {
    identity["warm_start"] = Json{{"from", config.warm_start->from.string()}};
    // Absent without defaults, so warm starts from before defaults keep their identity.
    if (!config.warm_start->defaults.empty())
      identity["warm_start"]["defaults"] = config.warm_start->defaults;
  }
  // Fold k of configuration c is trial c * folds + k, and the failures allowed decide
  // which configurations count: both define the results. Absent without cv.
  if (config.cv.enabled())
    identity["cv"] = Json{{"folds", config.cv.folds},
                          {"allow_failed_folds", config.cv.allow_failed_folds}};
  return identity;
}

std::vector<std::string> DiffConfigIdentity(const Json& before, const Json& after) {
  std::vector<std::string> differences;
  Diff("", before, after, differences);
  return differences;
}

}  // namespace gpusweep
