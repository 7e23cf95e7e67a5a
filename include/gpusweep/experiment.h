// experiment.h — running an experiment (the library entry point the CLI uses).
//
// Contract: RunExperiment runs every trial the sampler plans that the journal does not
// already hold as completed or failed, at most one process per trial at a time, each in
// its own process group on its own exclusive GPUs (or a CPU slot), and records every
// state change in <experiment_dir>/gpusweep.db before reporting it. It returns when all
// planned trials are finished, or with Error{kInterrupted} after SIGINT/SIGTERM/SIGHUP,
// when every trial process has been stopped (SIGTERM, kill_grace, SIGKILL) and recorded
// as interrupted. Errors before the first trial starts (bad template, too many GPUs per
// trial, changed config, a live run holding the lock) start nothing and write nothing.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "gpusweep/config.h"
#include "gpusweep/policy.h"  // FailedTrials
#include "gpusweep/status.h"
#include "gpusweep/trial.h"

namespace gpusweep {

struct RunOptions {
  std::filesystem::path experiment_dir;        // absolute; created if missing
  std::optional<std::vector<int>> cli_gpus;    // --gpus narrowing; nullopt = not given
  std::filesystem::path python_helper_dir;     // prepended to the trials' PYTHONPATH
  FailedTrials failed_trials = FailedTrials::kKeep;
  // Testing only: every journal write and fsync is delayed this long (a slow disk;
  // the CLI reads GPUSWEEP_TEST_SLOW_DISK_MS).
  double slow_disk_seconds = 0;
};

// What a run is about to do; given to the observer once before the first launch.
struct RunInfo {
  std::filesystem::path experiment_dir;
  int total_trials = 0;      // planned by the sampler
  int already_finished = 0;  // completed or failed in earlier runs (kept, not re-run)
  int to_run = 0;            // queued now (new, interrupted, and failed ones if retried)
  int reattached = 0;        // cluster jobs of a dead run, still running, followed again
  int failed_kept = 0;       // failed in earlier runs and not retried (--retry-failed would)
  int failed_not_retried = 0;  // failed earlier, kept although --retry-failed was given
  std::string retry_limits;    // why they are (the policy's FailureWords::rerun)
  bool resumed = false;      // the journal existed
  std::vector<int> gpus;     // allowed GPU indices; empty = CPU slots
  int cpu_slots = 0;         // concurrency for trials without GPUs
  int concurrency = 0;       // upper bound of trials running at once
  // Where trials run when it is not this machine's GPUs or CPU slots: "SLURM (partition
  // gpu, gres gpu:1 per trial, at most 16 jobs at once)". Empty: `gpus`/`cpu_slots` say.
  std::string placement;
  // With warm_start: "warm start: 12 trials of DIR seed the sampler (not rerun); ...",
  // then a table of the best of them (lines ending in '\n').
  std::string warm_start;
};

// Callbacks from the run loop, all on the calling thread. Default: ignore.
class RunObserver {
 public:
  virtual ~RunObserver() = default;
  virtual void OnStart(const RunInfo& /*info*/) {}
  virtual void OnWarning(const std::string& /*message*/) {}
  virtual void OnTrialStarted(const TrialRecord& /*trial*/) {}
  virtual void OnTrialFinished(const TrialRecord& /*trial*/) {}
  // The scheduler decided to stop a running trial (SIGTERM sent); OnTrialFinished
  // follows when its process has exited.
  virtual void OnTrialPruned(const TrialRecord& /*trial*/, const std::string& /*reason*/) {}
  // After every wake-up of the loop (at least twice a second): every trial recorded so
  // far (ordered by number). The vector stays valid, and is updated in place, until
  // the run returns, so an observer may keep a pointer instead of copying it.
  virtual void OnTick(const std::vector<TrialRecord>& /*trials*/) {}
};

struct RunOutcome {
  RunInfo info;
  // Every recorded trial, ordered by number, as the run kept it: whole, except that of a
  // policy that reads no finished trial (SearchPolicy::reads_finished_trials: a plain
  // sweep over grid, random or Sobol) a finished trial is its FinishedRecord (no
  // params, only the objective's metrics). The journal holds every record whole.
  std::vector<TrialRecord> trials;
};

// Runs (or resumes) the experiment with the real process runner, NVML probe and clock.
Expected<RunOutcome> RunExperiment(const ExperimentConfig& config, const RunOptions& options,
                                   RunObserver& observer);

// `gpusweep check`: the plan `run` would make (the same PlanRun: policy, every trial's
// command and templates rendered, the program found, GPUs resolved with NVML; with
// `backend: slurm`, the jobs' view and SLURM's test submission instead), with nothing
// opened, written or submitted: no experiment directory, no journal, no job.
// Error{kInvalidConfig} where run would refuse the config (SLURM's clients missing, a
// test submission refused, a warm_start source), Error{kConfigChanged} where the
// directory holds an experiment run with another config (growing it is allowed).
struct ExperimentCheck {
  int total_trials = 0;
  // The first trials' params as the sampler draws them with the config's seed and no
  // results of this experiment yet, each while the ones before it run (for model-based
  // samplers: their startup draws, or, with warm_start, what the seeded trials make
  // them; a run one trial at a time sees each result before the next suggestion).
  std::vector<Params> first_params;
  // warm_start: WarmStartLine of the history a run would seed the sampler with (the
  // existing experiment's journaled one, else the source's, whose errors are run's),
  // and how many trials it holds.
  std::string warm_start;
  int warm_start_trials = 0;
  std::vector<int> gpus;             // allowed GPU indices; empty = CPU slots (local)
  // backend: slurm: where trials run ("SLURM (partition gpu, gres gpu:1 per trial, at
  // most 16 jobs at once)"), checked as run checks it (clients on PATH, sbatch
  // --test-only); gpus and cpu_slots are then the run loop's counts. "" locally.
  std::string placement;
  std::vector<int> gpus_per_trial;   // of the first trials, as first_params
  int cpu_slots = 0;
  int concurrency = 0;
  std::vector<double> rungs;         // successive halving, ASHA, hyperband: the budgets
  std::vector<std::string> warnings;
};
Expected<ExperimentCheck> CheckExperiment(const ExperimentConfig& config, const RunOptions& options,
                                          int first_trials);

// Default experiment directory: config.output_dir, else <cwd>/runs/<name>.
std::filesystem::path DefaultExperimentDir(const ExperimentConfig& config,
                                           const std::filesystem::path& cwd);

}  // namespace gpusweep
