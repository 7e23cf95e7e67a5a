#include "run/runner.h"

#include <algorithm>
#include <chrono>
#include <set>

#include <fmt/format.h>

#include "gpusweep/experiment_files.h"
#include "gpusweep/journal.h"
#include "run/experiment_setup.h"
#include "run/experiment_watch.h"
#include "run/kept_trials.h"
#include "run/reattach.h"
#include "run/run_plan.h"
#include "run/scheduler_journal.h"
#include "run/trial_env.h"
#include "run/trial_loop.h"

namespace gpusweep {

std::filesystem::path DefaultExperimentDir(const ExperimentConfig& config,
                                           const std::filesystem::path& cwd) {
  if (config.output_dir) return *config.output_dir;
  return ExperimentFiles::Default(cwd, config.name).dir;
}

namespace {

// The trials an earlier run completed, read without writing anything (PlanRun need not
// check them again); none when there is no journal yet or it cannot be read here (the
// open for the run says why).
std::vector<int> CompletedEarlier(const std::filesystem::path& experiment_dir) {
  const std::filesystem::path path = ExperimentFiles{experiment_dir}.journal();
  std::error_code error;
  if (!std::filesystem::is_regular_file(path, error)) return {};
  Expected<std::unique_ptr<Journal>> journal = OpenJournal(path, JournalAccess::kReadOnly);
  if (!journal) return {};
  Expected<std::vector<int>> numbers = (*journal)->TrialNumbers(TrialState::kCompleted);
  return numbers ? std::move(*numbers) : std::vector<int>{};
}

}  // namespace

Expected<RunOutcome> RunExperimentWith(const ExperimentConfig& config, const RunOptions& options,
                                       RunServices& services, RunObserver& observer) {
  // Everything that can be wrong with the config is found before anything is written.
  GS_ASSIGN_OR_RETURN(RunPlan plan,
                      PlanRun(config, options.experiment_dir, *services.gpu_probe,
                              services.base_env, options.cli_gpus, services.usable_cores,
                              [&] { return services.processes->Wait(0).interrupt_signal; },
                              CompletedEarlier(options.experiment_dir)));
  if (options.failed_trials == FailedTrials::kRetry) GS_TRY(plan.policy->AcceptRetryFailed());
  GS_ASSIGN_OR_RETURN(OpenedExperiment experiment,
                      OpenExperimentForRun(config, options.experiment_dir,
                                           plan.total_trials(),
                                           services.wall_clock(), options.slow_disk_seconds));
  GS_ASSIGN_OR_RETURN(ExperimentWatch watch,
                      ExperimentWatch::Start(options.experiment_dir, kJournalFileName));
  // Of a plain sweep's finished trials, only what it reads, read one at a time (the
  // resume of a 100,000-trial sweep held every whole record at once, issue 25).
  GS_ASSIGN_OR_RETURN(std::vector<TrialRecord> recorded,
                      KeptTrials(*plan.policy, config, options.failed_trials)
                          .Load(*experiment.journal, plan.total_trials()));
  // Jobs a dead run left on a cluster are followed again, not run twice.
  std::vector<AttachedJob> attached = ReattachJobs(*services.processes, recorded);
  const int attached_total = static_cast<int>(attached.size());
  const int ended_unwatched = static_cast<int>(
      std::count_if(attached.begin(), attached.end(), [](const AttachedJob& job) { return job.ended; }));
  const int still_running = attached_total - ended_unwatched;
  if (still_running > 0)
    observer.OnWarning(fmt::format("re-attached {} job{} left running by an earlier gpusweep",
                                   still_running, still_running == 1 ? "" : "s"));
  if (ended_unwatched > 0)
    observer.OnWarning(fmt::format(
        "{} job{} an earlier gpusweep started finished while no gpusweep watched; {} read "
        "from the cluster and the trial directories, not run again",
        ended_unwatched, ended_unwatched == 1 ? "" : "s",
        ended_unwatched == 1 ? "its outcome is" : "their outcomes are"));
  // Before any trial runs again: every process an earlier, dead gpusweep left in this
  // experiment (found by cgroup or tag even when the journal never saw its pid) ends.
  if (const int leftovers = services.processes->StopLeftovers(config.kill_grace_seconds))
    observer.OnWarning(fmt::format("stopped {} process{} left running by an earlier gpusweep",
                                   leftovers, leftovers == 1 ? "" : "es"));
  GS_ASSIGN_OR_RETURN(int abandoned,
                      RecoverAbandonedTrials(*experiment.journal, recorded,
                                             config.kill_grace_seconds, services.wall_clock(),
                                             services.kill_stale_group));
  {
    // A journaled policy's state is rebuilt from every call the earlier runs made to it
    // (a policy that is not journaled has none: the trial loop restores it from the
    // trial records); jobs a killed gpusweep left running are handed out again first,
    // except those re-attached above: the policy keeps counting them as running.
    GS_ASSIGN_OR_RETURN(std::vector<SchedulerEventRecord> events,
                        experiment.journal->LoadSchedulerEvents());
    std::set<int> followed;
    for (const AttachedJob& job : attached) followed.insert(job.record.number);
    GS_ASSIGN_OR_RETURN(SchedulerReplay replay, ReplaySchedulerEvents(*plan.policy, events,
                                                                      services.wall_clock(), followed));
    if (!replay.recovered.empty()) GS_TRY(experiment.journal->AppendResults({}, replay.recovered));
    for (AttachedJob& job : attached)
      if (auto in_flight = replay.in_flight.find(job.record.number); in_flight != replay.in_flight.end()) {
        job.job = in_flight->second.job;
        job.stopped = in_flight->second.stopped;
      }
  }
  for (const std::string& warning : plan.warnings) observer.OnWarning(warning);
  if (abandoned > 0)
    observer.OnWarning(fmt::format("{} trial{} left running by an earlier gpusweep will run again",
                                   abandoned, abandoned == 1 ? "" : "s"));

  if (experiment.warm_start) plan.warm_history = experiment.warm_start->trials;
  TrialLoop loop(config, options, services, observer, plan, *experiment.journal,
                 std::move(recorded), &watch, std::move(attached));
  RunInfo info = loop.Info(experiment.resumed);
  // Re-attached jobs are followed, not run: those still running are counted apart, those
  // that finished unwatched as finished.
  info.to_run -= attached_total;
  info.reattached = still_running;
  info.already_finished = info.total_trials - info.to_run - info.reattached;
  info.placement = services.placement;
  constexpr std::size_t kWarmStartListed = 10;  // best first; `status` lists as many
  if (experiment.warm_start)
    info.warm_start = WarmStartListing(*experiment.warm_start, ObjectiveOf(config), kWarmStartListed);
  observer.OnStart(info);
  Status status = loop.Run();
  if (!status) return tl::unexpected(status.error());
  return RunOutcome{info, std::move(loop).TakeTrials()};
}

ProcessRunnerOptions ProcessOptionsFor(const ExperimentConfig& config,
                                       const std::filesystem::path& experiment_dir,
                                       const std::vector<std::string>& env) {
  ProcessRunnerOptions options;
  options.scope = ProcessScopeFor(experiment_dir);
  options.guard_grace_seconds = config.kill_grace_seconds;
  if (LookupEnv(env, "GPUSWEEP_CONTAINMENT") == std::optional<std::string>("tagged"))
    options.containment = ContainmentChoice::kTaggedOnly;
  return options;
}

RealRunServices::RealRunServices(const ProcessRunnerOptions& process_options)
    : processes_(MakePosixProcessRunner(process_options)), probe_(MakeNvmlProbe()) {
  services.processes = processes_.get();
  services.gpu_probe = probe_.get();
  services.wall_clock = [] {
    return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch())
        .count();
  };
  services.monotonic_clock = [] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
  };
  services.base_env = CurrentEnvironment();
  services.usable_cores = UsableCpuCores();
  services.kill_stale_group = KillStaleProcessGroup;
  services.process_start_ticks = ProcessStartTicks;
}

RealRunServices::~RealRunServices() = default;

Expected<RunOutcome> RunExperiment(const ExperimentConfig& config, const RunOptions& options,
                                   RunObserver& observer) {
  if (config.backend.kind == BackendKind::kSlurm) return RunOnSlurm(config, options, observer);
  RealRunServices real(ProcessOptionsFor(config, options.experiment_dir, CurrentEnvironment()));
  if (real.services.processes == nullptr)  // it owns the signal handlers: one at a time
    return Fail(ErrorCode::kProcess, "another experiment is already running in this process");
  return RunExperimentWith(config, options, real.services, observer);
}

}  // namespace gpusweep
