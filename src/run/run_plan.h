// run_plan.h — everything decided before the first trial starts.
//
// PlanRun validates the whole experiment up front: it builds the search policy (the
// one owner of what runs next: MakePolicy), asks it for every trial's params and renders each trial's command and templates (so a missing name fails before
// any trial runs), checks that the command's program exists, resolves the allowed GPUs
// and checks that no trial needs more GPUs than exist (akid's `tune` deadlocks there).
// It keeps no rendered text: PrepareTrial renders one trial again when it launches,
// so a million-trial grid costs memory per running trial, not per planned one.
// It reads and writes no file.
#pragma once

#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "gpusweep/config.h"
#include "gpusweep/policy.h"
#include "gpusweep/resources.h"
#include "gpusweep/sampler.h"
#include "gpusweep/scheduler.h"
#include "run/trial_setup.h"

namespace gpusweep {

struct RunPlan {
  // Never nullptr. Stateful: the runner replays the journal into it (and restores it
  // from the trial records) before the trial loop drives it.
  std::unique_ptr<SearchPolicy> policy;
  // kBudgeted when the command or a template reads {{budget}} (and for NAS).
  TrialStyle style = TrialStyle::kIterative;
  std::vector<int> gpus_needed;               // per trial number; 0 = runs on a CPU slot
  std::vector<int> gpus;                      // allowed GPU indices; empty = CPU only
  int cpu_slots = 1;                          // trials without GPUs that may run at once
  int concurrency = 1;                        // upper bound on running trials
  std::vector<std::string> warnings;
  // An earlier experiment's trials (warm_start, numbered -n..-1): the sampler sees them
  // before the recorded ones. Set by the runner once the journal is open.
  std::vector<TrialRecord> warm_history;

  int total_trials() const { return static_cast<int>(gpus_needed.size()); }
};

// `env`: gpusweep's own environment ("KEY=VALUE": CUDA_VISIBLE_DEVICES, PATH).
// `interrupted` is polled while rendering every trial (millions take minutes): when it
// returns a signal number, planning stops with Error{kInterrupted}; nothing started.
// `completed`: the trials an earlier run completed (ascending; the journal's
// TrialNumbers). Without a scheduler none of them runs again, so they are not rendered
// again: a resumed 100,000-trial sweep spent half its start re-checking them (issue 25).
// With a scheduler a completed trial may be promoted or continued, so every trial is.
Expected<RunPlan> PlanRun(const ExperimentConfig& config, const std::filesystem::path& experiment_dir,
                          GpuProbe& probe, const std::vector<std::string>& env,
                          const std::optional<std::vector<int>>& cli_gpus, int usable_cores,
                          const std::function<int()>& interrupted,
                          const std::vector<int>& completed = {});

// Trial `number`'s suggestion and rendered command and files. `history`: the trials
// recorded so far (for model-based samplers). `previous`: the trial's own record when
// it ran before (interrupted, retried or promoted): its recorded params are reused, so
// a model-based sampler's choice survives a resume. `budget`: the scheduler's budget.
// `job_params`: params the policy's job carries (they win over both).
struct PreparedTrial {
  Suggestion suggestion;
  RenderedTrial rendered;
};
Expected<PreparedTrial> PrepareTrial(const ExperimentConfig& config, const RunPlan& plan,
                                     const std::filesystem::path& experiment_dir, int number,
                                     const std::vector<TrialRecord>& history,
                                     const TrialRecord* previous = nullptr,
                                     std::optional<double> budget = std::nullopt,
                                     const std::optional<Params>& job_params = std::nullopt);

// The experiment's search policy (gpusweep/policy.h), by what the config asks for:
// `nas:` the tournament; else the sampler alone (a sweep) or with its scheduler, and
// under `cv:` the folds over either. `style` is set to the trials' style (budgeted when
// trial 0's command or templates read {{budget}}). Error{kInvalidConfig} as MakeSampler,
// MakeScheduler and MakeNasPolicy give it, and for {{budget}} without max_resource or
// a parameter named budget under a scheduler.
Expected<std::unique_ptr<SearchPolicy>> MakePolicy(const ExperimentConfig& config,
                                                   const std::filesystem::path& experiment_dir,
                                                   TrialStyle& style);

}  // namespace gpusweep
