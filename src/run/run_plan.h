// run_plan.h — everything decided before the first trial starts.
//
// PlanRun validates the whole experiment up front: it asks the sampler for every
// trial, renders each trial's command and templates (so a missing name fails before any
// trial runs), resolves the allowed GPUs and checks that no trial needs more GPUs than
// exist (akid's `tune` deadlocks there). It touches no file but the templates' sources.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "gpusweep/config.h"
#include "gpusweep/resources.h"
#include "gpusweep/sampler.h"
#include "run/trial_setup.h"

namespace gpusweep {

struct PlannedTrial {
  Suggestion suggestion;
  RenderedTrial rendered;
  int gpus_needed = 0;  // 0 = runs on a CPU slot
};

struct RunPlan {
  std::vector<PlannedTrial> trials;  // index == trial number
  std::vector<int> gpus;             // allowed GPU indices; empty = CPU only
  int cpu_slots = 1;                 // trials without GPUs that may run at once
  int concurrency = 1;               // upper bound on running trials
  std::vector<std::string> warnings;
};

// `cuda_visible_devices`: gpusweep's own CUDA_VISIBLE_DEVICES (nullopt = unset).
Expected<RunPlan> PlanRun(const ExperimentConfig& config, const std::filesystem::path& experiment_dir,
                          GpuProbe& probe, const std::optional<std::string>& cuda_visible_devices,
                          const std::optional<std::vector<int>>& cli_gpus, int usable_cores);

}  // namespace gpusweep
