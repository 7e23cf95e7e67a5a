// experiment_meta.h — <experiment>/experiment.json, written by a run before its first
// trial: what the read-only commands (status, best, export, show) need without
// re-parsing the YAML, whose templates may be gone by then.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include "gpusweep/config.h"
#include "gpusweep/report.h"
#include "gpusweep/status.h"

namespace gpusweep {

struct ExperimentMeta {
  std::string name;
  MetricSpec metric;
  int total_trials = 0;     // planned by the sampler
  std::string config_path;  // absolute path of the YAML it was run from
  std::optional<SchedulerSummary> scheduler;  // nullopt without a scheduler
  CvConfig cv;                                // "cv": {folds, allow_failed_folds}; absent: none
};

// The reports' view of a config's scheduler (nullopt for none).
std::optional<SchedulerSummary> SummarizeScheduler(const SchedulerConfig& scheduler);

Status WriteExperimentMeta(const std::filesystem::path& experiment_dir, const ExperimentMeta& meta);
// Error{kNotFound} when the file is missing, kIo when it is unreadable.
Expected<ExperimentMeta> ReadExperimentMeta(const std::filesystem::path& experiment_dir);

}  // namespace gpusweep
