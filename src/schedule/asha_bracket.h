// asha_bracket.h — one bracket of asynchronous successive halving (ASHA: Li et al., "A
// System for Massively Parallel Hyperparameter Tuning", MLSys 2020). ASHA is one
// bracket; asynchronous Hyperband runs several (hyperband.h).
//
// Rungs are resources r_0 < r_1 < ... < r_K (r_K = max_resource). Rung K is where
// trials end; rungs 0..K-1 are where they are compared.
//
// Iterative style (the stopping variant, as Ray Tune's ASHA): the first report of a
// trial at a resource >= r_k records that report's value at rung k (once per trial and
// rung; a report that passes several rungs records each, in order). With n values at
// rung k (this one included), the trial continues iff its rank there is < ceil(n/eta);
// otherwise it is stopped, and later rungs are not recorded.
//
// Budgeted style (the promotion variant, the paper's get_job): a finished job records
// its value at its rung. Promotion looks from rung K-1 down to 0 for the best trial
// among the top floor(n_k/eta) of rung k that has a value and was not promoted from
// rung k yet; it runs again at rung k+1. A job without a value (failed) is recorded
// as the worst and never promoted. See TailPromotion for the end of a finite pool.
//
// Multi-objective ASHA (Ranking::kPareto: several metrics or constraints; Schmucker,
// Donini, Zafar, Salinas & Archambeau, "Multi-objective Asynchronous Successive
// Halving", arXiv:2106.12639, 2021): the same rules over rung_table.h's Pareto order
// (constraint-domination front, then crowding distance descending, then trial) instead
// of one value. Since that order changes as trials arrive, "the best unpromoted trial
// of the top floor(n_k/eta)" is looked up in the rung's current order each time.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "gpusweep/scheduler.h"
#include "schedule/rung_table.h"

namespace gpusweep::schedule_detail {

class AshaBracket {
 public:
  // `id` becomes Job::bracket and Decision::bracket; `resource_name` ("epoch") is for
  // reasons. Precondition: rungs non-empty and increasing, eta > 1.
  AshaBracket(int id, std::vector<double> rungs, double eta, Mode mode,
              std::string resource_name, Ranking ranking = Ranking::kValue);

  int id() const { return id_; }
  const std::vector<double>& rungs() const { return rungs_; }
  int last_rung() const { return static_cast<int>(rungs_.size()) - 1; }
  const RungTable& table(int rung) const { return tables_[rung]; }

  // The kStart job of a new configuration: rung 0 (budgeted) or max_resource (iterative).
  Job StartJob(int trial, TrialStyle style) const;

  // Iterative style.
  std::optional<Decision> OnReport(int trial, double resource, const Evaluation& evaluation);
  // The rung where the trial was stopped, if it was.
  std::optional<int> StoppedAt(int trial) const;

  // Budgeted style.
  std::optional<Job> Promotion() const;  // a kPromote job, or nothing promotable now
  // With no configuration left to start and nothing running, floor(n/eta) may be 0 at
  // a rung (fewer than eta trials reached it) and no trial would ever reach
  // max_resource. While none has, the best unpromoted trial of the highest rung is
  // promoted anyway, so every bracket that ran trials ends with a fully trained one.
  std::optional<Job> TailPromotion() const;
  void MarkPromoted(const Job& promotion);
  Decision RecordFinished(const Job& job, const Evaluation& evaluation);

 private:
  Decision RungDecision(int trial, int rung, double resource, const Evaluation& evaluation);
  std::string RungName(int rung) const;
  // " (front 1, crowding 0.5)" under Pareto ranking, "" otherwise: the reason's detail.
  std::string ParetoDetail(int rung, int trial) const;
  // The best trial with a value not promoted from `rung` yet, if its rank is < limit.
  std::optional<int> BestUnpromoted(int rung, int limit) const;
  Job PromotionJob(int trial, int from_rung) const;

  int id_;
  std::vector<double> rungs_;
  double eta_;
  std::string resource_name_;
  Ranking ranking_;
  struct RankOrder {
    Mode mode;
    bool operator()(const RungTable::Entry& a, const RungTable::Entry& b) const {
      return RanksBefore(mode, a.value, a.trial, b.value, b.trial);
    }
  };
  using Candidates = std::set<RungTable::Entry, RankOrder>;

  std::vector<RungTable> tables_;          // one per rung below the last
  std::vector<std::set<int>> promoted_;    // per rung: trials promoted out of it
  // Per rung: entries with a value not promoted yet, best first. Only the first can be
  // the next promotion, so Promotion() is O(log n) per rung. Ranking::kValue only: a
  // Pareto order is not fixed per entry, so there the rung's ranked() is scanned.
  std::vector<Candidates> candidates_;
  std::map<int, int> stopped_;             // iterative: trial -> rung it was stopped at
  int completed_ = 0;                      // budgeted: jobs finished at the last rung
};

}  // namespace gpusweep::schedule_detail
