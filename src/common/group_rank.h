// group_rank.h — the order of groups of trials that ran the same params (report/groups.h,
// docs/config.md "Repeats and seeds"), in one place for every reader of it: the report's
// in-memory grouping, the journal's default, its SQL scan and its read tallies.
//
// Contract: pure. Groups with a mean (a completed trial with the objective) first; of
// those, the ones no trial spoils (SpoilsItsGroup, gpusweep/trial.h) first; then by
// mean in the metric's mode (RanksBefore: a NaN mean, +inf and -inf summed, last);
// ties to the group whose first trial has the lower number. A strict weak order.
#pragma once

#include <cmath>

#include "gpusweep/metric.h"
#include "gpusweep/objective.h"

namespace gpusweep {

struct GroupStanding {
  int completed = 0;  // trials completed with the objective
  int spoiled = 0;    // trials that SpoilsItsGroup
  double mean = 0;    // of the completed ones' objectives; read only when completed > 0
  int first = 0;      // the group's lowest trial number
};

inline bool GroupRanksBefore(Mode mode, const GroupStanding& a, const GroupStanding& b) {
  if ((a.completed > 0) != (b.completed > 0)) return a.completed > 0;
  if (a.completed > 0) {
    if ((a.spoiled == 0) != (b.spoiled == 0)) return a.spoiled == 0;
    if (RanksBefore(mode, a.mean, b.mean)) return true;
    if (RanksBefore(mode, b.mean, a.mean)) return false;
  }
  return a.first < b.first;
}

}  // namespace gpusweep
