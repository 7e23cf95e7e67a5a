// policy.h — the search policy: the one owner of "what runs next".
//
// Contract. A SearchPolicy decides which trial runs next, with which params and budget
// (and, optionally, from which parent trial's checkpoint it continues), and what each
// report and each end of a job means. The trial loop (src/run) owns only resources,
// processes, the journal, deadlines and signals: when a slot is free it asks NextJob,
// and it tells the policy of every start, judged report, end and interruption, in the
// order they happen. The loop has no other notion of the kind of experiment.
//
// A policy is deterministic and does no I/O: its state is a function of its config, the
// trial records it was restored from (Restore) and the calls made to it since. When
// journaled() is true, the loop journals every call with its result in the same
// transaction as the trial change it goes with (run/scheduler_journal.h), and a
// resumed run replays those calls into a fresh policy before Restore, so a kill -9 and
// a resume give the same decisions. A policy whose state is a function of the trial
// records alone (a plain sweep) is not journaled: Restore rebuilds it.
//
// Implementations (src/policy, src/nas): SweepPolicy (a sampler: queue order, backfill,
// --retry-failed, growth), ScheduledPolicy (a sampler and a Scheduler, unchanged
// inside; BohbPolicy, bohb_policy.h, is one whose sampler learns from the results at
// one budget), FoldPolicy (cross-validation over any policy: every fold is a trial, the
// inner policy sees configurations), and the NAS tournament (MakeNasPolicy). A new
// kind of search (e.g. population-based training, src/policy/pbt_policy.h) is one more
// implementation: its jobs carry their own params and parent trial.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gpusweep/cv.h"
#include "gpusweep/sampler.h"
#include "gpusweep/scheduler.h"
#include "gpusweep/status.h"
#include "gpusweep/trial.h"

namespace gpusweep {

// What a resumed run does with trials an earlier run recorded as failed.
enum class FailedTrials {
  kKeep,   // they stay failed (the default: a failure is a result too)
  kRetry,  // they run again as a new attempt (e.g. after fixing the training script)
};

// A trial end as max_failures counts it: the trial itself, or under cv its
// configuration once all its folds have ended (`record` then describes the
// configuration; `show` names the fold `gpusweep show` should look at).
struct CountedEnd {
  TrialRecord record;
  int show = 0;
};

// How the failure budget (max_failures) speaks of what it counts, and what running
// the experiment again does with failed trials.
struct FailureWords {
  std::string unit = "trial";                                   // or "configuration"
  std::string rerun = "--retry-failed reruns the failed trials";  // the budget's advice
};

// Whether a job of trial `number` could get its resources now, as far as the loop can
// tell without taking them. An empty function: every trial can.
using CanStart = std::function<bool(int number)>;
inline bool Startable(const CanStart& can_start, int number) { return !can_start || can_start(number); }

class SearchPolicy : public JobCalls {
 public:
  ~SearchPolicy() override = default;

  // Trial numbers are 0..total_trials()-1 (>= 1). May grow between runs (`trials:`),
  // never within one.
  virtual int total_trials() const = 0;
  // kIterative: a job runs to its end, reporting as it goes; kBudgeted: a job reads
  // {{budget}} and exits, and OnJobFinished pauses, promotes or completes it.
  virtual TrialStyle style() const = 0;
  // OnReport judges reports (an iterative scheduler): trials then get a verdict file
  // (docs/protocol.md) and the loop reads their metrics more often.
  virtual bool judges_reports() const { return false; }
  // The calls made to it are journaled and replayed (see the contract above).
  virtual bool journaled() const = 0;
  // Its jobs continue from checkpoints (population-based training): the loop gives
  // every trial GPUSWEEP_CHECKPOINT_DIR (<trial dir>/checkpoint), copies a job's
  // parent's checkpoint there before each attempt starts (atomically: a temporary
  // directory beside it, then rename; a job without a parent gets it emptied), and
  // tells OnJobFinished, in Job::checkpoint,
  // whether the trial left a complete one (docs/protocol.md). A policy cannot look at
  // files itself; this is how it learns which trials can be donors.
  virtual bool checkpoints() const { return false; }

  // Once, after any replay of journaled calls and before the first NextJob, with every
  // trial in the journal ordered by number (none running but re-attached jobs); of a
  // policy whose reads_finished_trials() is false, each finished one as FinishedRecord.
  // `failed` says whether failed trials run again (--retry-failed). Returns decisions
  // an earlier run made without recording them (cv: folds of a configuration that had
  // failed never run); the loop records them quietly, as that run counted them.
  virtual std::vector<Decision> Restore(const std::vector<TrialRecord>& recorded,
                                        FailedTrials failed) {
    (void)recorded;
    (void)failed;
    return {};
  }

  // The job a free slot should run: kStart/kPromote of a trial for which `can_start`
  // is true, kWait, or kDone. A policy that lets later trials pass one whose resources
  // are not free returns another; one that runs in its own order returns kWait. Does
  // not change state: the loop calls JobStarted(job) when it launches it.
  virtual Job NextJob(const CanStart& can_start) const = 0;
  // Params of trial `number` when it starts and has none recorded (a resumed trial
  // keeps its recorded params; a job with params of its own uses those). `history`:
  // every trial recorded so far, warm-start trials (numbers < 0) first.
  virtual Suggestion Suggest(int number, const std::vector<TrialRecord>& history) const = 0;
  // Trial numbers likely to start next, at most `count`, so the loop can prepare their
  // directories ahead; empty when the policy cannot tell.
  virtual std::vector<int> Upcoming(std::size_t count) const {
    (void)count;
    return {};
  }

  // Iterative style: the resource values at which OnReport may stop `trial`; empty:
  // any report may.
  virtual std::vector<double> StopPoints(int trial) const {
    (void)trial;
    return {};
  }
  // Trials settled for good so far, in the order decided (the list only grows):
  // kStop for a paused trial (eliminated), a running one (stop it now) or one not
  // started (it never runs: recorded "not run"), kComplete for a paused one.
  virtual const std::vector<Decision>& Eliminated() const {
    static const std::vector<Decision> kNone;
    return kNone;
  }

  // What max_failures counts once `ended` (just stored in `trials`, ordered by number)
  // has ended: itself by default; nullopt when nothing finished yet (a fold whose
  // siblings still run).
  virtual std::optional<CountedEnd> CountEnd(const TrialRecord& ended,
                                             const std::vector<TrialRecord>& trials) {
    (void)trials;
    return CountedEnd{ended, ended.number};
  }
  virtual FailureWords failure_words() const { return {}; }
  // Whether --retry-failed may be used; Error{kInvalidArgument} saying why not.
  virtual Status AcceptRetryFailed() const { return {}; }
  // Whether --retry-failed runs this failed trial again (NAS: only the retrain, which
  // no decision depends on). Restore(…, kRetry) must requeue exactly these.
  virtual bool Retriable(const TrialRecord& failed) const {
    (void)failed;
    return true;
  }
  // Whether any call reads more of a finished trial (completed, pruned, or failed and
  // not run again in this run) than FinishedRecord keeps (trial.h: number, state,
  // objective, the objective's metrics, times, failure reason, no params). false: the
  // loop keeps only that of each (issue 25: with it, a 100,000-trial random sweep's run
  // peaked at 56 MB instead of 100 MB, bench/README.md); RunOutcome::trials then holds
  // those, and the journal the whole records. A plain sweep or a scheduler over a
  // sampler that reads no history.
  virtual bool reads_finished_trials() const { return true; }
  // Trials still to run in this run, given the recorded ones (for the start line).
  virtual int ToRun(const std::vector<TrialRecord>& recorded) const;

  // Environment a trial gets besides the protocol's (docs/protocol.md): cv's fold
  // variables, NAS's stage variables.
  virtual std::vector<std::pair<std::string, std::string>> TrialEnv(const TrialRecord& trial) const {
    (void)trial;
    return {};
  }
};

// The number of recorded trials that have finished (completed, failed, pruned).
int FinishedTrials(const std::vector<TrialRecord>& recorded);

// The policies of src/policy (each header there states its contract):
// a plain sweep over `sampler` (sweep_policy.h);
std::unique_ptr<SearchPolicy> MakeSweepPolicy(std::unique_ptr<Sampler> sampler);
// `sampler`'s params in the order and with the budgets `scheduler` decides
// (scheduled_policy.h; the scheduler built for sampler->total_trials() configurations);
std::unique_ptr<SearchPolicy> MakeScheduledPolicy(std::unique_ptr<Sampler> sampler,
                                                  std::unique_ptr<Scheduler> scheduler);
// cross-validation: `inner` over configurations, every fold a trial (fold_policy.h;
// precondition cv.enabled()).
std::unique_ptr<SearchPolicy> MakeFoldPolicy(std::unique_ptr<SearchPolicy> inner, const CvConfig& cv);
// population-based training over `sampler`'s initial draws (pbt_policy.h; precondition
// scheduler.kind == kPbt, as the parser validated it).
Expected<std::unique_ptr<SearchPolicy>> MakePbtSearchPolicy(const SchedulerConfig& scheduler,
                                                            const SamplerConfig& sampler,
                                                            const SearchSpace& space, Mode mode);

// BOHB (bohb_policy.h): `scheduler` is Hyperband over `config` (MakeScheduler of kBohb),
// `sampler` tpe as config/bohb_check.h sets it up; the configurations come from the results
// at the largest budget with enough of them. Precondition: config.kind == kBohb.
std::unique_ptr<SearchPolicy> MakeBohbPolicy(std::unique_ptr<Sampler> sampler,
                                             std::unique_ptr<Scheduler> scheduler, TrialStyle style,
                                             const SchedulerConfig& config, const SearchSpace& space,
                                             std::uint64_t seed);

}  // namespace gpusweep
