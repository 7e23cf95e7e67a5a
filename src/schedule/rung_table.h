// rung_table.h — the values recorded at one rung (or one successive-halving round),
// kept ranked by the metric's mode.
//
// Ranking (scheduler.h's vocabulary): the better value under the mode comes first; a
// missing or NaN value ranks below every number; ties go to the lower trial number. The
// table is a sorted vector, so a rank costs O(log n) and a record O(n).
//
// Pareto ranking (Ranking::kPareto: several metrics or constraints), the order of
// multi-objective ASHA (Schmucker, Donini, Zafar, Salinas & Archambeau, "Multi-objective
// Asynchronous Successive Halving", arXiv:2106.12639, 2021, its NSGA-II-style
// selection): entries with a value, by (constraint-domination front, crowding distance
// descending, trial); then the entries without one (failed, missing), by trial.
// Fronts are pareto.h's ConstrainedRanks of the evaluations' losses and violations:
// every feasible entry ranks before every infeasible one, and infeasible ones rank by
// violation, smaller first (Deb's constraint-domination). The crowding tie-break
// (pareto.h's CrowdingDistances, within the front, among the rung's entries) keeps a
// front's extremes and sparse regions first, so a rung's top 1/eta spreads along the
// front rather than clustering. Adding an entry can reorder the others (fronts and
// crowding are relative), so every record re-ranks the rung: O(n log n) for two
// objectives, O(m n^2) for more.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "gpusweep/config.h"
#include "gpusweep/scheduler.h"

namespace gpusweep::schedule_detail {

// The value as ranked: NaN becomes nullopt (missing).
std::optional<double> Normalized(std::optional<double> value);

// True when (a, trial_a) ranks strictly before (b, trial_b).
bool RanksBefore(Mode mode, std::optional<double> a, int trial_a, std::optional<double> b,
                 int trial_b);

// True when `a` is strictly worse than the number `b` under `mode` (missing is worse).
bool WorseThan(Mode mode, std::optional<double> a, double b);

// "0.713" (6 significant digits) or "none", for decision reasons.
std::string FormatValue(std::optional<double> value);

// How many of n entries keep going when a 1/eta fraction does: floor or ceil of n/eta,
// robust to rounding (9 / 3 is 3 either way).
enum class Rounding { kFloor, kCeil };
int TopCount(int n, double eta, Rounding rounding);

enum class Ranking { kValue, kPareto };

class RungTable {
 public:
  struct Entry {
    int trial = 0;
    std::optional<double> value;  // nullopt: missing, NaN or failed
    // Pareto ranking only (for reasons): the entry's front (0 = non-dominated feasible)
    // and crowding distance in it; -1 and 0 for an entry without a value.
    int front = 0;
    double crowding = 0;
    double violation = 0;
  };

  explicit RungTable(Mode mode, Ranking ranking = Ranking::kValue)
      : mode_(mode), ranking_(ranking) {}

  Ranking ranking() const { return ranking_; }
  // Records the trial's value; recording a trial again replaces its value.
  void Record(int trial, std::optional<double> value);
  // Records the trial's evaluation: its value alone under Ranking::kValue, all of it
  // under kPareto (an evaluation without losses there has no value: it ranks last).
  void Record(int trial, const Evaluation& evaluation);
  bool Contains(int trial) const { return values_.count(trial) != 0; }
  int size() const { return static_cast<int>(ranked_.size()); }
  // 0-based rank (0 = best) of a recorded trial; -1 if it is not recorded.
  int RankOf(int trial) const;
  // All entries, best first.
  const std::vector<Entry>& ranked() const { return ranked_; }

 private:
  std::vector<Entry>::const_iterator Position(int trial, std::optional<double> value) const;

  Mode mode_;
  Ranking ranking_;
  std::vector<Entry> ranked_;
  std::map<int, std::optional<double>> values_;  // by trial
  std::map<int, Evaluation> evaluations_;        // kPareto: by trial
};

// The Pareto order above over (trial, evaluation) pairs, trials unique.
std::vector<RungTable::Entry> ParetoRanked(const std::map<int, Evaluation>& evaluations);

}  // namespace gpusweep::schedule_detail
