// groups.h — trials that ran the same params (repeats, seeds) taken together.
//
// A sweep that repeats each configuration (sampler.repeats, or a `seed` parameter) asks
// "which params are best on average", not "which run was luckiest". Trials are grouped
// by their params minus the ignored names (the repeat index is never a param); each
// group gets the mean, sample standard deviation (n - 1; 0 for n = 1), min and max of
// its completed trials' objectives.
//
// Ranking rule (`best`, `status --group`): groups none of whose trials failed, was
// pruned or completed without the objective (SpoilsItsGroup) come first, so that a
// configuration with one lucky surviving run cannot beat one measured on every seed;
// within that, by mean (the metric's mode), ties to the group whose first trial has
// the lower number. Groups without a completed trial come last. How often a group ran
// does not rank it: a random sampler draws a choice's values unevenly, and a group
// drawn 12 times once outranked a better one drawn 6 times (the rule was "the most
// completed first").
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "gpusweep/config.h"
#include "gpusweep/json.h"
#include "gpusweep/report.h"
#include "gpusweep/trial.h"

namespace gpusweep::report {

struct ParamGroup {
  Json params;                               // the first trial's params minus the ignored names
  std::vector<const TrialRecord*> trials;    // in trial-number order
  std::vector<const TrialRecord*> completed; // those with an objective
  int spoiled = 0;                           // those that SpoilsItsGroup
  std::optional<double> mean, stddev, min, max;
};

// Groups `trials` (pointers into it) and ranks the groups as above. `ignored`: top-level
// param names left out of the comparison.
std::vector<ParamGroup> GroupTrials(const std::vector<TrialRecord>& trials,
                                    const MetricSpec& metric,
                                    const std::vector<std::string>& ignored);

// Whether grouping changes anything: some group holds more than one trial.
bool HasRepeats(const std::vector<ParamGroup>& groups);

// Whether status's Best line, the run summary and `best` rank `groups` (mean ± std)
// rather than single trials: repeats exist, the best group has a mean, and the
// experiment is neither a NAS search (ReportContext::nas) nor population-based training.
bool RanksByGroup(const std::vector<ParamGroup>& groups, const ReportContext& ctx);

// "0.8712 ± 0.0041 (n=3)"; "0.8712 (n=1)"; "-" without completed trials.
std::string MeanText(const ParamGroup& group);

}  // namespace gpusweep::report
