// CheckExperiment (gpusweep/experiment.h): PlanRun, as a run makes it (locally or for
// SLURM), and nothing after.
#include <algorithm>
#include <filesystem>
#include <memory>
#include <optional>

#include "gpusweep/experiment.h"
#include "gpusweep/experiment_files.h"
#include "gpusweep/journal.h"
#include "gpusweep/resources.h"
#include "gpusweep/scheduler.h"
#include "run/experiment_setup.h"
#include "run/run_plan.h"
#include "run/runner.h"
#include "run/trial_env.h"
#include "run/warm_start.h"

namespace gpusweep {

namespace {

// PlanRun as `run` makes it: on this machine's GPUs and cores, or, with the SLURM
// backend, as RunOnSlurm sees the config, after the checks it makes before anything is
// written (the clients on PATH, sbatch --test-only; nothing is submitted).
Expected<RunPlan> PlanAsRunWould(const ExperimentConfig& config, const RunOptions& options,
                                 ExperimentCheck& check) {
  if (config.backend.kind == BackendKind::kSlurm) {
    SlurmRunSetup setup = SetUpSlurmRun(config, options);
    GS_TRY(MakeSlurmProcessRunner(setup.slurm, config.config_path));
    check.placement = setup.placement;
    if (setup.ignored) check.warnings.push_back(*setup.ignored);
    return PlanRun(setup.config, setup.options.experiment_dir, *setup.gpus, setup.env,
                   setup.options.cli_gpus, setup.jobs * config.backend.slurm.cpus_per_trial,
                   [] { return 0; });
  }
  std::unique_ptr<GpuProbe> probe = MakeNvmlProbe();
  return PlanRun(config, options.experiment_dir, *probe, CurrentEnvironment(), options.cli_gpus,
                 UsableCpuCores(), [] { return 0; });
}

// The experiment already in the directory, read-only: its journal and row (nullopt when
// there is none yet, or a creation that failed left a journal without a row).
struct Existing {
  std::unique_ptr<Journal> journal;
  ExperimentRecord record;
};

Expected<std::optional<Existing>> OpenExisting(const RunOptions& options) {
  std::error_code ec;
  const std::filesystem::path path = ExperimentFiles{options.experiment_dir}.journal();
  if (!std::filesystem::exists(path, ec)) return std::nullopt;
  GS_ASSIGN_OR_RETURN(std::unique_ptr<Journal> journal, OpenJournal(path, JournalAccess::kReadOnly));
  GS_ASSIGN_OR_RETURN(std::optional<ExperimentRecord> record, journal->LoadExperiment());
  if (!record) return std::nullopt;
  return std::optional<Existing>(Existing{std::move(journal), std::move(*record)});
}

// The warm-start history a run would seed the sampler with: the existing experiment's
// journaled one (a resume never rereads the source), else the source's, read as a run
// reads it (its errors are a run's, at the config's line). Read-only either way.
Expected<std::optional<WarmStartHistory>> WarmStartAsRunWould(const ExperimentConfig& config,
                                                              const std::optional<Existing>& existing) {
  if (!config.warm_start) return std::nullopt;
  if (existing) {
    GS_ASSIGN_OR_RETURN(std::optional<WarmStartHistory> journaled, LoadWarmStart(*existing->journal));
    if (journaled) return journaled;
  }
  GS_ASSIGN_OR_RETURN(WarmStartHistory history, ReadWarmStartSource(config));
  return std::optional<WarmStartHistory>(std::move(history));
}

}  // namespace

Expected<ExperimentCheck> CheckExperiment(const ExperimentConfig& config, const RunOptions& options,
                                          int first_trials) {
  ExperimentCheck check;
  GS_ASSIGN_OR_RETURN(RunPlan plan, PlanAsRunWould(config, options, check));
  // An experiment already in the directory is resumed only with a config run accepts.
  GS_ASSIGN_OR_RETURN(std::optional<Existing> existing, OpenExisting(options));
  if (existing)
    GS_TRY(CheckResumableWith(*existing->journal, existing->record, config, options.experiment_dir,
                              plan.total_trials()));
  GS_ASSIGN_OR_RETURN(std::optional<WarmStartHistory> warm, WarmStartAsRunWould(config, existing));
  std::vector<TrialRecord> history = warm ? warm->trials : std::vector<TrialRecord>{};
  if (warm) {
    check.warm_start = WarmStartLine(*warm);
    check.warm_start_trials = static_cast<int>(warm->trials.size());
  }
  check.total_trials = plan.total_trials();
  const int shown = std::min(first_trials, check.total_trials);
  for (int number = 0; number < shown; ++number) {
    // Each preview trial is suggested while those before it run, as with that many
    // slots: a model-based sampler then spreads them as a run would (constant liar),
    // where drawing each from the same history would repeat trial 0.
    TrialRecord preview;
    preview.number = number;
    preview.params = plan.policy->Suggest(number, history).params;
    preview.state = TrialState::kRunning;
    check.first_params.push_back(preview.params);
    history.push_back(std::move(preview));
    check.gpus_per_trial.push_back(plan.gpus_needed[number]);
  }
  check.gpus = plan.gpus;
  check.cpu_slots = plan.cpu_slots;
  check.concurrency = plan.concurrency;
  check.warnings.insert(check.warnings.end(), plan.warnings.begin(), plan.warnings.end());
  const SchedulerConfig& s = config.scheduler;
  if (s.kind == SchedulerKind::kSuccessiveHalving) check.rungs = RoundBudgets(s);
  if (s.kind == SchedulerKind::kAsha || s.kind == SchedulerKind::kHyperband ||
      s.kind == SchedulerKind::kBohb)
    check.rungs = RungResources(s.min_resource, s.max_resource, s.reduction_factor);
  return check;
}

}  // namespace gpusweep
