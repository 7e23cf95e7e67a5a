// RunOnSlurm: the run loop with SLURM jobs instead of local processes (runner.h).
#include <algorithm>
#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "backend/slurm_runner.h"
#include "backend/slurm_text.h"
#include "run/runner.h"
#include "run/trial_env.h"

namespace gpusweep {
namespace {

// GPUs by count only: the loop's pool limits how many jobs hold GPUs at once; which
// devices a job gets is SLURM's choice (it sets the job's CUDA_VISIBLE_DEVICES).
class CountedGpus final : public GpuProbe {
 public:
  explicit CountedGpus(int count) : count_(count) {}
  Expected<std::vector<GpuInfo>> ListGpus() override {
    std::vector<GpuInfo> gpus;
    for (int i = 0; i < count_; ++i) gpus.push_back(GpuInfo{i, "SLURM gres gpu", "", 0});
    return gpus;
  }

 private:
  int count_;
};

double WallClock() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}
double MonotonicClock() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// What picks this machine's GPUs or cores means nothing for SLURM jobs (SLURM picks
// their devices; max_concurrent or backend.max_jobs bounds them): said once, not ignored
// silently. nullopt when nothing of the sort is set.
std::optional<std::string> LocalOnlySettings(const ExperimentConfig& config, const RunOptions& options) {
  std::vector<std::string> ignored;
  if (options.cli_gpus) ignored.push_back("--gpus");
  if (config.resources.gpus == GpuMode::kList) ignored.push_back("resources.gpus (a list of GPU indices)");
  if (config.resources.cpu_slots) ignored.push_back("resources.cpu_slots");
  if (ignored.empty()) return std::nullopt;
  std::string list;
  for (const std::string& item : ignored) list += (list.empty() ? "" : ", ") + item;
  return "ignored with the SLURM backend: " + list +
         " (they choose this machine's GPUs or cores; SLURM chooses each job's GPUs: "
         "resources.gpus_per_trial sets how many, max_concurrent or backend.max_jobs how many "
         "jobs at once)";
}

}  // namespace

SlurmRunSetup SetUpSlurmRun(const ExperimentConfig& config, const RunOptions& options) {
  SlurmRunSetup setup;
  setup.jobs = config.resources.max_concurrent.value_or(config.backend.slurm.max_jobs);
  setup.most_gpus = config.resources.gpus == GpuMode::kNone
                        ? 0
                        : *std::ranges::max_element(config.resources.gpus_per_trial);
  // The login node's GPUs mean nothing here: every job gets its own from SLURM.
  setup.config = config;
  ResourcesConfig& resources = setup.config.resources;
  if (resources.gpus == GpuMode::kList) resources.gpus = GpuMode::kAuto;
  if (setup.most_gpus == 0) resources.gpus = GpuMode::kNone;  // no "no GPU visible" warning
  resources.cpu_slots = setup.jobs;
  setup.options = options;
  setup.options.cli_gpus.reset();
  for (const std::string& entry : CurrentEnvironment())
    if (!entry.starts_with("CUDA_VISIBLE_DEVICES=")) setup.env.push_back(entry);

  SlurmRunnerOptions& slurm = setup.slurm;
  slurm.slurm = config.backend.slurm;
  slurm.time_limit_seconds = config.backend.slurm.time_seconds;
  if (!slurm.time_limit_seconds && config.timeout_seconds)
    slurm.time_limit_seconds = *config.timeout_seconds + config.kill_grace_seconds + 60;
  slurm.scope = ProcessScopeFor(options.experiment_dir);
  slurm.experiment_dir = options.experiment_dir;
  slurm.env = setup.env;
  slurm.max_gpus_per_trial = setup.most_gpus;
  slurm.backend_line = config.backend.line;
  slurm.gpus_per_trial_line = config.resources.gpus_per_trial_line;
  setup.gpus = std::make_unique<CountedGpus>(setup.most_gpus * setup.jobs);
  setup.placement = DescribeSlurmPlacement(
      config.backend.slurm,
      setup.most_gpus == 0 ? std::vector<int>{} : config.resources.gpus_per_trial, setup.jobs);
  setup.ignored = LocalOnlySettings(config, options);
  return setup;
}

Expected<RunOutcome> RunOnSlurm(const ExperimentConfig& config, const RunOptions& options,
                                RunObserver& observer) {
  SlurmRunSetup setup = SetUpSlurmRun(config, options);
  GS_ASSIGN_OR_RETURN(std::unique_ptr<ProcessRunner> runner,
                      MakeSlurmProcessRunner(setup.slurm, config.config_path));
  RunServices services;
  services.processes = runner.get();
  services.gpu_probe = setup.gpus.get();
  services.wall_clock = WallClock;
  services.monotonic_clock = MonotonicClock;
  services.base_env = setup.env;
  // Thread variables (OMP_NUM_THREADS, ...) = cores / slots = the job's CPUs.
  services.usable_cores = setup.jobs * config.backend.slurm.cpus_per_trial;
  services.kill_stale_group = [](int, std::uint64_t, double) { return false; };
  services.process_start_ticks = [](int) { return std::optional<std::uint64_t>(); };
  services.placement = setup.placement;
  if (setup.ignored) observer.OnWarning(*setup.ignored);
  return RunExperimentWith(setup.config, setup.options, services, observer);
}

}  // namespace gpusweep
