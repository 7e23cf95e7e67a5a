// report.h — formatting of experiment results for people and for other programs.
//
// Contract: every function here is pure. It reads only its arguments (the journal's
// trial records, a ReportContext the front end fills in) and returns text; it never
// touches files, the terminal or the clock, and never fails. Text is UTF-8, lines end
// with '\n' (except FormatProgressLine, a single line without one).
//
// Width: "display width" is the number of UTF-8 code points ("…" counts 1; ANSI colour
// escapes count 0). Every line of FormatStatus and FormatProgressLine, and every table
// line of FormatSummary and FormatTrial, is at most ctx.width wide; longer lines are cut
// at the end and marked with "…". Detail lines holding paths (FormatBest, FormatTrial,
// the summary's "Results" line) are never cut so they stay copyable. ctx.width <= 0
// means unlimited.
//
// Colour: with ColorMode::kAlways only trial-state words in tables and detail views are
// coloured (completed green, failed red, running/interrupted yellow); with kNever the
// output contains no escape sequence at all.
//
// Numbers: objectives and metric values are shown with up to 6 significant digits
// (printf "%.6g"); exports keep full precision.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gpusweep/config.h"
#include "gpusweep/json.h"
#include "gpusweep/objective.h"
#include "gpusweep/status.h"
#include "gpusweep/trial.h"

namespace gpusweep {

struct ParetoTrial;  // a completed trial's place in a Pareto ranking (src/report/pareto_views.h)

enum class ColorMode { kNever, kAlways };  // the CLI decides from isatty and NO_COLOR

// What the reports need to know about an experiment's scheduler.
struct SchedulerSummary {
  std::string type;          // "asha", "median", ...
  std::string resource;      // the step key, e.g. "epoch"
  double max_resource = 0;   // full budget; 0 when the scheduler has none (median)
};

struct ReportContext {
  std::string experiment_name;
  // How the summary's suggested commands name gpusweep ("build/gpusweep" made absolute
  // when it is not the gpusweep on PATH; cli's SuggestedProgram).
  std::string program = "gpusweep";
  std::filesystem::path experiment_dir;  // trial k lives in <dir>/trials/<TrialDirName(k)>
  MetricSpec metric;
  int total_trials = 0;   // planned trials (sampler total); queued = total - recorded
  double now = 0;         // Unix seconds, for durations of running trials
  ColorMode color = ColorMode::kNever;
  int width = 100;        // terminal columns; <= 0 = unlimited
  std::optional<SchedulerSummary> scheduler;  // nullopt: no early stopping
  // cv.enabled(): trials are folds (gpusweep/cv.h); status, best, the summary and the
  // exports show configurations with mean ± std and their folds.
  CvConfig cv;
  // A NAS experiment: two evaluations with equal params are RACOS proposing the same
  // setting again (at its stage's data size), not repeats; its best is never a group.
  bool nas = false;
  // Several objectives or constraints (objective.h, docs/config.md "Several objectives
  // and constraints"): `status` shows each objective and each trial's Pareto rank and
  // ranks by it, its Best line is the front; exports add pareto_rank, feasible and
  // violation. nullopt: one metric, no constraints.
  std::optional<Objective> pareto;
  // `hypervolume_reference:` in the objectives' own units, one per objective in their
  // order; nullopt: derived from the trials (report/pareto_views.h).
  std::optional<std::vector<double>> hypervolume_reference;
};

// What early stopping saved over `trials` (EarlyStoppingSavings, gpusweep/trial.h: the
// rule, AddPrunedTrial, which Journal::SumPrunedProgress computes in SQL).
EarlyStoppingSavings EstimateEarlyStoppingSavings(const std::vector<TrialRecord>& trials,
                                                  const SchedulerSummary& scheduler);

// "12 of 16 trials pruned early by asha; epoch not trained: 32 of 64 (50%)"; "" when
// nothing was pruned (or without a scheduler).
std::string FormatEarlyStopping(const std::vector<TrialRecord>& trials, const ReportContext& ctx);
// The same from savings over `recorded` trials (a TrialSlice's, read by
// Journal::SumPrunedProgress).
std::string FormatEarlyStopping(const EarlyStoppingSavings& savings, int recorded,
                                const ReportContext& ctx);

// Completed trials with a (non-NaN) objective, best first: highest first for
// Mode::kMax, lowest first for kMin; ties keep the lower trial number first. Failed,
// running and interrupted trials are never ranked. Pointers point into `trials`.
std::vector<const TrialRecord*> RankTrials(const std::vector<TrialRecord>& trials,
                                           const MetricSpec& metric);
// The first `limit` of RankTrials, found without sorting the rest (a partial sort: the
// dashboard's best trial and best 2,000 of 100,000 at every refresh of a live run).
std::vector<const TrialRecord*> RankTrials(const std::vector<TrialRecord>& trials,
                                           const MetricSpec& metric, std::size_t limit);

// What a NAS experiment found (ReportContext::nas; docs/nas.md, "Reading the results"):
// the retrain when it completed; before that, the confirm of the highest block whose
// confirm completed (the latest confirmed block); else nullopt. Never a round or
// winner-refinement evaluation: those train on part of the data for few epochs, and
// the highest of many such scores is the luckiest draw, not the search's result.
// `best`, status's Best line, the run summary, the progress line and the dashboard's
// summary name this trial for a NAS experiment. Chosen by the trials' params
// (nas_stage, nas_block), so a failed retrain falls back to the latest confirm.
struct NasResult {
  const TrialRecord* trial = nullptr;  // points into the trials given
  bool retrain = false;                // false: a confirm (the retrain has not completed)
  int block = 0;                       // the block it confirms; the retrain: the last
};
std::optional<NasResult> FindNasResult(const std::vector<TrialRecord>& trials);

// "retrain" or "confirm of block 2, the retrain has not completed".
std::string NasResultStage(const NasResult& result);

// The order of `gpusweep status` rows.
enum class StatusSort {
  kNumber,     // trial number (the default)
  kObjective,  // best first by the metric's mode; trials without a value last
  kDuration,   // longest first
  kParam,      // by StatusOptions::sort_param, ascending (numbers by value, then text)
  // By one reported metric, StatusOptions::sort_metric, best first by its mode (an
  // objective of several, or a constraint's metric: ascending); trials without a number
  // for it last. With one objective, its name means kObjective.
  kMetric,
};

struct StatusOptions {
  StatusSort sort = StatusSort::kNumber;
  std::string sort_param;           // kParam: a flattened param name ("net.depth")
  MetricSpec sort_metric;           // kMetric: the metric and its order
  int top = 0;                      // > 0: only the first `top` rows after sorting
  // Without `top`, > 0: at most this many rows, the latest when sorted by number, else
  // the first in the order; "Showing" says so (`status` lists 1,000 unless --all).
  int cap = 0;
  std::optional<TrialState> state;  // only trials in this state
  // Running trials: the step of the report their `objective` (the metric's last value
  // so far) came from. A running trial without an entry shows no objective: a value
  // is never shown without the step it was reported at.
  std::map<int, std::int64_t> running_steps;
  // The params that do not tell groups apart in the Best line (`--ignore`; the default
  // GroupingOptions' "seed").
  std::vector<std::string> ignored{"seed"};
};
// What "Showing N of M recorded trials; " adds when a cap cut the rows: "the latest
// 1000; `--all` lists every one, `--top N` the best N" (`which`: latest, best, first).
std::string CappedRowsNote(std::string_view which, int cap);

// `gpusweep status`: a header (experiment name, directory, counts of completed /
// running / failed / interrupted / queued = max(0, total - recorded), best so far, the
// params that are the same in every trial as "Constants"; "Showing" when options
// filter or cut rows) and a table, one row per trial (StatusOptions: order, filter,
// count): trial, state, gpus ("0,1" or "cpu"), duration (running trials: ctx.now -
// start), the scheduler's resource reached, objective ("-" if none; running: "0.83
// (step 3)" without a scheduler), note (why it was pruned or failed), params
// ("k=v, …" nested params flattened to dotted names, constants left out, floats with
// as many digits as it takes to tell the trials' values apart).
// With ctx.cv enabled: one row per configuration (mean ± std, CV state), its folds
// under it (src/report/cv_views.h).
std::string FormatStatus(const std::vector<TrialRecord>& trials, const ReportContext& ctx,
                         const StatusOptions& options = {});

// How `best` and `status --group` treat trials that ran the same params (grid
// repeats, or a seed parameter). Trials whose params are equal apart from the
// `ignored` top-level names (the repeat index is never a param) form one group.
// Ranking (docs/config.md, "Repeats and seeds"): groups none of whose runs failed, was
// pruned or lacks the objective first (SpoilsItsGroup), then by the mean objective.
struct GroupingOptions {
  std::vector<std::string> ignored{"seed"};
  bool single = false;  // `best --single`: the best single trial, no grouping
};

// `gpusweep best`: the best trial's number, objective with metric name and mode, params
// (one per line, top-level names, structured values as compact JSON, numbers at full
// precision) and its directory. When some params ran more than once (see
// GroupingOptions, unless `single`): the best group instead, its mean ± sample standard
// deviation and count, each run's value, the group's params and the directory of its
// best run. nullopt when no trial is completed with an objective; the caller then
// prints FormatNoBest() and exits 1. With ctx.cv enabled (and not `single`): the best
// configuration by its folds' mean (gpusweep/cv.h), with mean ± std, each fold's value
// and its folds' directories; nullopt when no configuration completed.
std::optional<std::string> FormatBest(const std::vector<TrialRecord>& trials,
                                      const ReportContext& ctx,
                                      const GroupingOptions& grouping = {});

// `gpusweep status --group`: the status header, then one row per group of trials with
// the same params (GroupingOptions), ranked: rank, runs, completed, mean ± std (n),
// min, max, the trial numbers, the params that differ between groups.
std::string FormatGroups(const std::vector<TrialRecord>& trials, const ReportContext& ctx,
                         const GroupingOptions& grouping = {});

// What `status`, `best` print of an experiment too large to read whole (issue 25: at
// 100,000 trials they read only this, by the journal's queries; ExperimentView::Slice):
// counts over every trial, the rows to list, the best trial and the best group of
// repeated params. Only for experiments without cv, NAS or a scheduler (asserted): their
// headers need every trial.
struct TrialSlice {
  TrialCounts counts;              // over every trial
  std::vector<TrialRecord> rows;   // the rows to list, in order (running objectives filled)
  std::string rows_note;           // said after "Showing N of M recorded trials", if any
  // Params whose value is the same in every trial (given at least two), flattened names
  // in order of first appearance: the header's Constants, left out of the rows.
  std::vector<std::pair<std::string, Json>> constants;
  std::optional<TrialRecord> best;  // RankTrials' first over every trial
  // With a scheduler: what early stopping saved over every trial (the Stopped line).
  std::optional<EarlyStoppingSavings> early_stopping;
  // Grouping (GroupingOptions): how many groups, whether some holds more than one trial,
  // and the trials of the best group (by number; empty when no group has a mean).
  int groups = 0;
  bool group_repeats = false;
  std::vector<TrialRecord> best_group;
  // The run's summary (ExperimentView::SummarySlice): with repeats, the trials of each of
  // the best groups, best first, as many as it lists.
  std::vector<std::vector<TrialRecord>> top_groups;
};

// FormatStatus, FormatBest and FormatNoBest from a slice; the same text as from every
// trial when the slice's rows are the rows those would list, except that a float param's
// digits tell the listed rows apart (not every trial), and `best`'s "ignoring seed" names
// the ignored params the best group's trials hold.
std::string FormatStatus(const TrialSlice& slice, const ReportContext& ctx,
                         const StatusOptions& options);
// With several objectives or constraints (ctx.pareto): `ranked` is every completed
// trial in Pareto order (RankParetoTrials, report/pareto_views.h), which gives the Best
// line and each listed row's PARETO rank; the rows are whichever the caller read whole.
std::string FormatStatus(const TrialSlice& slice, const std::vector<ParetoTrial>& ranked,
                         const ReportContext& ctx, const StatusOptions& options);
std::optional<std::string> FormatBest(const TrialSlice& slice, const ReportContext& ctx,
                                      const GroupingOptions& grouping);
std::string FormatNoBest(const TrialSlice& slice, const ReportContext& ctx);

// One sentence for `gpusweep best` when FormatBest returned nullopt, e.g.
// "No completed trial with val_acc in fmnist-cnn yet (2 failed, 1 running).\n".
std::string FormatNoBest(const std::vector<TrialRecord>& trials, const ReportContext& ctx);

// End-of-run summary: the counts, a table of the top `limit` ranked trials (rank,
// trial, objective, duration, params; limit <= 0 = all) and where results are
// (experiment directory, `gpusweep best` / `export` hints). With ctx.pareto (several
// objectives or constraints) the table is in Pareto order with each objective and the
// PARETO rank, followed by status's front, infeasible and hypervolume lines.
std::string FormatSummary(const std::vector<TrialRecord>& trials, const ReportContext& ctx,
                          int limit);
// The same from a SummarySlice of `limit` (> 0) rows: the same text, except that a float
// param's digits tell the listed rows (or groups) apart, not every trial.
std::string FormatSummary(const TrialSlice& slice, const ReportContext& ctx, int limit);

// `gpusweep show`: params, state, attempt, gpus, start/end (ISO-8601 in local time,
// e.g. "2024-03-01T14:05:09+01:00"), duration, exit code or signal name or failure
// reason, objective, the trial directory, a table of the intermediate results (step,
// then each reported key in order of first appearance; an attempt column when
// `results` spans several attempts; the last 50 rows) and `log_tail` verbatim.
// `decisions`: the scheduler's decisions about this trial, one line each, oldest first
// (listed under "Scheduler decisions:" when not empty). Under ctx.cv a fold trial also
// names its fold, its configuration with the configuration's state and mean ± std, and
// its sibling folds, taken from `trials` (the experiment's trials).
std::string FormatTrial(const TrialRecord& trial, const std::vector<IntermediateResult>& results,
                        const std::string& log_tail, const ReportContext& ctx,
                        const std::vector<std::string>& decisions = {},
                        const std::vector<TrialRecord>& trials = {});

// Exports: one row per trial in the given order. Columns: trial, state, attempt, repeat,
// objective, start_time, end_time (Unix seconds), start_time_iso, end_time_iso (ISO 8601
// UTC, "2026-12-01T02:48:55.120Z"), duration_s, gpus, exit_code, term_signal,
// failure_reason (for pruned trials: why they were stopped), budget (an integer when
// whole), rung, bracket (with a scheduler: the last job's; else empty), then
// "param.<flattened name>" for the union of params (order of first appearance; the CLI's
// export: the search space's declaration order, TrialExportOptions::declared), then
// "metric.<key>" for the union of last_metrics keys. end_time, end_time_iso and
// duration_s are empty/null while a trial runs.
// CSV (RFC 4180, "\r\n" line ends): a header row; a field is quoted when it holds a
// comma, quote, CR or LF, quotes doubled; missing values are empty; gpus is "0,1"
// (empty for CPU); lists/maps are compact JSON text; strings are raw.
// With cv enabled (cv.folds > 0) each fold's row also has, after "trial",
// "configuration" and "fold", and after "objective", its configuration's "cv_state",
// "cv_mean" and "cv_std" (gpusweep/cv.h), so rows read as configurations with their
// folds under them.
// With `pareto` (several objectives or constraints; each objective's value is its
// "metric.<name>" column), after "objective": "pareto_rank" (1 = the Pareto front; the
// feasible fronts first, then the infeasible trials by violation), "feasible" and
// "violation" (the total constraint violation, 0 when feasible; +inf, JSON null, when a
// constraint's metric was not reported), all three empty/null for trials that did not
// complete (only completed trials are ranked). With both, the three are the fold's
// configuration's: configurations are ranked by their folds' means (ConfigurationRecords),
// and every fold row of one carries its rank, empty/null until it completed.
std::string ExportCsv(const std::vector<TrialRecord>& trials, const CvConfig& cv = {},
                      const std::optional<Objective>& pareto = std::nullopt);
// JSON: an array (pretty-printed, 2-space indent) of objects with the same keys in the
// same order, except that a param a trial does not have (a conditional one, inactive in
// it) has no key; numbers stay numbers, lists stay lists, gpus is an array of ints,
// other missing values are null.
std::string ExportJson(const std::vector<TrialRecord>& trials, const CvConfig& cv = {},
                       const std::optional<Objective>& pareto = std::nullopt);

// `export --steps`: the learning curves, one row per reported line (trial, attempt,
// step) in the given order (the journal's: by trial, then as read). Columns: trial,
// attempt, step, time (Unix seconds when gpusweep read the line), time_iso, then
// "metric.<key>" for the union of reported keys (order of first appearance; a key a
// line lacks is empty/null).
std::string ExportStepsCsv(const std::vector<IntermediateResult>& results);
std::string ExportStepsJson(const std::vector<IntermediateResult>& results);

// The same exports streamed (issue 25: 100,000 trials in constant memory), byte for byte
// what the functions above return for the rows the walks visit. A walk calls its
// visitor on each row in order (Journal::ForEachTrial / ForEachResult) and is called
// twice: the first pass learns the columns (CSV's header comes first) and, with cv or
// `pareto`, keeps a compact record per trial for the ranking (no params, only the
// objectives' and constraints' metrics); the second writes each row to `out` as it is
// visited. Both passes must visit the same rows (the caller holds one snapshot:
// Journal::InSnapshot). Errors: the walk's or the sink's, first one wins.
using TrialWalk = std::function<Status(const std::function<Status(const TrialRecord&)>&)>;
using ResultWalk = std::function<Status(const std::function<Status(const IntermediateResult&)>&)>;
using TextSink = std::function<Status(std::string_view)>;
enum class ExportText { kCsv, kJson };
// A population-based training experiment's segments (docs/config.md, "Population-based
// training"): trial k is member k % population's segment k / population, and `parents`
// maps a started segment to the trial whose checkpoint it continued (view/pbt_lineage.h
// reads them from the journal).
struct PbtExportColumns {
  int population = 0;  // 0: not a PBT experiment, no such columns
  std::map<int, int> parents;
};

// What shapes a trial export besides its rows.
struct TrialExportOptions {
  CvConfig cv;                      // cv.folds > 0: the configuration and fold columns
  std::optional<Objective> pareto;  // several objectives or constraints: the ranking columns
  // The search space's parameter names in declaration order; the param columns follow
  // it (a flattened name at the place of the declared parameter it is or lies under,
  // "classifier.type" at choice "classifier"'s), the others after them in order of first
  // appearance. Empty: every param column in order of first appearance.
  std::vector<std::string> declared;
  // population > 0: after "repeat", "member", "segment" and "parent_trial" (the trial
  // whose checkpoint the segment continued; empty for a first segment, or one not started).
  PbtExportColumns pbt;
};
Status WriteTrialExport(ExportText format, const TrialWalk& trials, const TextSink& out,
                        const TrialExportOptions& options = {});
Status WriteStepsExport(ExportText format, const ResultWalk& results, const TextSink& out);

// Each search-space parameter's distribution, for tools that rebuild the space
// (Optuna): from the journal's config identity `search_space` ({"lr": {"type":
// "loguniform", "low": ..., "high": ...}, ...}) to
//   choice      {"type": "categorical", "choices": [...]}
//   uniform     {"type": "float", "low": l, "high": h, "log": false}
//   loguniform  {"type": "float", "low": l, "high": h, "log": true}
//   int         {"type": "int", "low": a, "high": b, "step": s}
//   constant    {"type": "constant", "value": v}
// in the order given. An unknown type is kept as {"type": "<its name>"}.
Json ParamDistributions(const Json& search_space);

// `export --format optuna`: one JSON object a ten-line loader turns into an Optuna
// study (docs/config.md, "Loading results into Optuna"):
//   {"study_name", "direction": "maximize"|"minimize", "metric", "distributions":
//    ParamDistributions minus constants, "constants": {name: value},
//    "trials": [{"number", "state": "COMPLETE"|"PRUNED"|"FAIL", "value",
//                "params" (only those the trial has), "intermediate_values":
//                {"<step>": value}, "distributions"? (a name that is two leaves of a
//                conditional search space: the trial's own leaf's, when not the first),
//                "user_attrs": {"gpusweep_state", "start_time_iso", "end_time_iso",
//                               "failure_reason"?, "repeat"?}}]}
// With several objectives (ctx.pareto multi): "directions" and "metrics" (lists, in
// objective order) instead of "direction" and "metric", and each trial's "values" (a
// list, null unless COMPLETE; a completed trial missing an objective is FAIL) instead
// of "value". With constraints, each trial's "system_attrs": {"constraints": [...]},
// Optuna's key: per bound `value - max` or `min - value` (feasible when all <= 0;
// null for a metric not reported).
// Trials that are running, interrupted or paused are left out (Optuna adds only
// finished trials). A categorical whose choices are not all null, bool, number or
// string (lists, maps) is written with each choice as its compact JSON text, and the
// trials' values the same way. intermediate_values: the metric by step over the
// trial's last attempt. `results` may hold any trials' lines.
// Under ctx.cv the Optuna trials are configurations (gpusweep/cv.h), not folds: number
// = the configuration, state its state, value its mean (COMPLETE only),
// intermediate_values the folds' mean at each step every fold that has not failed
// reported, and user_attrs also "cv_folds", "cv_std", "fold_values" (each fold's
// objective, null without one), "fold_states" and "fold_trials" ([first, last]).
std::string ExportOptuna(const std::vector<TrialRecord>& trials,
                         const std::vector<IntermediateResult>& results,
                         const Json& search_space, const ReportContext& ctx);

// Flattens a params object depth-first in key order: nested objects become dotted
// names, everything else (lists included) is a leaf. An empty nested object is kept as
// a leaf. {"net":{"bn":true,"act":["relu"]},"lr":0.1} →
// [("net.bn", true), ("net.act", ["relu"]), ("lr", 0.1)]. A non-object gives [].
std::vector<std::pair<std::string, Json>> FlattenParams(const Json& params);

// Live progress of a run. done = completed + failed (finished for good); queued = total
// - done - running (interrupted trials are queued again).
struct Progress {
  int done = 0, running = 0, queued = 0, failed = 0, interrupted = 0;
  std::optional<double> best;       // best objective so far
  std::optional<int> best_trial;    // its trial number
  std::optional<int> best_configuration;  // with cv: best is this configuration's mean
  std::string best_stage;  // NAS (ctx.nas): best is FindNasResult's, this its NasResultStage
  // Several objectives (ctx.pareto multi): the feasible Pareto front's size, said
  // instead of a best value (the first objective's best is no better than the others').
  std::optional<int> pareto_front;
  double elapsed_seconds = 0;
  std::optional<double> eta_seconds;  // nullopt until a trial has finished
};

// The TTY status line, e.g. "fmnist-cnn  done 5/16  running 2  queued 9  failed 1
// best val_acc=0.8712 (#3)  elapsed 2m10s  ETA 4m00s" ("failed"/"interrupted" only when
// non-zero, "best -" / "ETA -" when unknown), cut with "…" to ctx.width. No newline.
// A NAS experiment says "result" for "best": "result val_acc=0.71 (#47, confirm of ...)";
// one of several objectives "Pareto front 3" instead; one constrained objective the best
// feasible trial's value.
std::string FormatProgressLine(const Progress& p, const ReportContext& ctx);

// Progress from the journal's records. ETA = (sum over running trials of the time each
// still needs at the mean finished duration + queued × mean) / max(1, concurrency);
// 0 when nothing remains. elapsed = ctx.now - started_at (Unix seconds).
Progress ComputeProgress(const std::vector<TrialRecord>& trials, const ReportContext& ctx,
                         int concurrency, double started_at);

// FormatDuration and SignalName live in gpusweep/trial.h (the run loop uses them too).

}  // namespace gpusweep
