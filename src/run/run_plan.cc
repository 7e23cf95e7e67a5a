#include "run/run_plan.h"

#include <algorithm>
#include <cassert>
#include <climits>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "gpusweep/nas.h"
#include "process/spawn.h"
#include "run/trial_env.h"
#include "run/trial_setup.h"

namespace gpusweep {
namespace {

// Where the command is in the YAML, to begin an error about what it reads.
std::string CommandPlace(const ExperimentConfig& config) {
  return YamlPlace(config, config.command_positions.empty() ? YamlPosition{} : config.command_positions.front());
}

// Errors found while planning (a template naming a missing param, a GPU list this
// machine cannot honour) are about the config: say which file, like the parser does.
template <class T>
Expected<T> InConfig(Expected<T> result, const ExperimentConfig& config) {
  if (result || result.error().code != ErrorCode::kInvalidConfig) return result;
  return Fail(ErrorCode::kInvalidConfig,
              fmt::format("{}: {}", config.config_path.string(), result.error().message));
}

// Too few GPUs for a trial is a mistake in the config, wherever the GPUs came from
// (NVML, --gpus, CUDA_VISIBLE_DEVICES or resources.gpus): exit 2, at the key's
// position, saying which of them limited the count.
Status InConfig(Status demand, const ExperimentConfig& config, const std::vector<std::string>& env,
                const std::optional<std::vector<int>>& cli_gpus) {
  if (demand) return demand;
  const ResourcesConfig& resources = config.resources;
  const std::string where =
      resources.gpus_per_trial_line > 0
          ? fmt::format("{}:{}:{}: resources.gpus_per_trial", config.config_path.string(),
                        resources.gpus_per_trial_line, resources.gpus_per_trial_column)
          : fmt::format("{}: resources.gpus_per_trial (not set: {} per trial by default)",
                        config.config_path.string(), resources.gpus_per_trial.front());
  const char* source = cli_gpus                                          ? "--gpus"
                       : LookupEnv(env, "CUDA_VISIBLE_DEVICES")          ? "CUDA_VISIBLE_DEVICES"
                       : resources.gpus == GpuMode::kList                ? "resources.gpus"
                                                                         : "NVML detection";
  return Fail(ErrorCode::kInvalidConfig,
              fmt::format("{}: {} (GPUs allowed by {})", where, demand.error().message, source));
}

// `configuration`: the trial number, or under cv the configuration its fold belongs to
// (a per-trial list names the sampler's configurations).
int GpusFor(const ResourcesConfig& resources, int configuration) {
  const auto& counts = resources.gpus_per_trial;
  if (counts.size() == 1) return counts.front();
  return counts.at(static_cast<std::size_t>(configuration));  // length validated below
}

// A mistyped program name would otherwise fail every trial, one by one. Names are
// looked up on PATH, absolute paths must exist, and a relative path must be a file a
// template renders into the trial directory (nothing else is there).
Status CheckProgramExists(const ExperimentConfig& config, const std::string& program,
                          const std::vector<std::string>& env) {
  if (program.find('/') != std::string::npos && program.front() != '/') {
    const std::string relative = std::filesystem::path(program).lexically_normal().string();
    for (const TemplateSpec& spec : config.templates)
      if (spec.dst == relative) return {};
    return Fail(ErrorCode::kInvalidConfig,
                fmt::format("{}: command[0]: '{}' is relative to the trial's directory (its "
                            "working directory), which holds only params.json and rendered "
                            "templates; use \"{{{{config_dir}}}}/{}\" for a file next to the "
                            "config, or render it with templates:",
                            config.config_path.string(), program,
                            std::filesystem::path(program).lexically_normal().string()));
  }
  Expected<std::filesystem::path> found = ResolveExecutable(program, env, "/");
  if (found) return {};
  return Fail(ErrorCode::kInvalidConfig,
              fmt::format("{}: command[0]: {}; fix the program name or give its full path",
                          config.config_path.string(), found.error().message));
}

// The budget trials are validated with: any value works, since only names matter.
std::optional<double> ValidationBudget(const ExperimentConfig& config) {
  if (config.scheduler.kind == SchedulerKind::kNone) return std::nullopt;
  return config.scheduler.min_resource;
}

// Budgeted trials read {{budget}}: rendering trial 0 with two budgets tells whether the
// command or a template depends on it (sections included), without parsing templates.
// (Under cv trial 0 is fold 0 of configuration 0, which has configuration 0's params.)
Expected<TrialStyle> DetectStyle(const ExperimentConfig& config, const Sampler& sampler,
                                 const std::filesystem::path& experiment_dir) {
  if (config.scheduler.kind == SchedulerKind::kNone) return TrialStyle::kIterative;
  const Suggestion first = sampler.Suggest(0, {});
  GS_ASSIGN_OR_RETURN(RenderedTrial one, RenderTrial(config, first, experiment_dir, 1.0));
  GS_ASSIGN_OR_RETURN(RenderedTrial two, RenderTrial(config, first, experiment_dir, 2.0));
  const bool reads_budget = one.argv != two.argv || one.files != two.files;
  return reads_budget ? TrialStyle::kBudgeted : TrialStyle::kIterative;
}

// With a scheduler, {{budget}} is the scheduler's: a parameter of that name would be
// silently shadowed in templates while params.json still held its value.
Status CheckBudgetName(const ExperimentConfig& config) {
  if (config.scheduler.kind == SchedulerKind::kNone) return {};
  for (const ParamSpec& param : config.search_space.params)
    if (param.name == "budget")
      return Fail(ErrorCode::kInvalidConfig,
                  fmt::format("{}:{}: search_space.budget: 'budget' is the scheduler's budget "
                              "({{{{budget}}}}) when a scheduler is set; rename the parameter",
                              config.config_path.string(), param.line));
  return {};
}

// {{budget}} without a scheduler renders as a missing name; say where it comes from.
Error ExplainBudgetWithoutScheduler(Error error, const ExperimentConfig& config) {
  if (config.scheduler.kind == SchedulerKind::kNone &&
      error.message.find("unknown name 'budget'") != std::string::npos)
    error.message += "; {{budget}} is set by a scheduler: add e.g. scheduler: {type: asha, "
                     "max_resource: 27} (see docs/config.md)";
  return error;
}

// Renders every trial once (and throws the text away) so that a name missing for any
// trial is an error now, not after hours of sweeping.
Status ValidateTrials(const ExperimentConfig& config, const RunPlan& plan,
                      const std::filesystem::path& experiment_dir,
                      const std::vector<std::string>& env,
                      const std::function<int()>& interrupted, const std::vector<int>& completed) {
  constexpr int kTrialsBetweenSignalChecks = 4096;
  const bool runs_again = config.scheduler.kind != SchedulerKind::kNone;
  auto next_completed = completed.begin();
  std::set<std::string> programs;
  const std::vector<TrialRecord> no_history;
  for (int number = 0; number < plan.total_trials(); ++number) {
    if (number % kTrialsBetweenSignalChecks == 0) {
      if (int signal = interrupted(); signal != 0)
        return Fail(ErrorCode::kInterrupted,
                    fmt::format("interrupted by {} while checking trial {} of {}; nothing was "
                                "started",
                                SignalName(signal),
                                number, plan.total_trials()));
    }
    while (next_completed != completed.end() && *next_completed < number) ++next_completed;
    if (!runs_again && next_completed != completed.end() && *next_completed == number) continue;
    Expected<PreparedTrial> trial = PrepareTrial(config, plan, experiment_dir, number, no_history,
                                                 nullptr, ValidationBudget(config));
    if (!trial) return tl::unexpected(ExplainBudgetWithoutScheduler(trial.error(), config));
    if (!config.shell) programs.insert(trial->rendered.argv.front());
  }
  for (const std::string& program : programs) GS_TRY(CheckProgramExists(config, program, env));
  return {};
}

Status PlanGpuDemand(const ExperimentConfig& config, RunPlan& plan) {
  const int total = plan.policy->total_trials();
  const int folds = config.cv.enabled() ? config.cv.folds : 1;
  const int configurations = total / folds;
  if (config.resources.gpus_per_trial.size() != 1 &&
      config.resources.gpus_per_trial.size() != static_cast<std::size_t>(configurations))
    return Fail(ErrorCode::kInvalidConfig,
                fmt::format("{}: resources.gpus_per_trial: has {} entries but the sampler plans {} "
                            "trials; give one count per trial or a single number",
                            config.config_path.string(), config.resources.gpus_per_trial.size(),
                            configurations));
  plan.gpus_needed.resize(static_cast<std::size_t>(total));
  for (int number = 0; number < total; ++number)
    plan.gpus_needed[number] = GpusFor(config.resources, number / folds);
  return {};
}

Status PlanResources(const ExperimentConfig& config, GpuProbe& probe,
                     const std::vector<std::string>& env,
                     const std::optional<std::vector<int>>& cli_gpus, int usable_cores,
                     RunPlan& plan) {
  std::vector<GpuInfo> detected;
  if (config.resources.gpus != GpuMode::kNone) {
    GS_ASSIGN_OR_RETURN(detected, probe.ListGpus());
  }
  GS_ASSIGN_OR_RETURN(
      AllowedGpus allowed,
      InConfig(ResolveAllowedGpus(detected, LookupEnv(env, "CUDA_VISIBLE_DEVICES"),
                                  config.resources, cli_gpus),
               config));
  plan.gpus = std::move(allowed.indices);
  plan.warnings = std::move(allowed.warnings);
  plan.cpu_slots = CpuSlots(config.resources, usable_cores);

  if (plan.gpus.empty()) {
    // CPU fallback: every trial takes one CPU slot regardless of gpus_per_trial.
    std::fill(plan.gpus_needed.begin(), plan.gpus_needed.end(), 0);
    if (config.resources.gpus != GpuMode::kNone)
      plan.warnings.push_back(fmt::format(
          "no GPU visible ({}); running trials on {} CPU slot{}",
          detected.empty() ? "NVML found no device" : "CUDA_VISIBLE_DEVICES/--gpus allow none",
          plan.cpu_slots, plan.cpu_slots == 1 ? "" : "s"));
    plan.concurrency = plan.cpu_slots;
  } else {
    GS_TRY(InConfig(CheckGpuDemand(plan.gpus_needed, static_cast<int>(plan.gpus.size())),
                    config, env, cli_gpus));
    const bool any_cpu_trial =
        std::find(plan.gpus_needed.begin(), plan.gpus_needed.end(), 0) != plan.gpus_needed.end();
    const GpuSharing sharing = GpuSharingFrom(config.resources);
    GS_TRY(InConfig(CheckGpuMemoryDemand(sharing, detected, plan.gpus), config));
    const int gpu_slots = SharedGpuSlots(sharing, detected, plan.gpus);
    plan.concurrency = any_cpu_trial ? std::min(gpu_slots, INT_MAX - plan.cpu_slots) + plan.cpu_slots
                                     : gpu_slots;
  }
  if (config.resources.max_concurrent)
    plan.concurrency = std::min(plan.concurrency, *config.resources.max_concurrent);
  plan.concurrency = std::max(plan.concurrency, 1);
  return {};
}

}  // namespace

Expected<PreparedTrial> PrepareTrial(const ExperimentConfig& config, const RunPlan& plan,
                                     const std::filesystem::path& experiment_dir, int number,
                                     const std::vector<TrialRecord>& history,
                                     const TrialRecord* previous, std::optional<double> budget,
                                     const std::optional<Params>& job_params) {
  PreparedTrial trial;
  if (job_params) {
    trial.suggestion = Suggestion{number, previous != nullptr ? previous->repeat : 0, *job_params};
  } else if (previous != nullptr && !previous->params.empty()) {
    trial.suggestion = Suggestion{number, previous->repeat, previous->params};
  } else if (plan.warm_history.empty()) {
    trial.suggestion = plan.policy->Suggest(number, history);
  } else {
    std::vector<TrialRecord> seeded = plan.warm_history;
    seeded.insert(seeded.end(), history.begin(), history.end());
    trial.suggestion = plan.policy->Suggest(number, seeded);
  }
  // RenderTrial's errors name the YAML file:line:column themselves.
  GS_ASSIGN_OR_RETURN(trial.rendered,
                      RenderTrial(config, trial.suggestion, experiment_dir, budget));
  return trial;
}

Expected<std::unique_ptr<SearchPolicy>> MakePolicy(const ExperimentConfig& config,
                                                   const std::filesystem::path& experiment_dir,
                                                   TrialStyle& style) {
  if (config.nas) {  // the tournament releases whole stages, never budgets
    style = TrialStyle::kBudgeted;
    return InConfig(MakeNasPolicy(*config.nas, ObjectiveOf(config)), config);
  }
  GS_ASSIGN_OR_RETURN(std::unique_ptr<Sampler> sampler,
                      MakeSampler(config.sampler, config.search_space, ObjectiveOf(config)));
  GS_TRY(CheckBudgetName(config));
  GS_TRY(CheckConditionalTemplates(config));
  GS_ASSIGN_OR_RETURN(style, DetectStyle(config, *sampler, experiment_dir));
  if (style == TrialStyle::kBudgeted && config.scheduler.max_resource <= 0)
    return Fail(ErrorCode::kInvalidConfig,
                fmt::format("{}scheduler.max_resource: the command reads {{{{budget}}}}, which "
                            "the {} scheduler sets to max_resource; add e.g. max_resource: 10",
                            CommandPlace(config), ToString(config.scheduler.kind)));
  if (config.scheduler.kind == SchedulerKind::kPbt) {  // a policy of its own, no Scheduler
    if (style != TrialStyle::kBudgeted)
      return Fail(ErrorCode::kInvalidConfig,
                  fmt::format("{}command: population-based training runs each member in "
                              "segments, and the command does not read {{{{budget}}}} (the {} "
                              "a segment trains to before it saves its checkpoint and exits); "
                              "pass it, e.g. --epochs {{{{budget}}}} (docs/config.md, "
                              "\"Population-based training\")",
                              CommandPlace(config), config.scheduler.resource));
    return InConfig(MakePbtSearchPolicy(config.scheduler, config.sampler, config.search_space,
                                        config.metric.mode),
                    config);
  }
  // Samplers and schedulers work on configurations; under cv each is several trials.
  GS_ASSIGN_OR_RETURN(std::unique_ptr<Scheduler> scheduler,
                      InConfig(MakeScheduler(config.scheduler, ObjectiveOf(config),
                                             sampler->total_trials(), style),
                               config));
  std::unique_ptr<SearchPolicy> policy =
      config.scheduler.kind == SchedulerKind::kBohb
          ? MakeBohbPolicy(std::move(sampler), std::move(scheduler), style, config.scheduler,
                           config.search_space, config.sampler.seed)
      : scheduler ? MakeScheduledPolicy(std::move(sampler), std::move(scheduler))
                  : MakeSweepPolicy(std::move(sampler));
  if (config.cv.enabled()) policy = MakeFoldPolicy(std::move(policy), config.cv);
  return policy;
}

Expected<RunPlan> PlanRun(const ExperimentConfig& config, const std::filesystem::path& experiment_dir,
                          GpuProbe& probe, const std::vector<std::string>& env,
                          const std::optional<std::vector<int>>& cli_gpus, int usable_cores,
                          const std::function<int()>& interrupted,
                          const std::vector<int>& completed) {
  assert(std::is_sorted(completed.begin(), completed.end()));
  RunPlan plan;
  GS_ASSIGN_OR_RETURN(plan.policy, MakePolicy(config, experiment_dir, plan.style));
  GS_TRY(PlanGpuDemand(config, plan));
  GS_TRY(PlanResources(config, probe, env, cli_gpus, usable_cores, plan));
  plan.warnings.insert(plan.warnings.begin(), config.warnings.begin(), config.warnings.end());
  GS_TRY(ValidateTrials(config, plan, experiment_dir, env, interrupted, completed));  // slow: last
  return plan;
}

}  // namespace gpusweep
