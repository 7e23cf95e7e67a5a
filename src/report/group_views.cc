// `best` and `status --group` over trials that ran the same params (repeats, seeds).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "gpusweep/experiment_files.h"
#include "gpusweep/report.h"
#include "gpusweep/objective.h"
#include "report/groups.h"
#include "report/status_header.h"
#include "report/table.h"

namespace gpusweep {
namespace {

using report::Align;

std::string TrialList(const std::vector<const TrialRecord*>& trials) {
  std::vector<std::string> numbers;
  for (const TrialRecord* t : trials) numbers.push_back("#" + std::to_string(t->number));
  return fmt::format("{}", fmt::join(numbers, " "));
}

std::string IgnoredText(const GroupingOptions& grouping, const std::vector<TrialRecord>& trials) {
  std::vector<std::string> present;
  for (const std::string& name : grouping.ignored)
    for (const TrialRecord& t : trials)
      if (t.params.is_object() && t.params.contains(name)) {
        present.push_back(name);
        break;
      }
  return present.empty() ? "the repeat index"
                         : fmt::format("the repeat index and {}", fmt::join(present, ", "));
}

}  // namespace

namespace report {

std::vector<TrialRecord> GroupKeys(const std::vector<ParamGroup>& groups) {
  std::vector<TrialRecord> keys;
  for (const ParamGroup& group : groups) {
    TrialRecord key;
    key.params = group.params;
    keys.push_back(std::move(key));
  }
  return keys;
}

void AppendGroupTable(std::string& out, const std::vector<ParamGroup>& groups,
                      const ReportContext& ctx, size_t shown) {
  AppendGroupTable(out, groups, ctx, shown, ParamText(GroupKeys(groups)));
}

void AppendGroupTable(std::string& out, const std::vector<ParamGroup>& groups,
                      const ReportContext& ctx, size_t shown, const ParamText& params) {
  Table table({{"RANK", Align::kRight},
               {"RUNS", Align::kRight},
               {"MEAN ± STD (N)", Align::kRight},
               {"MIN", Align::kRight, /*drop_order=*/2},
               {"MAX", Align::kRight, /*drop_order=*/2},
               {"TRIALS", Align::kLeft, /*drop_order=*/1},
               {"PARAMS", Align::kLeft, 0, Overflow::kWrap}});
  for (size_t i = 0; i < std::min(shown, groups.size()); ++i) {
    const ParamGroup& group = groups[i];
    table.AddRow({{std::to_string(i + 1)},
                  {std::to_string(group.trials.size())},
                  {MeanText(group)},
                  {ObjectiveText(group.min)},
                  {ObjectiveText(group.max)},
                  {TrialList(group.trials)},
                  {params.Varying(group.params)}});
  }
  AppendTable(out, table, ctx.width, ctx.color);
}

std::string IgnoredParamsText(const GroupingOptions& grouping,
                              const std::vector<TrialRecord>& trials) {
  return IgnoredText(grouping, trials);
}

std::string BestGroupText(const std::vector<ParamGroup>& groups, const MetricSpec& metric) {
  const ParamGroup& best = groups.front();
  return fmt::format("{}={} ({}), mean of trials {} with the same params", metric.name,
                     MeanText(best), ModeName(metric.mode),
                     TrialList(best.trials));
}

std::optional<std::string> FormatBestGroup(const std::vector<TrialRecord>& trials,
                                           const ReportContext& ctx,
                                           const GroupingOptions& grouping) {
  const std::vector<ParamGroup> groups = GroupTrials(trials, ctx.metric, grouping.ignored);
  if (groups.empty() || !RanksByGroup(groups, ctx)) return std::nullopt;
  return FormatBestOfGroups(groups.front(), groups.size(), IgnoredText(grouping, trials), ctx);
}

std::string FormatBestOfGroups(const ParamGroup& best, size_t group_count,
                               const std::string& ignored_text, const ReportContext& ctx) {
  const TrialRecord* best_run = *std::min_element(  // the first of the best
      best.completed.begin(), best.completed.end(),
      [&](const TrialRecord* a, const TrialRecord* b) {
        return RanksBefore(ctx.metric.mode, a->objective, b->objective);
      });
  std::string out = fmt::format(
      "Best params of {} ({} group{} of trials with the same params, ignoring {})\n",
      ctx.experiment_name, group_count, group_count == 1 ? "" : "s", ignored_text);
  out += fmt::format("Objective  {} = {} ({}), mean ± std over completed runs\n", ctx.metric.name,
                     MeanText(best), ModeName(ctx.metric.mode));
  std::vector<std::string> runs;
  for (const TrialRecord* t : best.trials)
    runs.push_back(fmt::format("#{} {}", t->number,
                               t->objective && t->state == TrialState::kCompleted
                                   ? FormatNumber(*t->objective)
                                   : std::string(ToString(t->state))));
  out += fmt::format("Runs       {}\n", fmt::join(runs, ", "));
  out += "Params\n";
  out += ParamLines(best.params);
  out += fmt::format("Trial dir  {} (its best run, #{}; `gpusweep best --single` ranks "
                     "single runs)\n",
                     ExperimentFiles{ctx.experiment_dir}.trial_dir(best_run->number).string(),
                     best_run->number);
  return out;
}

}  // namespace report

std::string FormatGroups(const std::vector<TrialRecord>& trials, const ReportContext& ctx,
                         const GroupingOptions& grouping) {
  const std::vector<report::ParamGroup> groups =
      report::GroupTrials(trials, ctx.metric, grouping.ignored);
  std::string out;
  report::AppendStatusHeader(out, trials, ctx, report::ParamText(trials), grouping);
  report::AppendHeaderLine(out, "Groups",
                           fmt::format("{} group{} of trials with the same params, ignoring {}; "
                                       "ranked by mean, groups with fewer completed runs last",
                                       groups.size(), groups.size() == 1 ? "" : "s",
                                       IgnoredText(grouping, trials)),
                           ctx);
  out += '\n';
  report::AppendGroupTable(out, groups, ctx, groups.size());
  return out;
}

}  // namespace gpusweep
