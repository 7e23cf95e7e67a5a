// trial_setup.h — turning a sampler's suggestion into a runnable trial directory.
//
// RenderTrial is pure (no disk access): it renders the command and every template for
// one trial, so the runner can check all trials for missing names before starting any.
// WriteTrialFiles then materialises the trial directory.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/unique_fd.h"
#include "gpusweep/config.h"
#include "gpusweep/sampler.h"
#include "gpusweep/status.h"

namespace gpusweep {

struct RenderedTrial {
  std::filesystem::path dir;                  // <experiment>/trials/<TrialDirName>
  std::vector<std::string> argv;              // ready for the process runner
  // Absolute destination (inside dir) and rendered content of each template.
  std::vector<std::pair<std::filesystem::path, std::string>> files;
};

// Plan time: the command and templates read conditional parameters only inside
// sections where they are active (render.h, CheckConditionalUses); the error names the
// YAML place or the template file.
Status CheckConditionalTemplates(const ExperimentConfig& config);

// "<config>:<line>:<column>: " where a string is in the YAML ("<config>: " without a
// position), to begin an error about it.
std::string YamlPlace(const ExperimentConfig& config, const YamlPosition& at);

// Renders the command (argv, or /bin/sh -c for shell commands) and templates;
// `budget` is the scheduler's budget for this job ({{budget}}), nullopt without one.
// Error{kInvalidConfig}: a missing name or a destination escaping the trial dir.
Expected<RenderedTrial> RenderTrial(const ExperimentConfig& config, const Suggestion& suggestion,
                                    const std::filesystem::path& experiment_dir,
                                    std::optional<double> budget = std::nullopt);

// Creates the trial directory and writes params.json and the rendered files (each
// atomically, temp file + rename, except params.json in a directory just created,
// which nothing can be reading), never following a symbolic link out of the trial
// directory (beneath.h). For attempt > 1, the previous attempt's
// output.log and metrics.jsonl are renamed to output.attempt<N-1>.log and
// metrics.attempt<N-1>.jsonl so the new attempt starts clean but nothing is lost.
// `staged`: the trial directory made ahead by a TrialStager (trial_stager.h), holding
// an empty params.json and output.log; params.json is then filled in place. An empty
// output.log of no journaled attempt (attempt 1: a staged directory no run took) stays
// in place: there is nothing in it to keep aside.
Status WriteTrialFiles(const RenderedTrial& trial, const Params& params, int attempt,
                       std::optional<UniqueFd> staged = std::nullopt);


}  // namespace gpusweep
