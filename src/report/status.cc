// `gpusweep status`, `gpusweep best` and the end-of-run summary.
#include <algorithm>
#include <cassert>
#include <cctype>
#include <cmath>
#include <map>
#include <set>
#include <string>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "gpusweep/experiment_files.h"
#include "gpusweep/report.h"
#include "gpusweep/objective.h"
#include "report/param_text.h"
#include "report/pareto_views.h"
#include "report/cv_views.h"
#include "report/nas_result.h"
#include "report/status_header.h"
#include "report/table.h"
#include "report/text.h"

namespace gpusweep {
namespace {

using report::Align;

struct Counts {
  int completed = 0, running = 0, failed = 0, interrupted = 0, queued = 0, pruned = 0, paused = 0;
};

Counts CountStates(const std::vector<TrialRecord>& trials, int total) {
  Counts c;
  for (const TrialRecord& t : trials) {
    switch (t.state) {
      case TrialState::kCompleted: ++c.completed; break;
      case TrialState::kRunning: ++c.running; break;
      case TrialState::kFailed: ++c.failed; break;
      case TrialState::kInterrupted: ++c.interrupted; break;
      case TrialState::kPruned: ++c.pruned; break;
      case TrialState::kPaused: ++c.paused; break;
    }
  }
  c.queued = std::max(0, total - static_cast<int>(trials.size()));
  return c;
}

Counts FromTotals(const TrialCounts& t, int total) {
  Counts c;
  c.completed = t.completed;
  c.running = t.running;
  c.failed = t.failed;
  c.interrupted = t.interrupted;
  c.pruned = t.pruned;
  c.paused = t.paused;
  c.queued = std::max(0, total - t.recorded);
  return c;
}

std::string CountsText(const Counts& c, int total) {
  std::string text = fmt::format("{} planned: {} completed", total, c.completed);
  if (c.pruned > 0) text += fmt::format(", {} pruned", c.pruned);
  if (c.paused > 0) text += fmt::format(", {} paused", c.paused);
  return text + fmt::format(", {} running, {} failed, {} interrupted, {} queued", c.running,
                            c.failed, c.interrupted, c.queued);
}


// "val_acc=0.8712 (max) trial #3", or "-" when nothing is ranked.
std::string BestTrialText(const TrialRecord* best, const MetricSpec& metric) {
  if (best == nullptr) return "-";
  return fmt::format("{}={} ({}) trial #{}", metric.name, report::FormatNumber(*best->objective),
                     ModeName(metric.mode), best->number);
}

std::string BestText(const std::vector<TrialRecord>& trials, const MetricSpec& metric) {
  const auto ranked = RankTrials(trials, metric);
  return BestTrialText(ranked.empty() ? nullptr : ranked.front(), metric);
}

std::string DurationText(const TrialRecord& t, double now) {
  const auto seconds = report::TrialDuration(t, now);
  return seconds ? FormatDuration(*seconds) : "-";
}

// "EPOCH" for resource "epoch".
std::string ResourceHeader(const SchedulerSummary& scheduler) {
  std::string header = scheduler.resource;
  for (char& c : header) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return header;
}

// The trial's last reported resource value, "-" when it reported none.
std::optional<double> LastReported(const TrialRecord& t, const std::string& key) {
  const auto it = t.last_metrics.find(key);
  if (it == t.last_metrics.end() || !it->is_number()) return std::nullopt;
  return it->get<double>();
}

// An interrupted trial's objective is cleared (it runs again on resume), but its row
// shows how far it got: the last value it reported, next to the step in the resource
// column; no step without a value.
std::optional<double> InterruptedValue(const TrialRecord& t, const MetricSpec& metric) {
  if (t.state != TrialState::kInterrupted || t.objective) return std::nullopt;
  return LastReported(t, metric.name);
}

std::string ResourceText(const TrialRecord& t, const ReportContext& ctx) {
  const auto step = LastReported(t, ctx.scheduler->resource);
  if (!step) return "-";
  if (t.state == TrialState::kInterrupted && !t.objective && !InterruptedValue(t, ctx.metric))
    return "-";
  return report::FormatNumber(*step);
}

// The NOTE column's widest cell on a terminal; `show` has the whole reason. Piped
// (ctx.width <= 0), nothing is cut.
constexpr int kNoteWidth = 48;

// A running trial's value so far comes with the step it was reported at, so that a
// row never shows a value without saying how far the trial was; with a scheduler the
// resource column says it.
std::string RowObjective(const TrialRecord& t, const ReportContext& ctx,
                         const StatusOptions& options) {
  if (ctx.scheduler)
    if (const auto value = InterruptedValue(t, ctx.metric)) return report::FormatNumber(*value);
  if (t.state != TrialState::kRunning) return report::ObjectiveText(t.objective);
  const auto step = options.running_steps.find(t.number);
  if (!t.objective || step == options.running_steps.end()) return "-";
  if (ctx.scheduler) return report::ObjectiveText(t.objective);
  return fmt::format("{} (step {})", report::ObjectiveText(t.objective), step->second);
}

// Orders a param's values: numbers by value before everything else (missing last),
// then by JSON text.
bool ParamBefore(const TrialRecord& a, const TrialRecord& b, const std::string& name) {
  auto value_of = [&](const TrialRecord& t) -> std::optional<Json> {
    for (auto& [key, value] : FlattenParams(t.params))
      if (key == name) return value;
    return std::nullopt;
  };
  const std::optional<Json> x = value_of(a), y = value_of(b);
  if (!x || !y) return x.has_value() && !y.has_value();
  if (x->is_number() && y->is_number()) return x->get<double>() < y->get<double>();
  if (x->is_number() != y->is_number()) return x->is_number();
  return x->dump() < y->dump();
}

// Trial number -> its place in the Pareto order (report/pareto_views.h); empty
// without several objectives or constraints.
using ParetoPlaces = std::map<int, std::size_t>;

// `capped`: set when options.cap cut rows.
std::vector<const TrialRecord*> SelectRows(const std::vector<TrialRecord>& trials,
                                           const MetricSpec& metric, double now,
                                           const StatusOptions& options, bool& capped,
                                           const ParetoPlaces& pareto = {}) {
  std::vector<const TrialRecord*> rows;
  for (const TrialRecord& t : trials)
    if (!options.state || t.state == *options.state) rows.push_back(&t);
  std::stable_sort(rows.begin(), rows.end(),
                   [](const auto* a, const auto* b) { return a->number < b->number; });
  switch (options.sort) {
    case StatusSort::kNumber: break;
    case StatusSort::kObjective:
      if (!pareto.empty()) {  // by Pareto rank, then crowding; trials not ranked last
        auto place = [&](const TrialRecord* t) {
          const auto it = pareto.find(t->number);
          return it == pareto.end() ? pareto.size() : it->second;
        };
        std::stable_sort(rows.begin(), rows.end(),
                         [&](const auto* a, const auto* b) { return place(a) < place(b); });
        break;
      }
      std::stable_sort(rows.begin(), rows.end(), [&](const auto* a, const auto* b) {
        return RanksBefore(metric.mode, a->objective, b->objective);
      });
      break;
    case StatusSort::kDuration:
      std::stable_sort(rows.begin(), rows.end(), [now](const auto* a, const auto* b) {
        return report::TrialDuration(*a, now).value_or(-1) >
               report::TrialDuration(*b, now).value_or(-1);
      });
      break;
    case StatusSort::kParam:
      std::stable_sort(rows.begin(), rows.end(), [&](const auto* a, const auto* b) {
        return ParamBefore(*a, *b, options.sort_param);
      });
      break;
    case StatusSort::kMetric: {
      const auto value = [&](const TrialRecord* t) {
        return ReportedNumber(t->last_metrics, options.sort_metric.name);
      };
      std::stable_sort(rows.begin(), rows.end(), [&](const auto* a, const auto* b) {
        return RanksBefore(options.sort_metric.mode, value(a), value(b));
      });
      break;
    }
  }
  if (options.top > 0 && rows.size() > static_cast<size_t>(options.top))
    rows.resize(static_cast<size_t>(options.top));
  capped = options.top <= 0 && options.cap > 0 && rows.size() > static_cast<size_t>(options.cap);
  if (capped) {
    const auto cut = static_cast<std::ptrdiff_t>(rows.size()) - options.cap;
    if (options.sort == StatusSort::kNumber)
      rows.erase(rows.begin(), rows.begin() + cut);  // the latest stay
    else
      rows.resize(static_cast<size_t>(options.cap));
  }
  return rows;
}

// What "Showing" adds when options.cap cut the rows.
std::string CapNote(const StatusOptions& options) {
  const bool best = options.sort == StatusSort::kObjective || options.sort == StatusSort::kMetric;
  return "; " + CappedRowsNote(options.sort == StatusSort::kNumber ? "latest"
                               : best                              ? "best"
                                                                   : "first",
                               options.cap);
}

// The table of `status` rows (repeats, jobs: some trial, listed or not, has a repeat
// index, a cluster job id: the column is there).
// With several objectives or constraints, a row shows each objective and its Pareto
// rank instead of the one objective.
struct ParetoColumns {
  const Objective* objective = nullptr;
  std::map<int, const ParetoTrial*> ranked;  // by trial number
};

void AppendObjectiveCells(std::vector<report::Segment>& row, const TrialRecord& t,
                          const ReportContext& ctx, const StatusOptions& options,
                          const ParetoColumns& pareto) {
  if (pareto.objective == nullptr) {
    row.push_back({RowObjective(t, ctx, options)});
    return;
  }
  for (double value : pareto.objective->Values(t.last_metrics))
    row.push_back({std::isnan(value) ? std::string("-") : report::FormatNumber(value)});
  // Each constrained metric's value: how close the trial is to its bound.
  for (const std::string& name : ConstraintOnlyMetrics(*pareto.objective)) {
    const std::optional<double> value = ReportedNumber(t.last_metrics, name);
    row.push_back({value ? report::FormatNumber(*value) : std::string("-")});
  }
  const auto it = pareto.ranked.find(t.number);
  row.push_back({it == pareto.ranked.end() ? std::string("-") : ParetoRankText(*it->second)});
}

void AppendStatusRows(std::string& out, const std::vector<const TrialRecord*>& rows,
                      const ReportContext& ctx, const StatusOptions& options,
                      const report::ParamText& params, bool repeats, bool jobs,
                      const ParetoColumns& pareto = {}) {
  // With a scheduler, how far each trial got (its last reported resource) tells why
  // it stopped where it did.
  std::vector<report::Column> columns{{"TRIAL", Align::kRight},
                                      {"STATE"},
                                      {"GPUS", Align::kLeft, /*drop_order=*/2},
                                      {"DURATION", Align::kRight, /*drop_order=*/1}};
  if (repeats) columns.push_back({"REPEAT", Align::kRight});
  // Trials run as cluster jobs: the job id is what `squeue`/`sacct` and the cluster's
  // staff know them by. Their GPUs are SLURM's choice, so only the count is shown.
  if (jobs) columns.push_back({"JOB", Align::kRight, /*drop_order=*/2});
  if (ctx.scheduler) columns.push_back({ResourceHeader(*ctx.scheduler), Align::kRight});
  if (pareto.objective == nullptr) {
    columns.push_back({"OBJECTIVE", Align::kRight});
  } else {
    for (const MetricSpec& m : pareto.objective->metrics()) columns.push_back({m.name, Align::kRight});
    for (const std::string& name : ConstraintOnlyMetrics(*pareto.objective))
      columns.push_back({name, Align::kRight});
    columns.push_back({"PARETO", Align::kLeft});
  }
  const bool any_note = std::any_of(rows.begin(), rows.end(),
                                    [](const TrialRecord* t) { return !report::NoteText(*t).empty(); });
  if (any_note) columns.push_back({"NOTE", Align::kLeft, /*drop_order=*/3});
  columns.push_back({"PARAMS", Align::kLeft, 0, report::Overflow::kWrap});
  report::Table table(std::move(columns));
  for (const TrialRecord* t : rows) {
    std::vector<report::Segment> row{{std::to_string(t->number)},
                                     {std::string(ToString(t->state)), report::StateColor(t->state)},
                                     {t->job_id.empty() ? report::GpusText(t->gpus)
                                                        : std::to_string(t->gpus.size())},
                                     {DurationText(*t, ctx.now)}};
    if (repeats) row.push_back({std::to_string(t->repeat)});
    if (jobs) row.push_back({t->job_id.empty() ? "-" : t->job_id});
    if (ctx.scheduler) row.push_back({ResourceText(*t, ctx)});
    AppendObjectiveCells(row, *t, ctx, options, pareto);
    if (any_note)
      row.push_back({report::Elide(report::NoteText(*t), ctx.width > 0 ? kNoteWidth : 0)});
    row.push_back({params.Varying(t->params)});
    table.AddRow(std::move(row));
  }
  report::AppendTable(out, table, ctx.width, ctx.color);
}

std::filesystem::path TrialDir(const ReportContext& ctx, int number) {
  return ExperimentFiles{ctx.experiment_dir}.trial_dir(number);
}

// `best`'s answer for one trial, `ranked` trials being ranked.
std::string BestSingleText(const TrialRecord& best, size_t ranked, const ReportContext& ctx) {
  std::string out = fmt::format("Best trial #{} of {} ({} completed)\n", best.number,
                                ctx.experiment_name, ranked);
  out += fmt::format("Objective  {} = {} ({})\n", ctx.metric.name,
                     report::FormatNumber(*best.objective), ModeName(ctx.metric.mode));
  out += "Params\n";
  out += report::ParamLines(best.params);
  out += fmt::format("Trial dir  {}\n", TrialDir(ctx, best.number).string());
  return out;
}

std::string NoBestText(const Counts& c, const ReportContext& ctx) {
  if (ctx.cv.enabled())
    return fmt::format("No configuration of {} has completed its {} folds with {} yet (fold "
                       "trials: {} failed, {} pruned, {} running, {} queued).\n",
                       ctx.experiment_name, ctx.cv.folds, ctx.metric.name, c.failed, c.pruned,
                       c.running, c.queued);
  return fmt::format("No completed trial with {} in {} ({} failed, {} pruned, {} running, {} "
                     "queued).\n",
                     ctx.metric.name, ctx.experiment_name, c.failed, c.pruned, c.running,
                     c.queued);
}

}  // namespace

namespace report {

void AppendHeaderLine(std::string& out, std::string_view label, const std::string& value,
                      const ReportContext& ctx) {
  constexpr int kLabelWidth = 11;
  const int value_width = ctx.width > 0 ? std::max(1, ctx.width - kLabelWidth) : 0;
  std::string_view prefix = label;
  for (const std::string& line : WrapWords(value, value_width, ", ")) {
    AppendLine(out, fmt::format("{:<{}}{}", prefix, kLabelWidth, line), ctx.width, ctx.color);
    prefix = "";
  }
}

void AppendStatusHeader(std::string& out, const std::vector<TrialRecord>& trials,
                        const ReportContext& ctx, const ParamText& params,
                        const GroupingOptions& grouping) {
  const Counts counts = CountStates(trials, ctx.total_trials);
  AppendHeaderLine(out, "Experiment", ctx.experiment_name, ctx);
  AppendHeaderLine(out, "Directory", ctx.experiment_dir.string(), ctx);
  AppendHeaderLine(out, "Trials", CountsText(counts, ctx.total_trials), ctx);
  const std::vector<ParamGroup> groups = GroupTrials(trials, ctx.metric, grouping.ignored);
  const bool by_group = RanksByGroup(groups, ctx);
  AppendHeaderLine(out, "Best",
                   ctx.cv.enabled() ? CvBestText(trials, ctx)
                   : ctx.nas        ? NasBestText(trials, ctx)
                   : ctx.pareto     ? ParetoBestHeader(trials, *ctx.pareto)
                   : by_group       ? BestGroupText(groups, ctx.metric)
                                    : BestText(trials, ctx.metric),
                   ctx);
  if (const std::string stopped = FormatEarlyStopping(trials, ctx); !stopped.empty())
    AppendHeaderLine(out, "Stopped", stopped, ctx);
  if (const std::string constants = params.Constants(); !constants.empty())
    AppendHeaderLine(out, "Constants", constants, ctx);
}

}  // namespace report

std::string CappedRowsNote(std::string_view which, int cap) {
  return fmt::format("the {} {}; `--all` lists every one, `--top N` the best N", which, cap);
}

std::string FormatStatus(const std::vector<TrialRecord>& trials, const ReportContext& ctx,
                         const StatusOptions& options) {
  if (ctx.cv.enabled()) return report::FormatCvStatus(trials, ctx, options);
  const report::ParamText params(trials);
  std::string out;
  report::AppendStatusHeader(out, trials, ctx, params);
  auto header = [&](std::string_view label, const std::string& value) {
    report::AppendHeaderLine(out, label, value, ctx);
  };
  // Several objectives or constraints: ranked once, for the rows and their order.
  std::vector<ParetoTrial> ranked;
  ParetoColumns pareto;
  ParetoPlaces places;
  if (ctx.pareto) {
    ranked = RankParetoTrials(trials, *ctx.pareto);
    pareto.objective = &*ctx.pareto;
    for (std::size_t i = 0; i < ranked.size(); ++i) {
      pareto.ranked[ranked[i].number] = &ranked[i];
      places[ranked[i].number] = i;
    }
  }
  bool capped = false;
  const std::vector<const TrialRecord*> rows =
      SelectRows(trials, ctx.metric, ctx.now, options, capped, places);
  if (rows.size() != trials.size()) {
    header("Showing", fmt::format("{} of {} recorded trials{}", rows.size(), trials.size(),
                                  capped ? CapNote(options) : ""));
  }
  out += '\n';
  const bool repeats = std::any_of(trials.begin(), trials.end(),
                                   [](const TrialRecord& t) { return t.repeat > 0; });
  const bool jobs = std::any_of(trials.begin(), trials.end(),
                                [](const TrialRecord& t) { return !t.job_id.empty(); });
  AppendStatusRows(out, rows, ctx, options, params, repeats, jobs, pareto);
  return out;
}

std::optional<std::string> FormatBest(const std::vector<TrialRecord>& trials,
                                      const ReportContext& ctx, const GroupingOptions& grouping) {
  if (ctx.cv.enabled() && !grouping.single) return report::FormatCvBest(trials, ctx);
  if (ctx.nas && !grouping.single)  // the search's result, whatever a search evaluation scored
    return report::FormatNasBest(trials, ctx);
  const auto ranked = RankTrials(trials, ctx.metric);
  if (ranked.empty()) return std::nullopt;
  if (!grouping.single)
    if (auto grouped = report::FormatBestGroup(trials, ctx, grouping)) return grouped;
  return BestSingleText(*ranked.front(), ranked.size(), ctx);
}

std::string FormatNoBest(const std::vector<TrialRecord>& trials, const ReportContext& ctx) {
  // Called when FormatBest found nothing: in a NAS search with completed evaluations,
  // that means no block is confirmed yet.
  if (ctx.nas && !RankTrials(trials, ctx.metric).empty()) return report::FormatNasNoBest(trials, ctx);
  return NoBestText(CountStates(trials, ctx.total_trials), ctx);
}
namespace {

// The commands name the directory: with --dir or output_dir the experiment is not where
// `gpusweep best` looks by default. Never elided, so it can be copied.
void AppendSummaryFooter(std::string& out, const ReportContext& ctx, bool ranked) {
  const std::string dir = ctx.experiment_dir.string();
  out += fmt::format("Results in {}\n", dir);
  if (!ranked)  // `best` would only say there is none: point at why instead
    out += fmt::format("See why with `{1} status {0}` and `{1} show <trial> {0}`.\n", dir,
                       ctx.program);
  else
    out += fmt::format("See `{1} best {0}`, `{1} show <trial> {0}`, `{1} export {0}`.\n", dir,
                       ctx.program);
}

std::string TopGroupsLine(size_t shown, size_t groups, const MetricSpec& metric) {
  return fmt::format("Top {} of {} groups of trials with the same params (repeats, seeds) by "
                     "mean {} ({}):",
                     shown, groups, metric.name, ModeName(metric.mode));
}

// The summary's table of single trials: rank, trial, objective, duration, params.
void AppendTopTrials(std::string& out, const std::vector<const TrialRecord*>& top,
                     const ReportContext& ctx, const report::ParamText& params) {
  std::vector<report::Column> columns{{"RANK", Align::kRight}, {"TRIAL", Align::kRight}};
  if (ctx.nas) columns.push_back({"STAGE"});
  columns.push_back({"OBJECTIVE", Align::kRight});
  columns.push_back({"DURATION", Align::kRight, /*drop_order=*/1});
  columns.push_back({"PARAMS", Align::kLeft, 0, report::Overflow::kWrap});
  report::Table table(std::move(columns));
  for (size_t i = 0; i < top.size(); ++i) {
    const TrialRecord& t = *top[i];
    std::vector<report::Segment> row{{std::to_string(i + 1)}, {std::to_string(t.number)}};
    if (ctx.nas) row.push_back({report::NasStageLabel(t.params)});
    row.push_back({report::ObjectiveText(t.objective)});
    row.push_back({DurationText(t, ctx.now)});
    row.push_back({params.Varying(t.params)});
    table.AddRow(std::move(row));
  }
  report::AppendTable(out, table, ctx.width, ctx.color);
}

// Several objectives or constraints: the top `limit` trials in Pareto order (front
// first, then crowding), each objective and its rank, then status's lines about the front.
void AppendParetoSummary(std::string& out, const std::vector<TrialRecord>& trials,
                         const ReportContext& ctx, int limit) {
  const Objective& objective = *ctx.pareto;
  const std::vector<ParetoTrial> ranked = RankParetoTrials(trials, objective);
  const size_t shown = limit <= 0 ? ranked.size() : std::min(ranked.size(), static_cast<size_t>(limit));
  std::vector<std::string> directions;
  for (const MetricSpec& m : objective.metrics())
    directions.push_back(fmt::format("{} {}", m.name, ModeName(m.mode)));
  report::AppendLine(out, fmt::format("Top {} of {} completed trials in Pareto order ({}{}):", shown,
                                      ranked.size(), fmt::join(directions, ", "),
                                      objective.constrained() ? "; feasible first" : ""),
                     ctx.width, ctx.color);
  const report::ParamText params(trials);
  if (const std::string constants = params.Constants(); !constants.empty())
    report::AppendLine(out, "Same in every trial: " + constants, ctx.width, ctx.color);
  std::vector<report::Column> columns{{"RANK", Align::kRight}, {"TRIAL", Align::kRight}};
  for (const MetricSpec& m : objective.metrics()) columns.push_back({m.name, Align::kRight});
  columns.push_back({"PARETO", Align::kLeft});
  columns.push_back({"DURATION", Align::kRight, /*drop_order=*/1});
  columns.push_back({"PARAMS", Align::kLeft, 0, report::Overflow::kWrap});
  report::Table table(std::move(columns));
  for (size_t i = 0; i < shown; ++i) {
    const ParetoTrial& t = ranked[i];
    std::vector<report::Segment> row{{std::to_string(i + 1)}, {std::to_string(t.number)}};
    for (double value : t.values)
      row.push_back({std::isnan(value) ? std::string("-") : report::FormatNumber(value)});
    row.push_back({ParetoRankText(t)});
    row.push_back({DurationText(*t.trial, ctx.now)});
    row.push_back({params.Varying(t.trial->params)});
    table.AddRow(std::move(row));
  }
  report::AppendTable(out, table, ctx.width, ctx.color);
  out += FormatRankedParetoStatus(ranked, objective, ctx.hypervolume_reference);
}

}  // namespace

std::string FormatSummary(const std::vector<TrialRecord>& trials, const ReportContext& ctx,
                          int limit) {
  const Counts counts = CountStates(trials, ctx.total_trials);
  const auto ranked = RankTrials(trials, ctx.metric);
  const size_t shown =
      limit <= 0 ? ranked.size() : std::min(ranked.size(), static_cast<size_t>(limit));

  std::string out;
  report::AppendLine(out, fmt::format("Experiment {}: {}", ctx.experiment_name,
                                      CountsText(counts, ctx.total_trials)),
                     ctx.width, ctx.color);
  if (const std::string stopped = FormatEarlyStopping(trials, ctx); !stopped.empty())
    report::AppendLine(out, "Early stopping: " + stopped, ctx.width, ctx.color);
  if (ctx.cv.enabled()) {
    out += report::FormatCvRanking(trials, ctx, limit);
  } else if (shown == 0) {
    report::AppendLine(out, fmt::format("No trial completed with {}.", ctx.metric.name),
                       ctx.width, ctx.color);
  } else if (ctx.pareto && !ctx.nas) {
    AppendParetoSummary(out, trials, ctx, limit);
  } else if (const auto groups = report::GroupTrials(trials, ctx.metric, GroupingOptions{}.ignored);
             report::RanksByGroup(groups, ctx)) {
    // Repeats: which params are best on average, as `best` answers, not the luckiest run.
    const size_t shown_groups =
        limit <= 0 ? groups.size() : std::min(groups.size(), static_cast<size_t>(limit));
    report::AppendLine(out, TopGroupsLine(shown_groups, groups.size(), ctx.metric), ctx.width,
                       ctx.color);
    report::AppendGroupTable(out, groups, ctx, shown_groups);
  } else {
    // A NAS search's result is its retrain (or latest confirm), whatever a search
    // evaluation on less data scored; the table ranks every stage, each row says which.
    if (ctx.nas)
      report::AppendLine(out, "Result: " + report::NasBestText(trials, ctx), ctx.width, ctx.color);
    report::AppendLine(out, fmt::format("Top {} of {} {}by {} ({}):", shown, ranked.size(),
                                        ctx.nas ? "evaluations of every stage " : "",
                                        ctx.metric.name, ModeName(ctx.metric.mode)),
                       ctx.width, ctx.color);
    const report::ParamText params(trials);
    if (const std::string constants = params.Constants(); !constants.empty())
      report::AppendLine(out, "Same in every trial: " + constants, ctx.width, ctx.color);
    AppendTopTrials(out, {ranked.begin(), ranked.begin() + static_cast<std::ptrdiff_t>(shown)}, ctx,
                    params);
  }
  AppendSummaryFooter(out, ctx, shown > 0);
  return out;
}

}  // namespace gpusweep

namespace gpusweep {
namespace {

// The slice's best group as GroupTrials makes it (mean, std, its best run) from its own
// trials: pointers into slice.best_group. nullopt when the slice ranks single trials.
std::optional<report::ParamGroup> SliceBestGroup(const TrialSlice& slice, const MetricSpec& metric,
                                                 const std::vector<std::string>& ignored) {
  if (!slice.group_repeats || slice.best_group.empty()) return std::nullopt;
  std::vector<report::ParamGroup> groups = report::GroupTrials(slice.best_group, metric, ignored);
  assert(groups.size() == 1 && groups.front().mean);
  return std::move(groups.front());
}

void AssertSliceable(const ReportContext& ctx) {
  assert(!ctx.cv.enabled() && !ctx.nas && !(ctx.scheduler && ctx.scheduler->type == "pbt") &&
         "TrialSlice: status reads every trial");
  (void)ctx;
}

// The Stopped line of a slice (with a scheduler), "" without one or nothing pruned.
std::string SliceEarlyStopping(const TrialSlice& slice, const ReportContext& ctx) {
  assert(slice.early_stopping.has_value() == ctx.scheduler.has_value());
  if (!slice.early_stopping) return "";
  return FormatEarlyStopping(*slice.early_stopping, slice.counts.recorded, ctx);
}

}  // namespace

namespace {

// The status of a slice; `ranked` (with ctx.pareto): every completed trial ranked, for
// the Best line and the rows' objectives and PARETO column.
std::string FormatSliceStatus(const TrialSlice& slice, const std::vector<ParetoTrial>* ranked,
                              const ReportContext& ctx, const StatusOptions& options) {
  AssertSliceable(ctx);
  assert(ctx.pareto.has_value() == (ranked != nullptr));
  const report::ParamText params(slice.rows, slice.constants);
  std::string out;
  report::AppendHeaderLine(out, "Experiment", ctx.experiment_name, ctx);
  report::AppendHeaderLine(out, "Directory", ctx.experiment_dir.string(), ctx);
  report::AppendHeaderLine(
      out, "Trials", CountsText(FromTotals(slice.counts, ctx.total_trials), ctx.total_trials), ctx);
  // Grouped as the slice was read (its best group by `status --ignore`'s names).
  const auto group = SliceBestGroup(slice, ctx.metric, options.ignored);
  report::AppendHeaderLine(out, "Best",
                           ranked  ? RankedParetoBestHeader(*ranked, *ctx.pareto)
                           : group ? report::BestGroupText({*group}, ctx.metric)
                                   : BestTrialText(slice.best ? &*slice.best : nullptr, ctx.metric),
                           ctx);
  if (const std::string stopped = SliceEarlyStopping(slice, ctx); !stopped.empty())
    report::AppendHeaderLine(out, "Stopped", stopped, ctx);
  if (const std::string constants = params.Constants(); !constants.empty())
    report::AppendHeaderLine(out, "Constants", constants, ctx);
  if (slice.rows.size() != static_cast<size_t>(slice.counts.recorded))
    report::AppendHeaderLine(
        out, "Showing",
        fmt::format("{} of {} recorded trials{}", slice.rows.size(), slice.counts.recorded,
                    slice.rows_note.empty() ? "" : "; " + slice.rows_note),
        ctx);
  out += '\n';
  std::vector<const TrialRecord*> rows;
  for (const TrialRecord& t : slice.rows) rows.push_back(&t);
  ParetoColumns pareto;
  if (ranked) {  // the listed rows' places only, not a map of every trial
    pareto.objective = &*ctx.pareto;
    std::set<int> listed;
    for (const TrialRecord& t : slice.rows) listed.insert(t.number);
    for (const ParetoTrial& t : *ranked)
      if (listed.count(t.number) > 0) pareto.ranked[t.number] = &t;
  }
  AppendStatusRows(out, rows, ctx, options, params, slice.counts.repeats, slice.counts.jobs, pareto);
  return out;
}

}  // namespace

std::string FormatStatus(const TrialSlice& slice, const ReportContext& ctx,
                         const StatusOptions& options) {
  return FormatSliceStatus(slice, nullptr, ctx, options);
}

std::string FormatStatus(const TrialSlice& slice, const std::vector<ParetoTrial>& ranked,
                         const ReportContext& ctx, const StatusOptions& options) {
  return FormatSliceStatus(slice, &ranked, ctx, options);
}

std::optional<std::string> FormatBest(const TrialSlice& slice, const ReportContext& ctx,
                                      const GroupingOptions& grouping) {
  AssertSliceable(ctx);
  if (!slice.best) return std::nullopt;
  if (!grouping.single)
    if (const auto group = SliceBestGroup(slice, ctx.metric, grouping.ignored))
      return report::FormatBestOfGroups(*group, static_cast<size_t>(slice.groups),
                                        report::IgnoredParamsText(grouping, slice.best_group), ctx);
  return BestSingleText(*slice.best, static_cast<size_t>(slice.counts.ranked), ctx);
}

std::string FormatNoBest(const TrialSlice& slice, const ReportContext& ctx) {
  AssertSliceable(ctx);
  return NoBestText(FromTotals(slice.counts, ctx.total_trials), ctx);
}

std::string FormatSummary(const TrialSlice& slice, const ReportContext& ctx, int limit) {
  AssertSliceable(ctx);
  assert(limit > 0);
  const size_t ranked = static_cast<size_t>(slice.counts.ranked);
  const size_t shown = std::min(ranked, static_cast<size_t>(limit));
  std::string out;
  report::AppendLine(out, fmt::format("Experiment {}: {}", ctx.experiment_name,
                                      CountsText(FromTotals(slice.counts, ctx.total_trials),
                                                 ctx.total_trials)),
                     ctx.width, ctx.color);
  if (const std::string stopped = SliceEarlyStopping(slice, ctx); !stopped.empty())
    report::AppendLine(out, "Early stopping: " + stopped, ctx.width, ctx.color);
  if (shown == 0) {
    report::AppendLine(out, fmt::format("No trial completed with {}.", ctx.metric.name),
                       ctx.width, ctx.color);
  } else if (SliceBestGroup(slice, ctx.metric, GroupingOptions{}.ignored)) {
    // Each listed group from its own trials, as GroupTrials makes it over every trial.
    std::vector<report::ParamGroup> groups;
    for (const std::vector<TrialRecord>& members : slice.top_groups) {
      std::vector<report::ParamGroup> one = report::GroupTrials(members, ctx.metric, GroupingOptions{}.ignored);
      assert(one.size() == 1);
      groups.push_back(std::move(one.front()));
    }
    const size_t shown_groups = std::min(groups.size(), static_cast<size_t>(limit));
    report::AppendLine(out, TopGroupsLine(shown_groups, static_cast<size_t>(slice.groups), ctx.metric),
                       ctx.width, ctx.color);
    report::AppendGroupTable(out, groups, ctx, shown_groups,
                             report::ParamText(report::GroupKeys(groups), slice.constants));
  } else {
    report::AppendLine(out, fmt::format("Top {} of {} by {} ({}):", shown, ranked, ctx.metric.name,
                                        ModeName(ctx.metric.mode)),
                       ctx.width, ctx.color);
    const report::ParamText params(slice.rows, slice.constants);
    if (const std::string constants = params.Constants(); !constants.empty())
      report::AppendLine(out, "Same in every trial: " + constants, ctx.width, ctx.color);
    std::vector<const TrialRecord*> top;
    for (const TrialRecord& t : slice.rows) top.push_back(&t);
    AppendTopTrials(out, top, ctx, params);
  }
  AppendSummaryFooter(out, ctx, shown > 0);
  return out;
}

}  // namespace gpusweep
