// hyperband.h — asynchronous Hyperband (Li et al., "Hyperband", JMLR 2018), each bracket
// run as ASHA (asha_bracket.h), as in the ASHA paper's asynchronous Hyperband.
//
// With R = max_resource / min_resource: s_max = floor(log_eta R). Bracket s (s = s_max
// down to 0, or only the first `brackets` of them) starts its trials at the paper's
// r_s = max_resource * eta^-s and has rungs r_s * eta^k up to max_resource (s + 1
// rungs; bracket 0 runs every trial at max_resource, without early stopping). When R is
// a power of eta, bracket s_max starts at min_resource; otherwise it starts at
// max_resource * eta^-s_max, which is >= min_resource.
//
// Trials go to brackets in the paper's proportions, deterministically: bracket s gets
// n_s = ceil((s_max + 1) / (s + 1) * eta^s) slots in a cycle of sum n_s trials, dealt by
// smooth weighted round-robin (each prefix of the cycle holds every bracket in about
// its proportion), and trial k goes to cycle[k mod cycle length]. When min_resource and
// max_resource are whole numbers, rung resources are rounded to whole numbers.
// Job::bracket is s.
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include "gpusweep/scheduler.h"
#include "schedule/rung_table.h"

namespace gpusweep::schedule_detail {

struct HyperbandPlan {
  int s_max = 0;
  std::vector<int> brackets;                  // s of each bracket, s_max first
  std::vector<int> slots;                     // n_s of each bracket
  std::vector<std::vector<double>> rungs;     // rung resources of each bracket
  std::vector<int> cycle;                     // bracket positions (into `brackets`)
};

// floor(log_eta(max / min)), robust to rounding (log_3 27 is 3).
int HyperbandSMax(double min_resource, double max_resource, double eta);

// Precondition: a validated config (0 < min <= max, eta > 1, brackets in 1..s_max + 1).
HyperbandPlan PlanHyperband(const SchedulerConfig& config);

// `ranking` ranks every bracket's rungs (kPareto: multi-objective ASHA, asha_bracket.h).
std::unique_ptr<Scheduler> MakeHyperband(const SchedulerConfig& config, Mode mode,
                                         int configurations, TrialStyle style,
                                         Ranking ranking = Ranking::kValue);

}  // namespace gpusweep::schedule_detail
