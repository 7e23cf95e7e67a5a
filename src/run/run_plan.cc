#include "run/run_plan.h"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace gpusweep {
namespace {

// Errors found while planning (a template naming a missing param, a GPU list this
// machine cannot honour) are about the config: say which file, like the parser does.
template <class T>
Expected<T> InConfig(Expected<T> result, const ExperimentConfig& config) {
  if (result || result.error().code != ErrorCode::kInvalidConfig) return result;
  return Fail(ErrorCode::kInvalidConfig,
              fmt::format("{}: {}", config.config_path.string(), result.error().message));
}

int GpusFor(const ResourcesConfig& resources, int number) {
  const auto& counts = resources.gpus_per_trial;
  if (counts.size() == 1) return counts.front();
  return counts.at(static_cast<std::size_t>(number));  // length validated by the config parser
}

Expected<std::vector<PlannedTrial>> PlanTrials(const ExperimentConfig& config,
                                               const std::filesystem::path& experiment_dir) {
  GS_ASSIGN_OR_RETURN(auto sampler, MakeSampler(config.sampler, config.search_space));
  GS_ASSIGN_OR_RETURN(auto sources, ReadTemplateSources(config));
  const int total = sampler->total_trials();
  if (config.resources.gpus_per_trial.size() != 1 &&
      config.resources.gpus_per_trial.size() != static_cast<std::size_t>(total))
    return Fail(ErrorCode::kInvalidConfig,
                fmt::format("{}: resources.gpus_per_trial: has {} entries but the sampler plans {} "
                            "trials; give one count per trial or a single number",
                            config.config_path.string(), config.resources.gpus_per_trial.size(),
                            total));
  std::vector<PlannedTrial> trials;
  trials.reserve(static_cast<std::size_t>(total));
  const std::vector<TrialRecord> no_history;
  for (int number = 0; number < total; ++number) {
    PlannedTrial trial;
    trial.suggestion = sampler->Suggest(number, no_history);
    GS_ASSIGN_OR_RETURN(trial.rendered,
                        InConfig(RenderTrial(config, sources, trial.suggestion, experiment_dir),
                                 config));
    trial.gpus_needed = GpusFor(config.resources, number);
    trials.push_back(std::move(trial));
  }
  return trials;
}

}  // namespace

Expected<RunPlan> PlanRun(const ExperimentConfig& config, const std::filesystem::path& experiment_dir,
                          GpuProbe& probe, const std::optional<std::string>& cuda_visible_devices,
                          const std::optional<std::vector<int>>& cli_gpus, int usable_cores) {
  RunPlan plan;
  GS_ASSIGN_OR_RETURN(plan.trials, PlanTrials(config, experiment_dir));

  std::vector<GpuInfo> detected;
  if (config.resources.gpus != GpuMode::kNone) {
    GS_ASSIGN_OR_RETURN(detected, probe.ListGpus());
  }
  GS_ASSIGN_OR_RETURN(
      AllowedGpus allowed,
      InConfig(ResolveAllowedGpus(detected, cuda_visible_devices, config.resources, cli_gpus),
               config));
  plan.gpus = std::move(allowed.indices);
  plan.warnings = std::move(allowed.warnings);
  plan.cpu_slots = CpuSlots(config.resources, usable_cores);

  if (plan.gpus.empty()) {
    // CPU fallback: every trial takes one CPU slot regardless of gpus_per_trial.
    for (PlannedTrial& trial : plan.trials) trial.gpus_needed = 0;
    if (config.resources.gpus != GpuMode::kNone)
      plan.warnings.push_back(fmt::format(
          "no GPU visible ({}); running trials on {} CPU slot{}",
          detected.empty() ? "NVML found no device" : "CUDA_VISIBLE_DEVICES/--gpus allow none",
          plan.cpu_slots, plan.cpu_slots == 1 ? "" : "s"));
    plan.concurrency = plan.cpu_slots;
  } else {
    std::vector<int> demand;
    for (const PlannedTrial& trial : plan.trials) demand.push_back(trial.gpus_needed);
    GS_TRY(CheckGpuDemand(demand, static_cast<int>(plan.gpus.size())));
    bool any_cpu_trial = std::any_of(plan.trials.begin(), plan.trials.end(),
                                     [](const PlannedTrial& t) { return t.gpus_needed == 0; });
    plan.concurrency = static_cast<int>(plan.gpus.size()) + (any_cpu_trial ? plan.cpu_slots : 0);
  }
  if (config.resources.max_concurrent)
    plan.concurrency = std::min(plan.concurrency, *config.resources.max_concurrent);
  plan.concurrency = std::max(plan.concurrency, 1);
  return plan;
}

}  // namespace gpusweep
