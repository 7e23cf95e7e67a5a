// pareto_views.h — results of an experiment with several objectives or constraints
// (docs/config.md, "Several objectives and constraints"): the Pareto ranking `status`
// and `best` show, and the front's hypervolume.
//
// Contract: pure; trials are ranked through the Objective (objective.h) and pareto.h,
// never by a second ordering. Only completed trials are ranked (as RankTrials does).
// Under cv the trials given are configurations (ConfigurationRecords, gpusweep/cv.h:
// their folds' means), never fold trials: `unit` ("configuration") names them in the
// text, and FormatParetoBest (ctx.cv.enabled()) lists each member's fold directories.
// - `RankParetoTrials`: completed trials in Pareto order: constraint-domination front
//   (feasible fronts first, then infeasible ones by violation), then crowding distance
//   (larger first), then trial number. `values` are the objective's reported values
//   (NaN where missing), `rank` the 0-based front (0 = the Pareto front when feasible).
// - `FrontHypervolume`: the hypervolume of the feasible trials (hence of their front) in
//   the objectives' own units: a point counts where it is better than `reference` (in
//   metric values: e.g. val_acc 0.5 for max, params_m 10 for min) in every objective.
//   Without a reference, one is derived from the feasible trials (pareto.h's
//   HypervolumeReference in loss terms: 10% of the range past the worst value, 1 past
//   it where the range is 0, named in `flat`) and `derived` says so. nullopt without a
//   feasible trial.
// - `FormatParetoBest` (`best`): the front, one block per member (trial, each objective
//   with its mode, violation when constrained, params, directory); nullopt when no
//   trial completed. `ParetoBestJson` (`best --json`): {"objectives": [{name, mode}],
//   "constraints": [...], "front": [{"trial", "values": {name: value}, "feasible",
//   "violation", "params"}], "hypervolume": {value, reference, derived}} (hypervolume
//   null without a feasible trial; an infinite violation null). With constraints a member
//   also has "constraint_values" ({metric: its value, null when not reported}, for the
//   constraints' metrics that are not objectives), and given `experiment_dir` (not under
//   cv) its "dir". With `cv` enabled (trials are configurations) a
//   member has "configuration" and "trials" (its fold trial numbers) instead of "trial".
// - `FormatParetoStatus` (`status`): after the table, the front (its size and its first
//   20 trials in Pareto order; `best` lists them all), the infeasible count (and how
//   many of them reported no value for some constraint's metric: a misspelt name makes
//   every trial infeasible, said here rather than left to be guessed from "+inf") and the
//   hypervolume with the reference used (`reference`: the config's
//   hypervolume_reference, else derived; likewise for ParetoBestJson).
// - `ParetoBestHeader` (`status`'s Best line): with several objectives, the front's size
//   and the objectives' directions; with one constrained objective, the best feasible
//   trial's value; without a feasible trial, how many completed and that none is.
// - `ParetoRankText` (`status`'s PARETO column): "front" for the feasible front, "2",
//   "3", ... for later feasible fronts, "infeasible +0.25" (the total violation) else.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpusweep/cv.h"
#include "gpusweep/json.h"
#include "gpusweep/objective.h"
#include "gpusweep/report.h"
#include "gpusweep/trial.h"

namespace gpusweep {

struct ParetoTrial {
  // Points into the trials given to RankParetoTrials; null from RankParetoRows until a
  // caller points it at the whole record it read (best's members).
  const TrialRecord* trial = nullptr;
  int number = 0;  // the trial's (under cv the configuration's)
  std::vector<double> values;
  double violation = 0;
  int rank = 0;
  double crowding = 0;
};

std::vector<ParetoTrial> RankParetoTrials(const std::vector<TrialRecord>& trials,
                                          const Objective& objective);
// The same ranking of the rows read for it alone (Journal::LoadRankingRows, whose
// metrics are objective.MetricNames()), each entry's `trial` null: what `status` and
// `best` rank at 100,000 trials without holding a record per trial (issue 25).
std::vector<ParetoTrial> RankParetoRows(const RankingRows& rows, const Objective& objective);

struct FrontHypervolume {
  double value = 0;
  std::vector<double> reference;  // metric values, one per objective
  bool derived = false;
  // Derived only: the objectives whose feasible values are all equal (one feasible trial,
  // say), whose reference is 1 past that value: a volume in arbitrary units, said so.
  std::vector<std::string> flat;
};

std::optional<FrontHypervolume> ComputeFrontHypervolume(
    const std::vector<ParetoTrial>& ranked, const Objective& objective,
    const std::optional<std::vector<double>>& reference = std::nullopt);

std::optional<std::string> FormatParetoBest(const std::vector<TrialRecord>& trials,
                                            const ReportContext& ctx, const Objective& objective);
Json ParetoBestJson(const std::vector<TrialRecord>& trials, const Objective& objective,
                    const std::optional<std::vector<double>>& reference = std::nullopt,
                    const CvConfig& cv = {}, const std::filesystem::path& experiment_dir = {});
// The same from trials already ranked (RankParetoTrials). Of the ranked trials they
// read only the members' params (the feasible front, else the least violating one:
// ParetoBestMembers): `best` ranks records without params, then puts the members'
// whole records where their records were (the same metrics, so the same ranking).
std::optional<std::string> FormatRankedParetoBest(const std::vector<ParetoTrial>& ranked,
                                                  const ReportContext& ctx, const Objective& objective);
Json RankedParetoBestJson(const std::vector<ParetoTrial>& ranked, const Objective& objective,
                          const std::optional<std::vector<double>>& reference, const CvConfig& cv,
                          const std::filesystem::path& experiment_dir = {});
std::vector<const ParetoTrial*> ParetoBestMembers(const std::vector<ParetoTrial>& ranked);
std::string FormatParetoStatus(const std::vector<TrialRecord>& trials, const Objective& objective,
                               const std::optional<std::vector<double>>& reference = std::nullopt,
                               std::string_view unit = "trial");
std::string ParetoBestHeader(const std::vector<TrialRecord>& trials, const Objective& objective,
                             std::string_view unit = "trial");
// The same two from trials already ranked (RankParetoTrials): `status` ranks once for
// its rows, its Best line and the lines after its table.
std::string FormatRankedParetoStatus(const std::vector<ParetoTrial>& ranked, const Objective& objective,
                                     const std::optional<std::vector<double>>& reference,
                                     std::string_view unit = "trial");
std::string RankedParetoBestHeader(const std::vector<ParetoTrial>& ranked, const Objective& objective,
                                   std::string_view unit = "trial");
std::string ParetoRankText(const ParetoTrial& trial);

// The constraints' metrics that are not objectives, in constraint order, each once: the
// values `status`, `best` and `best --json` show beside the objectives.
std::vector<std::string> ConstraintOnlyMetrics(const Objective& objective);
// A reported metric's number; nullopt when absent or not a number (as a constraint
// reads it: such a value breaks its constraint).
std::optional<double> ReportedNumber(const Json& metrics, const std::string& name);

}  // namespace gpusweep
