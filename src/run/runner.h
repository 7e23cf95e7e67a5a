// runner.h — the run loop with its I/O injected (for tests).
//
// The loop is single-threaded: it launches queued trials while resources allow, then
// blocks in ProcessRunner::Wait (ppoll) for at most kPollInterval, reads new metrics,
// reaps exited trials, enforces timeouts and reacts to interrupts. Every state change
// goes to the journal (one transaction) before the observer hears of it.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "backend/slurm_runner.h"
#include "gpusweep/experiment.h"
#include "gpusweep/resources.h"
#include "process/process_runner.h"

namespace gpusweep {

struct RunServices {
  ProcessRunner* processes = nullptr;
  GpuProbe* gpu_probe = nullptr;
  std::function<double()> wall_clock;                       // Unix seconds
  std::function<double()> monotonic_clock;                  // seconds, for deadlines
  std::vector<std::string> base_env;                        // "KEY=VALUE" of gpusweep itself
  int usable_cores = 1;
  // Kills a trial process group left over by a gpusweep that died (see process module).
  std::function<bool(int pid, std::uint64_t start_ticks, double grace)> kill_stale_group;
  std::function<std::optional<std::uint64_t>(int pid)> process_start_ticks;
  // Where trials run when it is not this machine's GPUs or CPU slots (RunInfo::placement).
  std::string placement;
};

// The real services: POSIX process runner, NVML probe, system clocks, environ.
struct RealRunServices {
  explicit RealRunServices(const ProcessRunnerOptions& process_options = {});
  ~RealRunServices();
  RunServices services;

 private:
  std::unique_ptr<ProcessRunner> processes_;
  std::unique_ptr<GpuProbe> probe_;
};

// The process runner's options for running `config` in `experiment_dir`: the scope of
// that directory (so a resumed run finds what a dead one left), the config's kill_grace
// for the guard, and GPUSWEEP_CONTAINMENT=tagged (from `env`) to turn cgroups off.
ProcessRunnerOptions ProcessOptionsFor(const ExperimentConfig& config,
                                       const std::filesystem::path& experiment_dir,
                                       const std::vector<std::string>& env);

Expected<RunOutcome> RunExperimentWith(const ExperimentConfig& config, const RunOptions& options,
                                       RunServices& services, RunObserver& observer);

// How a `backend: slurm` run sees a config (cluster_run.cc), for RunOnSlurm and for
// `check` (CheckExperiment), so the two plan the same: resources rewritten for jobs
// (the login node's GPU list and --gpus mean nothing there; cpu_slots = jobs), the
// environment without CUDA_VISIBLE_DEVICES, the SLURM runner's options, a GPU
// inventory that only counts jobs' GPUs, the placement line ("SLURM (partition gpu,
// ...)") and the settings it ignores (nullopt: none).
struct SlurmRunSetup {
  ExperimentConfig config;
  RunOptions options;
  std::vector<std::string> env;
  SlurmRunnerOptions slurm;
  int jobs = 0;         // at once: max_concurrent, else backend.max_jobs
  int most_gpus = 0;    // the most GPUs one trial asks for
  std::unique_ptr<GpuProbe> gpus;
  std::string placement;
  std::optional<std::string> ignored;
};
SlurmRunSetup SetUpSlurmRun(const ExperimentConfig& config, const RunOptions& options);

// RunExperiment for `backend: slurm` (cluster_run.cc): the SLURM process runner, a GPU
// inventory of max_concurrent (else backend.max_jobs) jobs' worth of GPUs that only
// counts them (SLURM picks the devices), and the login node's CUDA_VISIBLE_DEVICES and
// --gpus left out. Error{kInvalidConfig} when SLURM's clients are missing or it refuses
// a test submission.
Expected<RunOutcome> RunOnSlurm(const ExperimentConfig& config, const RunOptions& options,
                                RunObserver& observer);

}  // namespace gpusweep
