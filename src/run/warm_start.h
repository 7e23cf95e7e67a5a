// warm_start.h — `warm_start: {from: DIR}`: an earlier experiment's trials seed the
// sampler's history (TPE learns from them; they are not rerun).
//
// When the experiment is created, the source's completed trials, and its pruned and
// paused ones with their last value (as TPE ranks them: after every completed trial),
// whose params fit this search space (every parameter present and allowed, FitToParam,
// or missing and given by warm_start.defaults; none extra) are copied into this experiment's journal (event "warm_start") before the
// experiment row is written. Later runs read them from there, never from the source,
// so a resume is exact even when the source has changed or is gone. With several
// objectives or constraints each trial keeps the reported metrics they read (its
// `last_metrics`, those names only), which the multi-objective samplers rank by. In the
// sampler's history they are numbered -n..-1 (source order): before every trial of this
// one.
// A cross-validated source (cv: {folds: k}) gives its configurations instead of its
// folds: each configuration once, valued by its folds' mean and in its state
// (gpusweep/cv.h), whatever this experiment's cv says (docs/config.md, "Warm start").
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "gpusweep/config.h"
#include "gpusweep/journal.h"
#include "gpusweep/objective.h"
#include "gpusweep/status.h"
#include "gpusweep/trial.h"

namespace gpusweep {

struct WarmStartHistory {
  std::string from;                 // the source experiment's directory
  std::vector<TrialRecord> trials;  // numbered -n..-1, for the sampler
  std::vector<int> source_numbers;  // each trial's (configuration's) number in the source
  int source_folds = 0;             // > 0: the source was cross-validated with these folds
  // Per trial (parallel): the parameters it lacked, taken from warm_start.defaults.
  std::vector<std::vector<std::string>> assumed;
  int left_out = 0;                 // source trials with a result that did not fit
  std::string first_left_out;       // why the first of them did not, e.g. "trial 3: lr: ..."
};

// Reads the source named by `config.warm_start` (read-only). Error{kInvalidConfig} with
// the config's file:line when it is not an experiment, or optimised another metric or
// mode (another metrics: list with several objectives); Error{kJournal} when its journal
// cannot be read.
Expected<WarmStartHistory> ReadWarmStartSource(const ExperimentConfig& config);

// Journals `history` (event "warm_start"); LoadWarmStart reads the last one back
// (nullopt when the journal has none).
Status JournalWarmStart(Journal& journal, const WarmStartHistory& history, double now);
Expected<std::optional<WarmStartHistory>> LoadWarmStart(Journal& journal);

// One line: "warm start: 12 trials of DIR seed the sampler (not rerun); assumed from
// warm_start.defaults: momentum=0.9 for 12 trials; 3 left out, outside this search space
// (trial 5: lr: 0.5 is outside [0.0001, 0.1])".
std::string WarmStartLine(const WarmStartHistory& history);
// WarmStartLine, then a table of at most `limit` trials (configurations), best first
// (completed ones first; then by value, or with several objectives or constraints by
// constrained Pareto front), with aligned columns: its trial, state, each objective
// (with constraints, whether it is feasible), one per parameter (an assumed default
// marked '*', explained below the table); "... and N more" when there are more. Shown
// when a run starts and by `status`.
std::string WarmStartListing(const WarmStartHistory& history, const Objective& objective,
                             std::size_t limit);

}  // namespace gpusweep
