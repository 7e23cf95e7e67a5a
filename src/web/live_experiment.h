// live_experiment.h — one experiment as the dashboard sees it: its read model
// (view/experiment_view.h: experiment.json, the read-only journal, the recorded config)
// and what was last read from it, refreshed while a run writes it.
//
// Live updates travel by cursor: every trial row carries the revision at which it last
// changed (a counter this object keeps in memory; the journal is never written), and
// every learning-curve point its journal cursor. A client passes the largest of each it
// has seen and receives only rows past them.
// Thread-safe: the server's worker threads share one LiveExperiment per directory.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "gpusweep/config.h"
#include "gpusweep/journal.h"
#include "gpusweep/nas.h"
#include "gpusweep/objective.h"
#include "gpusweep/json.h"
#include "gpusweep/status.h"
#include "run/experiment_meta.h"
#include "view/experiment_view.h"
#include "view/pbt_lineage.h"
#include "web/charted_trials.h"
#include "web/live_importance.h"
#include "web/point_columns.h"

namespace gpusweep::web {

// The scheduler's decisions about one trial as display lines (the CLI's `show` lines);
// the trial's params say where a NAS evaluation sits, which stands for its budget.
using DecisionFormatter = std::function<std::vector<std::string>(
    const std::vector<SchedulerEventRecord>& events, const std::string& resource,
    const TrialRecord& trial)>;

class LiveExperiment {
 public:
  // Opens the experiment's view (ExperimentView::Open: experiment.json, the journal
  // read-only, the recorded config). Errors as ExperimentView::Open; kIo when `dir`
  // cannot be resolved.
  static Expected<std::unique_ptr<LiveExperiment>> Open(const std::filesystem::path& dir,
                                                        DecisionFormatter decisions);

  // {name, dir, metric, mode, total, recorded, unfinished (ExperimentStateName),
  //  counts{state: n}, best{trial, value}|null (with constraints: the best feasible
  //  trial, null when none is; with several objectives: null, see pareto), running,
  //  state (ExperimentStateName),
  //  (a NAS experiment's best is its result, FindNasResult: {trial, value, stage:
  //  "retrain"|"confirm", block}, null before a block is confirmed)
  //  scheduler{type, resource, max_resource}|null, params[names], choice_params[the
  //  names declared `type: choice`: categories even when their values are numbers],
  //  rungs[resource values],
  //  nas: the tournament's state (NasProgressJson: blocks, rounds, survivors,
  //  eliminations, stages) for a NAS experiment, else absent,
  //  pbt: a population-based training experiment's members, segments and exploits
  //  (PbtJson, web/pbt_json.h), else absent,
  //  pareto: with several objectives, each completed trial's objectives, front rank and
  //  feasibility and the hypervolume over completions (ParetoJson, web/pareto_json.h),
  //  else absent,
  //  held: which trials a page is sent (ChartedTrials::Describe: {held, recorded, stride,
  //  best}; every trial up to ChartedTrials::kMaxHeld)}
  Expected<Json> Summary();
  // {revision, generation, reset, trials: [trial objects changed after `since`, by
  // number]} (see TrialJson) of the trials a page holds (web/charted_trials.h), as JSON
  // text: each trial's text is kept from when it last changed, so a 10,000-trial answer
  // is a concatenation, not 10,000 objects built and dumped. `generation`: the held set's
  // that the client has, if it follows them; when it is not the current one the answer
  // is every held trial and `reset` is true: the client drops what it holds first.
  Expected<std::string> TrialsSince(std::int64_t since,
                                    std::optional<std::int64_t> generation = std::nullopt);
  // {generation, reset, cursor, trial[], attempt[], step[], value[]}: the objective
  // metric's intermediate values appended after `after`, of the trials a page holds,
  // columnar so 200,000 points stay a few MB; JSON text. `generation` as TrialsSince's:
  // on a reset every held trial's points, from the first.
  Expected<std::string> PointsAfter(std::int64_t after,
                                    std::optional<std::int64_t> generation = std::nullopt);
  // {trial, results[{attempt, step, time, values}], judged{rung, resource, verdict}|null
  // (the last scheduler decision at a rung), decisions[lines], log_tail} of
  // trial `number`; Error{kNotFound} if it has not started.
  Expected<Json> TrialDetail(int number);

  // Parameter importance of the completed trials (LiveImportance::Get): {method,
  // trials, of, revision, current, params: [{name, importance}] most important first};
  // over a sample of kImportanceTrials when there are more (the smallest
  // ChartedTrials::SampleHash, which no sweep order aliases with): the
  // forest over 100,000 trials took 30 s and most of the server's 713 MiB (bench/web).
  // Recomputed, throttled, when trials changed since; a stale result says current: false.
  // With several objectives also objectives: [{objective, mode, and the same fields}],
  // each objective's importance over the completed trials reporting it (each its own
  // LiveImportance, so each is throttled alone); then `current` and `revision` are the
  // least current of them all, so a page asks again until every one is.
  Expected<Json> Importance();

  static constexpr std::size_t kImportanceTrials = 10000;

  const std::filesystem::path& dir() const { return dir_; }
  const ExperimentMeta& meta() const { return view_.meta(); }

 private:
  LiveExperiment(std::filesystem::path dir, ExperimentView view, DecisionFormatter decisions);
  // Re-reads the journal when a writer committed since the last read. Caller holds mutex_.
  Status RefreshLocked();

  // Merges what was read into records_ (replaces them when `read.whole`), keeping each
  // trial's text from before for comparison (a new trial's is empty, revision 0), and
  // adds new param names; returns the indices in records_ of the trials read. Caller
  // holds mutex_.
  std::vector<std::size_t> MergeTrialsLocked(ChangedTrials read);
  // Trial `number`'s index in records_, which holds it. Caller holds mutex_.
  std::size_t IndexOfLocked(int number) const;
  // Updates charted_ for records_; returns the numbers that joined the held set (all
  // held ones when it was chosen anew). Caller holds mutex_.
  std::vector<int> UpdateChartedLocked();
  // Rebuilds summary_ (less `running`) from records_ and rungs_. Caller holds mutex_.
  void SummarizeLocked();
  Json BestJson() const;

  struct TrialText {
    std::string json;  // TrialJson(record).dump() of a held trial: what changed is compared on this
    std::int64_t revision = 0;
    std::uint64_t stamp = 0;  // ChangeStamp(record): what a trial not held is compared on
  };

  std::mutex mutex_;
  std::filesystem::path dir_;  // canonical: the root a log tail must stay within
  ExperimentFiles files_;      // of dir_
  ExperimentView view_;        // the only reader of the experiment
  DecisionFormatter decisions_;
  std::optional<std::int64_t> data_version_;  // the journal's when last read
  std::int64_t revision_ = 0;
  std::int64_t trials_mark_ = -1;     // the journal's change mark read up to (-1: none)
  std::vector<TrialRecord> records_;  // by number
  std::vector<TrialText> texts_;      // records_'s, same index
  std::vector<std::string> param_names_;  // flattened, in the order first seen
  std::set<std::string> named_params_;    // param_names_, to look up
  ChartedTrials charted_;             // which of records_ a page is sent
  PointColumns points_;  // with a finite value only, append order
  std::int64_t points_cursor_ = 0;  // the journal's metric cursor read up to
  std::set<double> rungs_;
  std::int64_t events_seq_ = 0;  // the last scheduler event read for rungs_
  Json summary_;                 // Summary() less `running`, as of revision_
  std::optional<NasConfig> nas_;  // a NAS experiment's config, from the journal
  std::optional<PbtLineage> pbt_;  // a PBT experiment's lineage, followed with events_seq_
  std::optional<Objective> pareto_;  // the objective when it has several metrics
  // The objective when it has one metric and constraints: `best` is then the best
  // feasible trial (RankParetoTrials), never an infeasible one with a better value.
  std::optional<Objective> constrained_;
  std::optional<std::vector<double>> hypervolume_reference_;  // the config's, if any
  std::vector<std::string> choice_params_;  // declared `type: choice` in the search space
  std::unique_ptr<LiveImportance> importance_;
  // With several objectives: one per objective other than the primary metric (whose
  // importance is importance_'s), by objective index; nullptr at the primary's.
  std::vector<std::unique_ptr<LiveImportance>> objective_importance_;

  // Completed trials as importance reads them, `objective` replaced by objective
  // `index`'s reported value (the primary's recorded objective without an index).
  TrialsSnapshot ImportanceSnapshot(std::optional<std::size_t> index);
};

// What the dashboard calls an experiment: "running" while a gpusweep runs it
// (`run_alive`: its lock is held), else "interrupted" when the run left `unfinished`
// trials (planned but not recorded, or recorded running, paused or interrupted: the run
// died or was stopped; `gpusweep run` resumes it), else "finished".
std::string_view ExperimentStateName(bool run_alive, long unfinished);

// A hash of what changes in a trial's record after it started (state, attempt,
// objective, end, budget, rung, exit, reason's and metrics' sizes): how a trial the page
// is not sent is seen to change, so the summary and importance follow it.
std::uint64_t ChangeStamp(const TrialRecord& trial);

// One trial for the dashboard: {number, state, attempt, params{flattened name: value},
// objective|null, start, end|null (Unix seconds), gpus[], reason, exit_code|null,
// signal|null, budget|null, rung, bracket, metrics{last reported}}.
Json TrialJson(const TrialRecord& trial);

// The last `max_bytes` of `file` (cut at a line start) if it lies within `root` after
// resolving symlinks; "" when it is missing, unreadable or outside.
std::string ConfinedTail(const std::filesystem::path& file, const std::filesystem::path& root,
                         std::size_t max_bytes);

}  // namespace gpusweep::web
