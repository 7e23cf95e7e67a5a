// cv.h — k-fold cross-validation: which trial is which fold of which configuration,
// and what a configuration's folds amount to.
//
// Contract: with `cv: {folds: k}`, fold f of configuration c is trial number c * k + f
// (0 <= f < k). A trial's number alone therefore says which configuration and fold it
// is, for every reader that knows k (the config in the journal and experiment.json);
// the journal needs no column of its own and older journals read as before. Every
// fold trial of a configuration has the configuration's params. Pure functions; no
// I/O.
//
// CV arithmetic (docs/config.md, "Cross-validation"): a configuration's value is the
// mean of its folds' objectives (completed folds; pruned or paused folds count with
// their last value), with the sample standard deviation (n - 1; 0 for one value). Its
// `metrics` are, over the same folds, the mean of each reported key that is a number
// (not NaN) in every one of them; a key some counted fold lacks is left out (missing,
// as objective.h reads it). Several objectives and constraints read these: a
// configuration's objective vector is its folds' means and its violation the
// violation of those means. Its state, first rule that applies:
//   failed       more folds failed than cv.allow_failed_folds
//   running      a fold is running, or some folds have not run yet (queued)
//   interrupted  a fold was interrupted (it runs again on resume)
//   pruned       a fold was stopped by the scheduler
//   paused       a fold is paused at a rung (budgeted schedulers)
//   completed    every fold completed or failed (within the allowance)
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpusweep/metric.h"
#include "gpusweep/trial.h"

namespace gpusweep {

// `cv: {folds: k, allow_failed_folds: n}` (docs/config.md, "Cross-validation"): every
// configuration runs as k fold trials; its objective is the mean over its folds. Parsed
// by config (cv_parser.cc), defined here, below config, because common's fold
// arithmetic reads it.
struct CvConfig {
  int folds = 0;               // 0: no cross-validation; else 2..kMaxFolds
  int allow_failed_folds = 0;  // 0..folds-1: failed folds a configuration may have
  int line = 0;                // 1-based line of `cv:` in the YAML, for later errors
  bool enabled() const { return folds > 0; }
};
inline constexpr int kMaxFolds = 100;

struct FoldIndex {
  int configuration = 0;
  int fold = 0;
};

// A fold that never ran (its configuration had failed) is recorded pruned with
// failure_reason kNotRun + why ("not run: configuration 3 failed (...)"); trial.h.

// Precondition: folds >= 1, trial >= 0. FoldOf(c * folds + f, folds) == {c, f}.
FoldIndex FoldOf(int trial, int folds);
int FoldTrialNumber(int configuration, int fold, int folds);

// One configuration's folds taken together.
struct CvConfiguration {
  int configuration = 0;
  int repeat = 0;                       // the folds' grid repeat
  Params params = Json::object();       // the folds' (common) params
  std::vector<const TrialRecord*> folds;  // size cv.folds; nullptr: not recorded yet
  TrialState state = TrialState::kRunning;
  bool queued = false;                  // running because folds are still to run, none is
  std::optional<double> mean, stddev;   // over `values`; nullopt without any value
  std::vector<double> values;           // the folds' values, in fold order
  Json metrics = Json::object();        // per-key means over the same folds (above)
  int completed = 0, failed = 0;        // folds in these states
  // Why a failed configuration failed: "fold 2 failed (exit code 1); cv.allow_failed_folds
  // is 0". Empty otherwise.
  std::string failure_reason;
};

// Groups `trials` (pointers into it; any order) by configuration, each configuration
// that has at least one recorded fold, in configuration order, and applies the CV
// arithmetic above. Precondition: cv.enabled().
std::vector<CvConfiguration> GroupFolds(const std::vector<TrialRecord>& trials, const CvConfig& cv);

// The configuration as one record, as a sampler's history sees it (number = the
// configuration, objective = the mean, state as above with a queued configuration
// counted as running; failure_reason as above; last_metrics = `metrics`, so several
// objectives read the means; times: the earliest start and, once no fold runs, the
// latest end).
TrialRecord ConfigurationRecord(const CvConfiguration& configuration);

// ConfigurationRecord of every configuration GroupFolds(trials, cv) finds, in
// configuration order: what the Pareto views and the samplers rank under cv.
std::vector<TrialRecord> ConfigurationRecords(const std::vector<TrialRecord>& trials, const CvConfig& cv);

// Completed configurations with a mean, best first by `metric.mode`; ties go to the
// lower configuration number. Pointers into `configurations`.
std::vector<const CvConfiguration*> RankConfigurations(
    const std::vector<CvConfiguration>& configurations, const MetricSpec& metric);

}  // namespace gpusweep
