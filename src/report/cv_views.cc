// `status`, `best` and the run summary of a cross-validated experiment (cv: {folds: k}):
// configurations with mean ± std, their folds under them.
#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "gpusweep/cv.h"
#include "gpusweep/experiment_files.h"
#include "gpusweep/objective.h"
#include "gpusweep/report.h"
#include "report/cv_views.h"
#include "report/pareto_views.h"
#include "report/status_header.h"
#include "report/table.h"

namespace gpusweep::report {
namespace {


std::string StateText(const CvConfiguration& c) {
  return c.queued ? "queued" : std::string(ToString(c.state));
}

// The configurations in the order status shows them (StatusOptions: sort, state, top).
std::vector<const CvConfiguration*> SelectConfigurations(const std::vector<CvConfiguration>& all,
                                                         const ReportContext& ctx,
                                                         const StatusOptions& options) {
  std::vector<const CvConfiguration*> rows;
  for (const CvConfiguration& c : all)
    if (!options.state || c.state == *options.state) rows.push_back(&c);
  if (options.sort == StatusSort::kObjective)
    std::stable_sort(rows.begin(), rows.end(), [&](const CvConfiguration* a, const CvConfiguration* b) {
      return RanksBefore(ctx.metric.mode, a->mean, b->mean);
    });
  if (options.top > 0 && rows.size() > static_cast<std::size_t>(options.top))
    rows.resize(static_cast<std::size_t>(options.top));
  return rows;
}

std::string FoldValueText(const TrialRecord* fold) {
  if (fold == nullptr) return "queued";
  if (fold->state == TrialState::kCompleted && fold->objective) return FormatNumber(*fold->objective);
  return std::string(ToString(fold->state));
}

std::string FoldCounts(const std::vector<CvConfiguration>& all, const CvConfig& cv) {
  int completed = 0, failed = 0, running = 0;
  for (const CvConfiguration& c : all) {
    if (c.state == TrialState::kCompleted) ++completed;
    else if (c.state == TrialState::kFailed) ++failed;
    else if (c.state == TrialState::kRunning) ++running;
  }
  return fmt::format("{}-fold cross-validation: {} configuration{} recorded, {} completed, {} "
                     "failed, {} running or queued; a configuration fails when more than {} of "
                     "its folds fail",
                     cv.folds, all.size(), all.size() == 1 ? "" : "s", completed, failed, running,
                     cv.allow_failed_folds);
}

}  // namespace

std::string CvBestText(const std::vector<TrialRecord>& trials, const ReportContext& ctx) {
  if (ctx.pareto)  // several objectives or constraints: the front of configurations
    return ParetoBestHeader(ConfigurationRecords(trials, ctx.cv), *ctx.pareto, "configuration");
  const std::vector<CvConfiguration> all = GroupFolds(trials, ctx.cv);
  const auto ranked = RankConfigurations(all, ctx.metric);
  if (ranked.empty()) return "-";
  const CvConfiguration& best = *ranked.front();
  return fmt::format("{} = {} ({}) configuration {}, mean over its folds", ctx.metric.name,
                     CvMeanText(best), ModeName(ctx.metric.mode), best.configuration);
}

std::string CvMeanText(const CvConfiguration& c) {
  if (!c.mean) return "-";
  return fmt::format("{} ± {} (n={})", FormatNumber(*c.mean), FormatNumber(c.stddev.value_or(0)),
                     c.values.size());
}

std::string FormatCvStatus(const std::vector<TrialRecord>& trials, const ReportContext& ctx,
                           const StatusOptions& options) {
  const std::vector<CvConfiguration> all = GroupFolds(trials, ctx.cv);
  const ParamText params(trials);
  std::string out;
  AppendStatusHeader(out, trials, ctx, params);
  AppendHeaderLine(out, "CV", FoldCounts(all, ctx.cv), ctx);
  const std::vector<const CvConfiguration*> rows = SelectConfigurations(all, ctx, options);
  if (rows.size() != all.size())
    AppendHeaderLine(out, "Showing",
                     fmt::format("{} of {} recorded configurations", rows.size(), all.size()), ctx);
  out += '\n';
  Table table({{"CONFIG", Align::kRight},
               {"FOLD", Align::kRight},
               {"TRIAL", Align::kRight},
               {"STATE"},
               {"GPUS", Align::kLeft, /*drop_order=*/2},
               {"OBJECTIVE", Align::kRight},
               {"NOTE", Align::kLeft, /*drop_order=*/1},
               {"PARAMS", Align::kLeft, 0, Overflow::kWrap}});
  for (const CvConfiguration* c : rows) {
    table.AddRow({{std::to_string(c->configuration)},
                  {"all"},
                  {""},
                  {StateText(*c), StateColor(c->state)},
                  {""},
                  {CvMeanText(*c)},
                  {Elide(c->failure_reason, 64)},
                  {params.Varying(c->params)}});
    for (std::size_t f = 0; f < c->folds.size(); ++f) {
      const TrialRecord* fold = c->folds[f];
      const int number = FoldTrialNumber(c->configuration, static_cast<int>(f), ctx.cv.folds);
      table.AddRow({{""},
                    {std::to_string(f)},
                    {std::to_string(number)},
                    {fold ? std::string(ToString(fold->state)) : "queued",
                     fold ? StateColor(fold->state) : Color::kNone},
                    {fold ? GpusText(fold->gpus) : ""},
                    {fold ? ObjectiveText(fold->objective) : "-"},
                    {fold ? Elide(NoteText(*fold), 40) : ""},
                    {""}});
    }
  }
  AppendTable(out, table, ctx.width, ctx.color);
  return out;
}

std::optional<std::string> FormatCvBest(const std::vector<TrialRecord>& trials,
                                        const ReportContext& ctx) {
  const std::vector<CvConfiguration> all = GroupFolds(trials, ctx.cv);
  const auto ranked = RankConfigurations(all, ctx.metric);
  if (ranked.empty()) return std::nullopt;
  const CvConfiguration& best = *ranked.front();
  std::string out = fmt::format("Best configuration {} of {} ({} of {} recorded configurations "
                                "completed, {}-fold cross-validation)\n",
                                best.configuration, ctx.experiment_name, ranked.size(), all.size(),
                                ctx.cv.folds);
  out += fmt::format("Objective  {} = {} ({}), mean ± std over its folds\n", ctx.metric.name,
                     CvMeanText(best), ModeName(ctx.metric.mode));
  std::vector<std::string> folds;
  for (std::size_t f = 0; f < best.folds.size(); ++f)
    folds.push_back(fmt::format("{}: {}", f, FoldValueText(best.folds[f])));
  out += fmt::format("Folds      {}\n", fmt::join(folds, ", "));
  out += "Params\n";
  out += ParamLines(best.params);
  const int first = FoldTrialNumber(best.configuration, 0, ctx.cv.folds);
  out += fmt::format("Trial dirs {} .. {} (trials {}..{}, one per fold)\n",
                     ExperimentFiles{ctx.experiment_dir}.trial_dir(first).string(),
                     TrialDirName(first + ctx.cv.folds - 1), first, first + ctx.cv.folds - 1);
  return out;
}

std::string FormatCvFold(const TrialRecord& trial, const std::vector<TrialRecord>& trials,
                         const ReportContext& ctx) {
  const FoldIndex index = FoldOf(trial.number, ctx.cv.folds);
  std::vector<TrialRecord> siblings{trial};
  for (const TrialRecord& t : trials)
    if (t.number >= 0 && t.number != trial.number &&
        FoldOf(t.number, ctx.cv.folds).configuration == index.configuration)
      siblings.push_back(t);
  const CvConfiguration c = GroupFolds(siblings, ctx.cv).front();
  const int first = FoldTrialNumber(index.configuration, 0, ctx.cv.folds);
  std::string out = fmt::format("{:<11}{} of {} (0..{}) of configuration {} (trials {}..{})\n",
                                "Fold", index.fold, ctx.cv.folds, ctx.cv.folds - 1,
                                index.configuration, first, first + ctx.cv.folds - 1);
  StyledLine line(fmt::format("{:<11}", "Config"));
  line.Add(StateText(c), StateColor(c.state));
  line.Add(fmt::format(", {} = {} over its folds{}", ctx.metric.name, CvMeanText(c),
                       c.failure_reason.empty() ? "" : "; " + c.failure_reason));
  AppendLine(out, line, /*width=*/0, ctx.color);
  out += fmt::format("Folds of configuration {}:\n", index.configuration);
  Table table({{"FOLD", Align::kRight},
               {"TRIAL", Align::kRight},
               {"STATE"},
               {"OBJECTIVE", Align::kRight},
               {"NOTE"}});
  for (std::size_t f = 0; f < c.folds.size(); ++f) {
    const TrialRecord* fold = c.folds[f];
    const int number = first + static_cast<int>(f);
    std::string note = fold ? Elide(NoteText(*fold), 60) : "";
    if (number == trial.number) note = note.empty() ? "<- this trial" : "<- this trial; " + note;
    table.AddRow({{std::to_string(f)},
                  {std::to_string(number)},
                  {fold ? std::string(ToString(fold->state)) : "queued",
                   fold ? StateColor(fold->state) : Color::kNone},
                  {fold ? ObjectiveText(fold->objective) : "-"},
                  {note}});
  }
  AppendTable(out, table, ctx.width, ctx.color);
  return out;
}

std::string FormatCvRanking(const std::vector<TrialRecord>& trials, const ReportContext& ctx,
                            int limit) {
  const std::vector<CvConfiguration> all = GroupFolds(trials, ctx.cv);
  const auto ranked = RankConfigurations(all, ctx.metric);
  const std::size_t shown =
      limit <= 0 ? ranked.size() : std::min(ranked.size(), static_cast<std::size_t>(limit));
  std::string out;
  if (shown == 0) {
    AppendLine(out, fmt::format("No configuration completed its {} folds with {}.", ctx.cv.folds,
                                ctx.metric.name),
               ctx.width, ctx.color);
    return out;
  }
  AppendLine(out, fmt::format("Top {} of {} configurations by the mean {} over {} folds ({}):",
                              shown, ranked.size(), ctx.metric.name, ctx.cv.folds,
                              ModeName(ctx.metric.mode)),
             ctx.width, ctx.color);
  const ParamText params(trials);
  Table table({{"RANK", Align::kRight},
               {"CONFIG", Align::kRight},
               {"MEAN ± STD (N)", Align::kRight},
               {"FOLD TRIALS", Align::kRight, /*drop_order=*/1},
               {"PARAMS"}});
  for (std::size_t i = 0; i < shown; ++i) {
    const CvConfiguration& c = *ranked[i];
    const int first = FoldTrialNumber(c.configuration, 0, ctx.cv.folds);
    table.AddRow({{std::to_string(i + 1)},
                  {std::to_string(c.configuration)},
                  {CvMeanText(c)},
                  {fmt::format("{}..{}", first, first + ctx.cv.folds - 1)},
                  {params.Varying(c.params)}});
  }
  AppendTable(out, table, ctx.width, ctx.color);
  return out;
}

}  // namespace gpusweep::report
