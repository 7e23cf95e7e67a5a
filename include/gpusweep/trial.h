// trial.h — what the journal records about one trial.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "gpusweep/json.h"

namespace gpusweep {

// kRunning: started, not yet finished (or gpusweep died; resume marks it kInterrupted).
// kCompleted: exit 0 and the objective metric was reported.
// kFailed: non-zero exit, signal, timeout, spawn error, or no objective metric.
// kInterrupted: stopped because gpusweep was interrupted; runs again on resume.
// kPruned: stopped early by the scheduler (median rule, a rung it did not survive, or
//   never promoted); `objective` holds its last value of the metric, for reference.
// kPaused: budgeted trials only: evaluated at a rung below max_resource, waiting for a
//   promotion decision; `objective` holds its value at that rung. A run that ends
//   turns every paused trial into pruned.
enum class TrialState { kRunning, kCompleted, kFailed, kInterrupted, kPruned, kPaused };

std::string_view ToString(TrialState state);  // "running", "completed", ...
std::optional<TrialState> TrialStateFromString(std::string_view text);

struct TrialRecord {
  int number = 0;   // 0-based, stable: trial k of a grid is always the same params
  int repeat = 0;   // grid repeat index (0 for random)
  int attempt = 1;  // 1 + how many times it was interrupted and run again
  Params params = Json::object();
  TrialState state = TrialState::kRunning;
  std::vector<int> gpus;        // GPU indices given in CUDA_VISIBLE_DEVICES; empty = CPU
  double start_time = 0;        // Unix seconds
  double end_time = 0;          // Unix seconds; 0 while running
  int pid = 0;                  // leader pid == process group id; 0 if never spawned
  std::uint64_t pid_start_ticks = 0;  // /proc/<pid>/stat starttime, to detect pid reuse
  std::optional<int> exit_code;       // set when the process exited normally
  std::optional<int> term_signal;     // set when it was killed by a signal
  std::string failure_reason;         // human-readable; empty unless failed/interrupted
  std::optional<double> objective;    // last reported value of the metric
  Json last_metrics = Json::object(); // last reported value of every key
  // With a scheduler: the bracket and rung of the trial's current (or last) job, and the
  // budget ({{budget}}) it ran with; nullopt budget = no scheduler budget.
  int bracket = 0;
  int rung = 0;
  std::optional<double> budget;
  // The cluster scheduler's id of the job that runs (or ran) this attempt ("123456" for
  // SLURM); empty for a local process. Lets a later run re-attach the job.
  std::string job_id;
};

// Counts over an experiment's trials (Journal::CountTrials reads them as one aggregate
// query): what the status header and `best` say about trials they do not list.
struct TrialCounts {
  int recorded = 0;
  int completed = 0, running = 0, failed = 0, interrupted = 0, pruned = 0, paused = 0;
  int ranked = 0;        // completed with an objective (not NaN): what RankTrials ranks
  bool repeats = false;  // some trial has repeat > 0
  bool jobs = false;     // some trial has a cluster job id
};

// What early stopping saved, in the scheduler's resource (e.g. epochs): the sum over
// pruned trials of max_resource minus how far each got (its last reported `resource`
// when a number > 0, else its budget when > 0). GPU units multiply by the trial's GPU
// count (CPU trials count in cpu_resource_saved). Exact, unlike a time estimate: trials
// differ in pace (a wide model is slower per epoch), so time saved is best measured
// (bench/README.md, the example's README). A pruned trial without a known resource, or
// one that reached max_resource, is counted and adds nothing.
struct EarlyStoppingSavings {
  int pruned = 0;
  double resource_saved = 0;      // resource units (e.g. epochs) not trained
  double gpu_resource_saved = 0;  // ... times each trial's GPU count
  double cpu_resource_saved = 0;  // ... of trials that ran on CPU slots
};
// Adds `trial` to `savings` when it was pruned (the rule above); else does nothing.
void AddPrunedTrial(EarlyStoppingSavings& savings, const TrialRecord& trial,
                    const std::string& resource, double max_resource);

// How a trial the search policy dropped before it ever started is recorded: pruned, with
// failure_reason kNotRun + why (cv: "not run: configuration 3 failed (...)").
inline constexpr std::string_view kNotRun = "not run: ";

// One JSON line a trial reported (intermediate result).
struct IntermediateResult {
  int trial = 0;
  int attempt = 1;
  std::int64_t step = 0;  // value of "step", else "epoch", else "iteration", else line index
  double time = 0;        // Unix seconds when gpusweep read it
  Json values = Json::object();  // the whole reported object
};

// The completed trials as a Pareto ranking reads them (Journal::LoadRankingRows), by
// number: each one's recorded objective and the numbers its last_metrics holds under
// `metrics` (NaN where a metric is absent or not a number: a bool, a string), nothing
// else. 100,000 trials of two metrics take 3.2 MB, where whole records without params
// took 23 MB before their metrics' JSON (issue 25).
struct RankingRows {
  std::vector<std::string> metrics;               // the columns, as asked for
  std::vector<int> numbers;                       // ascending
  std::vector<std::optional<double>> objectives;  // the recorded objective
  std::vector<double> values;                     // size() x metrics.size(), row-major
  std::size_t size() const { return numbers.size(); }
  std::span<const double> row(std::size_t i) const {
    return {values.data() + i * metrics.size(), metrics.size()};
  }
};

// Whether `t` ended without a value for its group's mean (report/groups.h): failed,
// pruned, or completed without reporting the objective. Such a group's mean is of its
// survivors only, so it ranks after groups with none (a running, paused or interrupted
// trial has not ended).
bool SpoilsItsGroup(const TrialRecord& t);

// The rows of `trials`' completed ones (in the order given): what Journal::LoadRankingRows
// returns, read from whole records.
RankingRows RankingRowsOf(const std::vector<TrialRecord>& trials, const std::vector<std::string>& metrics);

// Directory name of a trial inside <experiment>/trials/: zero-padded number, "0007".
std::string TrialDirName(int number);

// `t` with only what a ranking reads (Pareto fronts, cv means): number, repeat, attempt,
// state, objective, start and end time, and those of `metrics` in its last_metrics that
// hold numbers (a ranking treats any other value as missing); no params. What the
// exports and `best` keep of 100,000 trials instead of the trials.
TrialRecord RankingRecord(const TrialRecord& t, const std::vector<std::string>& metrics);

// What the trial loop keeps of a finished trial when no call of its search policy reads
// more (SearchPolicy::reads_finished_trials): RankingRecord's fields plus the failure
// reason, exit code, signal, GPUs, bracket, rung and budget; params null (not an empty
// object: no allocation).
TrialRecord FinishedRecord(const TrialRecord& t, const std::vector<std::string>& metrics);

// Whole seconds (rounded): "45s", "2m05s", "1h02m", "27h00m"; negative → "0s",
// non-finite → "-".
std::string FormatDuration(double seconds);

// Memory for people: "1.9 GiB" from 1 GiB up (one decimal), else whole MiB ("512 MiB",
// "0 MiB").
std::string FormatByteSize(std::uint64_t bytes);

// "SIGKILL", "SIGTERM", "SIGSEGV", … (glibc's abbreviation); "signal N" if unknown.
std::string SignalName(int signal);

}  // namespace gpusweep
