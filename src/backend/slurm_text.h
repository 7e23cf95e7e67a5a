// slurm_text.h — what gpusweep writes for SLURM and reads back from it: sbatch's
// arguments, the job script, squeue's rows, the job's exit record, and how a job's
// final state becomes a ProcessExit. Pure functions (no I/O), so they are unit-tested
// without a cluster; slurm_runner.cc does the talking.
//
// Formats are those of SLURM 22.05 (Debian 12's slurm-wlm); squeue's --Format output
// with '|' after each field is stable across 20.11..24.05.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpusweep/config.h"
#include "process/process_runner.h"

namespace gpusweep {

// The job's name: "gs-<scope>-<trial>.<attempt>", so a later run finds a job whose id
// never reached the journal (squeue --name) and StopLeftovers finds this experiment's.
std::string SlurmJobName(std::string_view scope, int trial, int attempt);
// The prefix every job name of `scope` starts with.
std::string SlurmJobNamePrefix(std::string_view scope);

// --time's value in whole minutes, rounded up (SLURM's limits are minutes): 90 s -> "2".
std::string SlurmMinutes(double seconds);

// sbatch's arguments (without "sbatch"), ending with `script`: --parsable, the job name,
// --chdir (the trial directory), --output/--error to the log (appended), --export=ALL
// (the environment sbatch is run with is the trial's), --no-requeue (a trial runs again
// only as gpusweep's new attempt, never by SLURM inside the same one), partition,
// account, qos, time,
// --gres=gpu:N for GPU trials or --cpus-per-task for CPU-only ones, then extra_args.
// `time_limit_seconds`: nullopt = no --time.
std::vector<std::string> SbatchArguments(const SlurmConfig& slurm,
                                         std::optional<double> time_limit_seconds,
                                         const std::string& job_name,
                                         const SpawnRequest& request,
                                         const std::filesystem::path& script);

// The batch script: runs `argv` in the foreground and leaves its exit status (decimal,
// 128+N for a signal N) in ExitRecordPath(dir, $SLURM_JOB_ID), written atomically. The
// script traps (not ignores) TERM/INT/HUP, so the trial gets scancel's signals with their
// default action while the script outlives it to write the record.
std::string JobScript(const std::vector<std::string>& argv, const std::filesystem::path& dir);
std::filesystem::path ExitRecordPath(const std::filesystem::path& dir, std::string_view job_id);
// The status in an exit record's text, nullopt when it is not one (empty, partial).
std::optional<int> ParseExitRecord(std::string_view text);

// One row of `squeue --noheader --states=all --Format=JobID:|,State:|,Reason:|,
// exit_code:|,RestartCnt:|`.
struct SqueueRow {
  std::string job_id;
  std::string state;      // PENDING, RUNNING, COMPLETED, TIMEOUT, ...
  std::string reason;     // why it is pending (Resources, Priority, ...) or None
  std::string exit_code;  // "N" or "N:S" (sacct's form)
  int restarts = 0;       // times SLURM requeued it (preemption, node failure, scontrol requeue)
};
inline constexpr std::string_view kSqueueFormat =
    "JobID:|,State:|,Reason:|,exit_code:|,RestartCnt:|";
// Rows of that output; lines that do not have at least four fields are skipped.
std::vector<SqueueRow> ParseSqueue(std::string_view text);
// Rows of `sacct --noheader --parsable2 --allocations --format=JobID,State,ExitCode`
// ("CANCELLED by 0" becomes "CANCELLED").
std::vector<SqueueRow> ParseSacct(std::string_view text);

// The job has ended for good (COMPLETED, FAILED, CANCELLED, TIMEOUT, NODE_FAIL,
// OUT_OF_MEMORY, PREEMPTED, BOOT_FAIL, DEADLINE, SPECIAL_EXIT, REVOKED). COMPLETING is
// not final: its processes may still hold the GPUs.
bool IsFinalState(std::string_view state);

// How job `job_id` ended. `state`: its final state ("" when SLURM forgot the job);
// `recorded`: the status in its exit record, if the script wrote one; `exit_code`: SLURM's
// ("N" or "N:S"); `cancelled_by_us`: gpusweep signalled or cancelled it (prune, timeout,
// interrupt), so a CANCELLED state is the expected end, not someone else's doing.
// The state decides first where it is not the trial's doing (TIMEOUT, OUT_OF_MEMORY,
// NODE_FAIL, PREEMPTED, someone else's CANCELLED); otherwise the recorded status, else
// SLURM's exit code, else (nothing known) JobEnd::kLost.
ProcessExit ClassifyJobEnd(std::string_view job_id, std::string_view state,
                           std::optional<int> recorded, std::string_view exit_code,
                           bool cancelled_by_us);
// How a job ended that SLURM requeued (its restart count went up: preempted in REQUEUE
// mode, its node failed, an administrator's `scontrol requeue`) and gpusweep then
// cancelled: its trial runs again as a new attempt, never rerun inside the same one.
ProcessExit RequeuedJobEnd(std::string_view job_id);

// Where a sweep's trials run, for the first line of `run`: "SLURM (partition gpu, gres
// gpu:1 per trial, at most 16 jobs at once)". `gpus_per_trial`: the config's counts
// (a list may differ per trial), empty for CPU-only trials (then --cpus-per-task).
std::string DescribeSlurmPlacement(const SlurmConfig& slurm, const std::vector<int>& gpus_per_trial,
                                   int max_jobs);

// How often squeue is asked: `base` seconds after anything changed (a submission, a
// signal, a job changing state), then 1.5x longer after each quiet poll, up to `max`.
class PollSchedule {
 public:
  PollSchedule(double base, double max) : base_(base), max_(max), interval_(base) {}
  void Changed(double now) { interval_ = base_; next_ = now + interval_; }
  void Quiet(double now);
  void Now(double now) { next_ = now; }  // poll at the next chance
  bool Due(double now) const { return now >= next_; }
  double SecondsUntilDue(double now) const { return next_ > now ? next_ - now : 0; }
  double interval() const { return interval_; }

 private:
  double base_;
  double max_;
  double interval_;
  double next_ = 0;
};

}  // namespace gpusweep
