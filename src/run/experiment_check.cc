// CheckExperiment (gpusweep/experiment.h): PlanRun, as a run makes it, and nothing after.
#include <algorithm>

#include "gpusweep/experiment.h"
#include "gpusweep/resources.h"
#include "gpusweep/scheduler.h"
#include "run/run_plan.h"
#include "run/trial_env.h"

namespace gpusweep {

Expected<ExperimentCheck> CheckExperiment(const ExperimentConfig& config, const RunOptions& options,
                                          int first_trials) {
  std::unique_ptr<GpuProbe> probe = MakeNvmlProbe();
  GS_ASSIGN_OR_RETURN(RunPlan plan,
                      PlanRun(config, options.experiment_dir, *probe, CurrentEnvironment(),
                              options.cli_gpus, UsableCpuCores(), [] { return 0; }));
  ExperimentCheck check;
  check.total_trials = plan.total_trials();
  const int shown = std::min(first_trials, check.total_trials);
  for (int number = 0; number < shown; ++number) {
    check.first_params.push_back(plan.policy->Suggest(number, {}).params);
    check.gpus_per_trial.push_back(plan.gpus_needed[number]);
  }
  check.gpus = plan.gpus;
  check.cpu_slots = plan.cpu_slots;
  check.concurrency = plan.concurrency;
  check.warnings = plan.warnings;
  const SchedulerConfig& s = config.scheduler;
  if (s.kind == SchedulerKind::kSuccessiveHalving) check.rungs = RoundBudgets(s);
  if (s.kind == SchedulerKind::kAsha || s.kind == SchedulerKind::kHyperband ||
      s.kind == SchedulerKind::kBohb)
    check.rungs = RungResources(s.min_resource, s.max_resource, s.reduction_factor);
  return check;
}

}  // namespace gpusweep
