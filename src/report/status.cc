// `gpusweep status`, `gpusweep best` and the end-of-run summary.
#include <algorithm>
#include <cctype>
#include <string>

#include <fmt/format.h>

#include "gpusweep/report.h"
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

std::string CountsText(const Counts& c, int total) {
  std::string text = fmt::format("{} planned: {} completed", total, c.completed);
  if (c.pruned > 0) text += fmt::format(", {} pruned", c.pruned);
  if (c.paused > 0) text += fmt::format(", {} paused", c.paused);
  return text + fmt::format(", {} running, {} failed, {} interrupted, {} queued", c.running,
                            c.failed, c.interrupted, c.queued);
}

std::string_view ModeName(Mode mode) { return mode == Mode::kMax ? "max" : "min"; }

// "val_acc=0.8712 (max) trial #3", or "-" when nothing is ranked.
std::string BestText(const std::vector<TrialRecord>& trials, const MetricSpec& metric) {
  const auto ranked = RankTrials(trials, metric);
  if (ranked.empty()) return "-";
  return fmt::format("{}={} ({}) trial #{}", metric.name,
                     report::FormatNumber(*ranked.front()->objective), ModeName(metric.mode),
                     ranked.front()->number);
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
std::string ResourceText(const TrialRecord& t, const std::string& resource) {
  const auto it = t.last_metrics.find(resource);
  if (it == t.last_metrics.end() || !it->is_number()) return "-";
  return report::FormatNumber(it->get<double>());
}

std::filesystem::path TrialDir(const ReportContext& ctx, int number) {
  return ctx.experiment_dir / "trials" / TrialDirName(number);
}

}  // namespace

std::string FormatStatus(const std::vector<TrialRecord>& trials, const ReportContext& ctx) {
  const Counts counts = CountStates(trials, ctx.total_trials);
  std::string out;
  // "Label      value", the value wrapped under itself when the terminal is narrow.
  auto header = [&](std::string_view label, const std::string& value) {
    constexpr int kLabelWidth = 11;
    const int value_width = ctx.width > 0 ? std::max(1, ctx.width - kLabelWidth) : 0;
    std::string_view prefix = label;
    for (const std::string& line : report::WrapWords(value, value_width, ", ")) {
      report::AppendLine(out, fmt::format("{:<{}}{}", prefix, kLabelWidth, line), ctx.width,
                         ctx.color);
      prefix = "";
    }
  };
  header("Experiment", ctx.experiment_name);
  header("Directory", ctx.experiment_dir.string());
  header("Trials", CountsText(counts, ctx.total_trials));
  header("Best", BestText(trials, ctx.metric));
  if (const std::string stopped = FormatEarlyStopping(trials, ctx); !stopped.empty())
    header("Stopped", stopped);
  out += '\n';

  std::vector<const TrialRecord*> ordered;
  for (const TrialRecord& t : trials) ordered.push_back(&t);
  std::stable_sort(ordered.begin(), ordered.end(),
                   [](const auto* a, const auto* b) { return a->number < b->number; });

  // With a scheduler, how far each trial got (its last reported resource) tells why
  // it stopped where it did.
  std::vector<report::Column> columns{{"TRIAL", Align::kRight},
                                      {"STATE"},
                                      {"GPUS", Align::kLeft, /*drop_order=*/2},
                                      {"DURATION", Align::kRight, /*drop_order=*/1}};
  if (ctx.scheduler) columns.push_back({ResourceHeader(*ctx.scheduler), Align::kRight});
  columns.push_back({"OBJECTIVE", Align::kRight});
  columns.push_back({"PARAMS"});
  report::Table table(std::move(columns));
  for (const TrialRecord* t : ordered) {
    std::vector<report::Segment> row{{std::to_string(t->number)},
                                     {std::string(ToString(t->state)), report::StateColor(t->state)},
                                     {report::GpusText(t->gpus)},
                                     {DurationText(*t, ctx.now)}};
    if (ctx.scheduler) row.push_back({ResourceText(*t, ctx.scheduler->resource)});
    row.push_back({report::ObjectiveText(t->objective)});
    row.push_back({report::ParamsSummary(t->params)});
    table.AddRow(std::move(row));
  }
  report::AppendTable(out, table, ctx.width, ctx.color);
  return out;
}

std::optional<std::string> FormatBest(const std::vector<TrialRecord>& trials,
                                      const ReportContext& ctx) {
  const auto ranked = RankTrials(trials, ctx.metric);
  if (ranked.empty()) return std::nullopt;
  const TrialRecord& best = *ranked.front();

  std::string out = fmt::format("Best trial #{} of {} ({} completed)\n", best.number,
                                ctx.experiment_name, ranked.size());
  out += fmt::format("Objective  {} = {} ({})\n", ctx.metric.name,
                     report::FormatNumber(*best.objective), ModeName(ctx.metric.mode));
  out += "Params\n";
  for (const auto& [name, value] : best.params.items())
    out += fmt::format("  {} = {}\n", name, report::FormatValue(value, report::Precision::kFull));
  out += fmt::format("Trial dir  {}\n", TrialDir(ctx, best.number).string());
  return out;
}

std::string FormatNoBest(const std::vector<TrialRecord>& trials, const ReportContext& ctx) {
  const Counts c = CountStates(trials, ctx.total_trials);
  return fmt::format("No completed trial with {} in {} ({} failed, {} pruned, {} running, {} "
                     "queued).\n",
                     ctx.metric.name, ctx.experiment_name, c.failed, c.pruned, c.running,
                     c.queued);
}

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
  if (shown == 0) {
    report::AppendLine(out, fmt::format("No trial completed with {}.", ctx.metric.name),
                       ctx.width, ctx.color);
  } else {
    report::AppendLine(out, fmt::format("Top {} of {} by {} ({}):", shown, ranked.size(),
                                        ctx.metric.name, ModeName(ctx.metric.mode)),
                       ctx.width, ctx.color);
    report::Table table({{"RANK", Align::kRight},
                         {"TRIAL", Align::kRight},
                         {"OBJECTIVE", Align::kRight},
                         {"DURATION", Align::kRight, /*drop_order=*/1},
                         {"PARAMS"}});
    for (size_t i = 0; i < shown; ++i) {
      const TrialRecord& t = *ranked[i];
      table.AddRow({{std::to_string(i + 1)},
                    {std::to_string(t.number)},
                    {report::ObjectiveText(t.objective)},
                    {DurationText(t, ctx.now)},
                    {report::ParamsSummary(t.params)}});
    }
    report::AppendTable(out, table, ctx.width, ctx.color);
  }
  // The commands name the directory: with --dir or output_dir the experiment is not
  // where `gpusweep best` looks by default. Never elided, so it can be copied.
  const std::string dir = ctx.experiment_dir.string();
  out += fmt::format("Results in {}\n", dir);
  if (shown == 0)  // `best` would only say there is none: point at why instead
    out += fmt::format("See why with `gpusweep status {0}` and `gpusweep show <trial> {0}`.\n",
                       dir);
  else
    out += fmt::format("See `gpusweep best {0}`, `gpusweep show <trial> {0}`, "
                       "`gpusweep export {0}`.\n", dir);
  return out;
}

}  // namespace gpusweep
