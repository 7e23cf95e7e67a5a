// scheduler.h — early stopping and multi-fidelity scheduling: which trial runs next,
// with which budget, and which trials stop early.
//
// Contract: a Scheduler is a deterministic state machine. Its state is a function of
// its config, the metric mode, the number of configurations and the sequence of calls
// made to it (JobStarted / OnReport / OnJobFinished); NextJob() only reads it. The run
// loop journals every call with its result, so a resumed experiment replays the same
// calls and reaches the same state: it makes the same decisions again and repeats no
// finished evaluation. Nothing here does I/O or reads a clock.
//
// Vocabulary. A configuration is one trial number (its params come from the sampler).
// A job is one process run of a trial up to a budget (the resource, e.g. epochs).
// Rung k of a bracket is the budget at which trials are compared; "better" follows
// the metric's mode; a missing or NaN value (failed trial) is worse than any number,
// and ties go to the lower trial number.
//
// Two styles of trial (TrialStyle):
//  - kIterative: one job per trial, budget = max_resource; the trial reports each step
//    (`resource` key) and OnReport says whether it continues or is stopped (pruned).
//  - kBudgeted: the trial reads its budget ({{budget}}) and exits; the scheduler then
//    pauses it, promotes it later (a new job of the same trial with the next budget, run
//    in the same trial directory) or eliminates it.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpusweep/config.h"
#include "gpusweep/json.h"
#include "gpusweep/objective.h"
#include "gpusweep/status.h"

namespace gpusweep {

enum class TrialStyle { kIterative, kBudgeted };

// What a free worker should do next.
struct Job {
  enum class Kind {
    kStart,    // start configuration `trial` (a new trial number) at `rung`/`budget`
    kPromote,  // run `trial` again (budgeted style) at `rung`/`budget`
    kWait,     // nothing to start now; ask again after the next OnJobFinished/OnReport
    kDone,     // nothing will ever be started again (running jobs may still finish)
  };
  Kind kind = Kind::kDone;
  int trial = -1;
  int bracket = 0;   // hyperband bracket (0 for other schedulers)
  int rung = 0;      // rung the job ends at (budgeted) or starts from (iterative: 0)
  double budget = 0; // resource to run to: the rung's resource (budgeted) or max_resource
  // Set by policies whose jobs carry their own params (e.g. population-based training):
  // the trial runs with these instead of its recorded or suggested params.
  std::optional<Params> params = std::nullopt;
  // The trial whose directory (its checkpoint) this job continues from, if any: the
  // trial gets GPUSWEEP_PARENT_TRIAL and GPUSWEEP_PARENT_DIR (docs/protocol.md).
  std::optional<int> parent = std::nullopt;
  // Told by the loop when the job's process ended, for a policy whose jobs continue from
  // checkpoints (SearchPolicy::checkpoints()): whether the trial left a complete
  // checkpoint (docs/protocol.md). Unset otherwise.
  std::optional<bool> checkpoint = std::nullopt;
};

enum class Verdict {
  kContinue,  // iterative: keep running
  kStop,      // stop now / eliminated: the trial ends as pruned
  kPause,     // budgeted: evaluated below max_resource, may be promoted later
  kPromote,   // budgeted: a job at the next rung was started (recorded by JobStarted)
  kComplete,  // reached max_resource (or won successive halving): the trial is done
};

std::string_view ToString(Verdict verdict);  // "continue", "stop", "pause", ...

// One decision, as journaled and shown by `gpusweep show`.
struct Decision {
  int trial = 0;
  int bracket = 0;
  int rung = -1;                // -1 when not at a rung (median rule)
  double resource = 0;          // resource value the decision was made at
  std::optional<double> value;  // the trial's value there (nullopt: missing/failed)
  Verdict verdict = Verdict::kContinue;
  // Why, for people: "rank 4 of 9 at rung 1 (epoch 3): only the top 3 continue";
  // "best 0.71 is worse than the median 0.80 of 5 other trials' running averages at
  // epoch 4".
  std::string reason;
};

// What one report, or one finished job, tells a scheduler about its trial. With one
// metric and no constraints only `value` is set, and every scheduler ranks by it as it
// always did. With several metrics or constraints (docs/config.md, "Several objectives
// and constraints") the run also sets `losses` and `violation`, which multi-objective
// ASHA, Hyperband and successive halving rank by (rung_table.h's Pareto ranking).
struct Evaluation {
  std::optional<double> value;  // the primary objective (nullopt: missing, NaN or failed)
  // Objective::Losses of every objective, in metric order (+inf where one is missing);
  // empty when the run has one metric and no constraints.
  std::vector<double> losses;
  double violation = 0;         // Objective::Violation: 0 feasible, +inf a constraint metric missing
};

// The calls a run makes about its jobs, in the order things happen: what the journal
// records (run/scheduler_journal.h) and a resumed run replays. A Scheduler and a
// SearchPolicy (policy.h) both take them.
class JobCalls {
 public:
  virtual ~JobCalls() = default;

  // A job returned by NextJob (kStart/kPromote) was launched.
  virtual void JobStarted(const Job& job) = 0;

  // Iterative style: trial `trial` reported `value` of the metric at `resource`
  // (nullopt if the metric was missing or not a number in that report). Returns a
  // decision when one is made at this report (a rung was reached, or the median rule
  // was applied and said stop); kStop means the trial must be stopped now. Budgeted
  // style: may be called, and returns nullopt.
  virtual std::optional<Decision> OnReport(int trial, double resource,
                                           std::optional<double> value) = 0;

  // The process of a started job ended. `value`: the metric's last reported value
  // (nullopt: the trial failed or never reported it; it ranks worst).
  // Returns the trial's resulting decision: budgeted: kPause / kComplete / kStop;
  // iterative: kComplete (or kStop if it had been stopped).
  virtual Decision OnJobFinished(const Job& job, std::optional<double> value) = 0;

  // The same two calls with the whole evaluation: what the run loop and the journal's
  // replay make. A callee that ranks by one value needs only the calls above (these
  // pass `value` on); those that rank by several objectives override these.
  virtual std::optional<Decision> OnEvaluatedReport(int trial, double resource,
                                                    const Evaluation& evaluation) {
    return OnReport(trial, resource, evaluation.value);
  }
  virtual Decision OnJobEvaluated(const Job& job, const Evaluation& evaluation) {
    return OnJobFinished(job, evaluation.value);
  }

  // The job's process ended without a result because gpusweep was interrupted: the
  // job counts as not started (NextJob will return it again, before anything else).
  virtual void OnJobInterrupted(const Job& job) = 0;
};

class Scheduler : public JobCalls {
 public:
  virtual TrialStyle style() const = 0;

  // The next job for a free worker. Does not change state: the caller calls
  // JobStarted(job) when it launches it (so asking twice gives the same answer).
  virtual Job NextJob() const = 0;

  // Iterative style: the resource values at which OnReport may stop `trial` (ASHA,
  // Hyperband: the rungs of its bracket below max_resource, increasing). Empty means
  // any report may stop it (the median rule). A trial that waits for the verdict of
  // its report (docs/protocol.md, verdicts.jsonl) needs to wait only at these points.
  virtual std::vector<double> StopPoints(int trial) const {
    (void)trial;
    return {};
  }

  // Trials eliminated for good so far, each with its kStop decision, in the order they
  // were made: successive halving's trials outside the survivors of a finished round
  // (OnJobFinished returned kPause for them: the round was not over yet). Empty for the
  // other schedulers, whose paused trials may still be promoted. Under cv the fold
  // policy (src/policy/fold_policy.h) also lists running folds of a stopped
  // configuration (kStop: stop them now) and paused folds of a configuration that
  // completed (kComplete). Reads state only; the
  // list only grows, so a caller can remember how much of it it has handled.
  virtual const std::vector<Decision>& Eliminated() const {
    static const std::vector<Decision> kNone;
    return kNone;
  }
};

// Builds the scheduler `config.kind` for an experiment of `configurations` trials
// (the sampler's total_trials()) whose objective follows `mode`. The Objective overload
// is the same for one metric without constraints; with several metrics or constraints,
// asha, hyperband and successive_halving rank rungs by Pareto ranking (multi-objective
// ASHA, Schmucker, Donini, Zafar, Salinas & Archambeau, "Multi-objective Asynchronous
// Successive Halving", arXiv:2106.12639, 2021: rung_table.h says the order), and median
// (no sound median of vectors) and pbt are Error{kInvalidConfig}. Returns nullptr for
// SchedulerKind::kNone. Error{kInvalidConfig} ("scheduler.<key>: what is wrong; what
// would be valid") on: max_resource < min_resource, min_resource <= 0, eta <= 1,
// budget_step <= 0 with linear growth, brackets < 1, successive_halving with
// kIterative style (it needs {{budget}}).
//
// Sources: median stopping rule — Golovin et al., "Google Vizier", KDD 2017;
// successive halving — Jamieson & Talwalkar, AISTATS 2016 (the seed's rounds, keeping
// ceil(n/eta) per round); ASHA — Li et al., "A System for Massively Parallel
// Hyperparameter Tuning", MLSys 2020; Hyperband — Li et al., JMLR 2018.
Expected<std::unique_ptr<Scheduler>> MakeScheduler(const SchedulerConfig& config, Mode mode,
                                                   int configurations, TrialStyle style);
Expected<std::unique_ptr<Scheduler>> MakeScheduler(const SchedulerConfig& config,
                                                   const Objective& objective,
                                                   int configurations, TrialStyle style);

// Rung resources of one ASHA bracket: min_resource * eta^k for k = 0, 1, ... while
// below max_resource, then max_resource itself (always the last rung).
std::vector<double> RungResources(double min_resource, double max_resource, double eta);

// Budgets of successive halving's rounds: geometric: min * eta^k; linear: min + k * step;
// both capped at max_resource, which is always the last round's budget.
std::vector<double> RoundBudgets(const SchedulerConfig& config);

}  // namespace gpusweep
