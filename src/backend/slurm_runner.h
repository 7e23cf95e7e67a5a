// slurm_runner.h — trials as SLURM jobs, behind the ProcessRunner interface the run
// loop already uses for local processes (ARCHITECTURE.md says why this interface).
//
// Contract: Spawn submits one batch job per trial attempt (sbatch --parsable; the job
// script is the trial directory's gpusweep-job.sh) and returns its job id as the
// ProcessId. Wait sleeps in ppoll (gpusweep's SIGINT/SIGTERM/SIGHUP end it at once) and
// asks squeue about every followed job in one call, at most every poll_interval seconds
// while jobs change and backing off 1.5x per quiet poll up to max_poll_interval (a
// submission or signal resets it). A job is reported ended when its state is final
// (COMPLETING is not: its processes may still hold the GPUs), with the exit status from
// the job's exit record (slurm_text.h) or SLURM's, classified by ClassifyJobEnd. A job
// squeue no longer knows is judged by its exit record, else by sacct where accounting
// is on, else reported lost (it runs again). SignalGroup(SIGTERM) is
// `scancel --signal=TERM --full` (every process of the job); SIGKILL, or any signal to a
// job still pending, is a plain `scancel`. TakeEnded (before an interrupt stops the
// trials) reports the jobs whose exit record is written. Destruction cancels every job it follows
// (as the local runner kills its trials); a controller killed with -9 leaves its jobs
// running, for Reattach. Not thread-safe; one SignalCatcher per process.
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "gpusweep/config.h"
#include "process/process_runner.h"

namespace gpusweep {

struct SlurmRunnerOptions {
  SlurmConfig slurm;
  // --time of every job: backend.time, else the config's timeout + kill_grace (so SLURM
  // ends a job even if no controller is left to), else none.
  std::optional<double> time_limit_seconds;
  std::string scope;                     // names this experiment's jobs (ProcessScopeFor)
  std::filesystem::path experiment_dir;  // re-attached jobs' trial directories are here
  std::vector<std::string> env;          // gpusweep's own: PATH and SLURM_CONF for the clients
  int max_gpus_per_trial = 0;            // what the test submission asks for
  int backend_line = 0;                  // where the config says backend: (0: --backend)
  int gpus_per_trial_line = 0;           // where it says gpus_per_trial (0: not written)
  double command_timeout_seconds = 120;  // one sbatch/squeue/scancel call
};

// Checks that sbatch, squeue and scancel are on PATH and that SLURM accepts a job like
// the trials' (sbatch --test-only: partition, account, QOS, gres, time), then makes the
// runner. Error{kInvalidConfig} naming the cause and the fix otherwise; nothing is
// submitted. `config_path` is for the messages.
Expected<std::unique_ptr<ProcessRunner>> MakeSlurmProcessRunner(
    const SlurmRunnerOptions& options, const std::filesystem::path& config_path);

}  // namespace gpusweep
