// rung_table.h — the values recorded at one rung (or one successive-halving round),
// kept ranked by the metric's mode.
//
// Ranking (scheduler.h's vocabulary): the better value under the mode comes first; a
// missing or NaN value ranks below every number; ties go to the lower trial number. The
// table is a sorted vector, so a rank costs O(log n) and a record O(n).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "gpusweep/config.h"

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

class RungTable {
 public:
  struct Entry {
    int trial = 0;
    std::optional<double> value;  // nullopt: missing, NaN or failed
  };

  explicit RungTable(Mode mode) : mode_(mode) {}

  // Records the trial's value; recording a trial again replaces its value.
  void Record(int trial, std::optional<double> value);
  bool Contains(int trial) const { return values_.count(trial) != 0; }
  int size() const { return static_cast<int>(ranked_.size()); }
  // 0-based rank (0 = best) of a recorded trial; -1 if it is not recorded.
  int RankOf(int trial) const;
  // All entries, best first.
  const std::vector<Entry>& ranked() const { return ranked_; }

 private:
  std::vector<Entry>::const_iterator Position(int trial, std::optional<double> value) const;

  Mode mode_;
  std::vector<Entry> ranked_;
  std::map<int, std::optional<double>> values_;  // by trial
};

}  // namespace gpusweep::schedule_detail
