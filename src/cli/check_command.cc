// `gpusweep check CONFIG`: validate the config as `run` would (LoadConfig, then the same
// PlanRun through CheckExperiment) and print the plan; nothing is written.
#include <cmath>
#include <cstdio>
#include <string>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cli/commands.h"
#include "gpusweep/config.h"
#include "gpusweep/experiment.h"
#include "gpusweep/objective.h"
#include "gpusweep/resources.h"
#include "run/experiment_meta.h"

namespace gpusweep {
namespace {

// "the first 10 trials drawn at random", less the warm-start trials, which count toward
// n_startup_trials: with as many, the model is used from trial 0.
std::string StartupText(int startup, int warm_started, std::string_view how) {
  if (warm_started == 0) return fmt::format("the first {} trials drawn {}", startup, how);
  if (warm_started >= startup)
    return fmt::format("the model from trial 0: the {} warm-start trials count toward "
                       "n_startup_trials {}",
                       warm_started, startup);
  return fmt::format("the first {} trials drawn {}: the {} warm-start trials count toward "
                     "n_startup_trials {}",
                     startup - warm_started, how, warm_started, startup);
}

std::string Number(double x) {
  if (std::isinf(x)) return x < 0 ? "-inf" : "inf";
  return fmt::format("{:g}", x);
}

std::string Shape(const ParamSpec& p) {
  std::string text;
  if (p.q > 0) {
    text += fmt::format(", rounded to multiples of {}", Number(p.q));
    if (p.q_clip) text += fmt::format(" then clipped into [{}, {}]", Number(p.low), Number(p.high));
  }
  return text;
}

// When a conditional parameter is active: "; only when classifier = {"type":"svm"} and
// kernel in ["rbf","poly"]" (a sub-space's leaves carry their choice's condition), or
// nothing for a parameter of every trial.
std::string Conditions(const ParamSpec& p) {
  std::vector<std::string> conditions;
  for (const ParamCondition& c : p.when)
    conditions.push_back(c.values.size() == 1
                             ? fmt::format("{} = {}", c.param, DumpForPeople(c.values.front()))
                             : fmt::format("{} in {}", c.param, DumpForPeople(Json(c.values))));
  return conditions.empty() ? "" : fmt::format("; only when {}", fmt::join(conditions, " and "));
}

// A parameter's distribution in gpusweep's words (docs/config.md's types).
std::string DescribeParamForCheck(const ParamSpec& p) {
  std::string text;
  switch (p.kind) {
    case ParamKind::kChoice:
      text = fmt::format("choice of {}: {}", p.values.size(), DumpForPeople(Json(p.values)));
      if (!p.weights.empty()) text += fmt::format(", weights {}", DumpForPeople(Json(p.weights)));
      break;
    case ParamKind::kUniform:
      text = fmt::format("uniform over [{}, {}]", Number(p.low), Number(p.high));
      break;
    case ParamKind::kLogUniform:
      text = fmt::format("log-uniform over [{}, {}]", Number(p.low), Number(p.high));
      break;
    case ParamKind::kInt:
      text = fmt::format("int {}..{}", p.int_low, p.int_high);
      if (p.int_step != 1) text += fmt::format(" by {} from {}", p.int_step, p.int_low);
      if (p.int_log) text += ", log scale";
      break;
    case ParamKind::kNormal:
    case ParamKind::kLogNormal:
      text = p.kind == ParamKind::kNormal
                 ? fmt::format("normal(mu {}, sigma {})", Number(p.mu), Number(p.sigma))
                 : fmt::format("log-normal: exp(normal(mu {}, sigma {}))", Number(p.mu),
                               Number(p.sigma));
      if (!std::isinf(p.high) || (p.kind == ParamKind::kNormal ? !std::isinf(p.low) : p.low > 0))
        text += fmt::format(", truncated to [{}, {}]", Number(p.low), Number(p.high));
      break;
    case ParamKind::kConstant:
      text = "constant " + DumpForPeople(p.constant);
      break;
  }
  text += Shape(p);
  text += Conditions(p);
  if (!p.spelled.empty()) text += fmt::format("  (read from {})", p.spelled);
  return text;
}

// "objective: loss min", or "objectives: val_acc max, params_m min", then the
// constraints (each with its bounds) and a configured hypervolume reference.
std::string DescribeObjective(const ExperimentConfig& config) {
  const Objective objective = ObjectiveOf(config);
  std::vector<std::string> metrics;
  for (const MetricSpec& m : objective.metrics()) metrics.push_back(fmt::format("{} {}", m.name, ModeName(m.mode)));
  std::string out = fmt::format("{}: {}", objective.multi() ? "objectives" : "objective", fmt::join(metrics, ", "));
  std::vector<std::string> bounds;
  for (const ConstraintSpec& c : objective.constraints()) {
    if (c.min && c.max) bounds.push_back(fmt::format("{} <= {} <= {}", Number(*c.min), c.metric, Number(*c.max)));
    else if (c.min) bounds.push_back(fmt::format("{} >= {}", c.metric, Number(*c.min)));
    else if (c.max) bounds.push_back(fmt::format("{} <= {}", c.metric, Number(*c.max)));
  }
  if (!bounds.empty()) out += fmt::format("; feasible when {}", fmt::join(bounds, " and "));
  if (!config.hypervolume_reference.empty()) {
    std::vector<std::string> reference;
    for (std::size_t i = 0; i < config.hypervolume_reference.size(); ++i)
      reference.push_back(fmt::format("{}={}", objective.metrics()[i].name, Number(config.hypervolume_reference[i])));
    out += fmt::format("; hypervolume reference {}", fmt::join(reference, ", "));
  }
  return out + "\n";
}

}  // namespace

Expected<int> CheckCommand(const CheckCommandArgs& args) {
  GS_ASSIGN_OR_RETURN(ExperimentConfig config, LoadConfig(args.config_path));
  RunOptions options;
  options.experiment_dir =
      (args.dir ? std::filesystem::absolute(*args.dir)
                : DefaultExperimentDir(config, std::filesystem::current_path()))
          .lexically_normal();
  if (args.gpus) {
    GS_ASSIGN_OR_RETURN(options.cli_gpus, ParseGpuList(*args.gpus));
  }
  GS_ASSIGN_OR_RETURN(ExperimentCheck check, CheckExperiment(config, options, args.trials));

  std::string out = fmt::format("{}: valid; nothing was written\n", config.config_path.string());
  out += fmt::format("experiment {}: {} trials, would live in {}\n", config.name,
                     check.total_trials, options.experiment_dir.string());
  out += DescribeObjective(config);
  const SamplerConfig& s = config.sampler;
  out += fmt::format("sampler: {}", ToString(s.kind));
  if (s.kind != SamplerKind::kGrid) out += fmt::format(", seed {}", s.seed);
  if (s.kind == SamplerKind::kTpe)
    out += fmt::format(" ({}; {})",
                       s.tpe.multivariate ? "multivariate: one joint density" : "one density per parameter",
                       StartupText(s.tpe.n_startup_trials, check.warm_start_trials, "at random"));
  if (s.kind == SamplerKind::kGp)
    out += fmt::format(" ({}{}{})", StartupText(s.gp.n_startup_trials, check.warm_start_trials, "by sobol"),
                       config.metrics.empty() ? "" : "; ParEGO: the objectives scalarised under new weights each trial",
                       config.constraints.empty() ? "" : "; a GP per constraint bound");
  out += "\n";
  if (!check.warm_start.empty()) out += check.warm_start + "\n";
  if (!config.nas) {
    out += fmt::format("search space ({} parameter{}):\n", config.search_space.params.size(),
                       config.search_space.params.size() == 1 ? "" : "s");
    for (const ParamSpec& p : config.search_space.params)
      out += fmt::format("  {}: {}\n", p.name, DescribeParamForCheck(p));
  }
  out += fmt::format("first {} trials:\n", check.first_params.size());
  for (std::size_t k = 0; k < check.first_params.size(); ++k)
    out += fmt::format("  {}  {}{}\n", k, DumpForPeople(check.first_params[k]),
                       check.gpus_per_trial[k] > 0
                           ? fmt::format("  ({} GPU{})", check.gpus_per_trial[k],
                                         check.gpus_per_trial[k] == 1 ? "" : "s")
                           : "");
  if (!check.placement.empty())
    out += fmt::format("resources: {}; sbatch --test-only accepts its jobs\n", check.placement);
  else if (check.gpus.empty())
    out += fmt::format("resources: no GPUs; {} CPU slot{}, at most {} trial{} at once\n",
                       check.cpu_slots, check.cpu_slots == 1 ? "" : "s", check.concurrency,
                       check.concurrency == 1 ? "" : "s");
  else
    out += fmt::format("resources: GPUs {}, at most {} trial{} at once\n",
                       fmt::join(check.gpus, ","), check.concurrency, check.concurrency == 1 ? "" : "s");
  if (auto scheduler = SummarizeScheduler(config.scheduler)) {
    out += fmt::format("scheduler: {} on {}", scheduler->type, scheduler->resource);
    if (!check.rungs.empty()) {
      std::string rungs;
      for (double r : check.rungs) rungs += (rungs.empty() ? "" : ", ") + Number(r);
      out += fmt::format(", rungs at {}", rungs);
    }
    out += "\n";
  }
  for (const std::string& warning : check.warnings) out += "warning: " + warning + "\n";
  std::fputs(out.c_str(), stdout);
  std::fflush(stdout);
  return 0;
}

}  // namespace gpusweep
