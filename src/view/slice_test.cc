// ExperimentView::Slice (status and best read by queries, issue 25) against the reports
// made from every trial, as they were before: the same text on small experiments with
// repeats and seeds, ties, NaN, constants, failed and running trials, in both modes, and
// on the plain sweep the previous release journaled (tests/data/journal_fixtures).
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <limits>

#include <gtest/gtest.h>

#include "common/temp_dir_for_tests.h"
#include "gpusweep/experiment_files.h"
#include "report/pareto_views.h"
#include "run/experiment_meta.h"
#include "view/experiment_view.h"

namespace gpusweep {
namespace {

using test_support::TempDir;

// <tmp>/exp: trials over lr (some repeated under two seeds), a constant epochs param,
// a tie, a NaN objective, a failed and a running trial (which reported acc so far).
// With `scheduled`, an ASHA experiment (resource epoch, max 9) whose extra trials were
// pruned at a reported epoch (on two GPUs), at a budget without one, at a budget with a
// non-number epoch, past the maximum, or paused.
std::filesystem::path WriteExperiment(const std::filesystem::path& parent, Mode mode,
                                      bool scheduled = false) {
  const ExperimentFiles files{parent / "exp"};
  std::filesystem::create_directories(files.dir);
  ExperimentMeta meta;
  meta.name = "exp";
  meta.metric = {"acc", mode};
  meta.total_trials = scheduled ? 20 : 14;
  if (scheduled) meta.scheduler = SchedulerSummary{"asha", "epoch", 9};
  EXPECT_TRUE(WriteExperimentMeta(files.dir, meta));
  auto journal = OpenJournal(files.journal(), JournalAccess::kReadWrite);
  EXPECT_TRUE(journal);
  EXPECT_TRUE((*journal)->CreateExperiment({"exp", "/nowhere/sweep.yaml", "name: exp\n", Json::object(), 1.7e9}));
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const std::vector<std::pair<double, std::optional<double>>> runs{
      {0.1, 0.5}, {0.2, 0.7}, {0.1, 0.6}, {0.3, 0.7}, {0.4, nan}, {0.2, 0.9},
      {0.5, std::nullopt}, {0.6, 0.2}, {0.3, 0.7}, {0.7, 0.8}};
  for (int k = 0; k < static_cast<int>(runs.size()) + 2; ++k) {
    TrialRecord t;
    t.number = k;
    const double lr = k < static_cast<int>(runs.size()) ? runs[k].first : 0.8;
    t.params = Json{{"lr", lr}, {"seed", k % 2}, {"epochs", 3}};
    t.start_time = 1.7e9 + k;
    t.state = TrialState::kRunning;
    EXPECT_TRUE((*journal)->UpsertTrial(t));
    if (k == static_cast<int>(runs.size()) + 1) {  // running, reported 0.95 at step 4
      EXPECT_TRUE((*journal)->AppendResults({{k, 1, 4, 1.7e9 + k, Json{{"acc", 0.95}, {"step", 4}}}}));
      continue;
    }
    t.end_time = t.start_time + 2;
    if (k == static_cast<int>(runs.size()) || !runs[k].second) {
      t.state = TrialState::kFailed;
      t.exit_code = 1;
      t.failure_reason = "exit code 1";
    } else {
      t.state = TrialState::kCompleted;
      t.exit_code = 0;
      t.objective = runs[k].second;
    }
    EXPECT_TRUE((*journal)->FinishTrial(t, {}));
  }
  if (!scheduled) return files.dir;
  struct Stopped {
    TrialState state;
    Json metrics;
    std::optional<double> budget;
    std::vector<int> gpus;
  };
  const std::vector<Stopped> stopped{
      {TrialState::kPruned, Json{{"acc", 0.4}, {"epoch", 3}}, 3.0, {0, 1}},
      {TrialState::kPruned, Json{{"acc", 0.3}}, 1.0, {}},
      {TrialState::kPruned, Json{{"acc", 0.35}, {"epoch", true}}, 3.0, {}},
      {TrialState::kPruned, Json{{"acc", 0.45}, {"epoch", 12}}, std::nullopt, {}},
      {TrialState::kPaused, Json{{"acc", 0.5}, {"epoch", 1}}, 1.0, {}}};
  for (std::size_t i = 0; i < stopped.size(); ++i) {
    TrialRecord t;
    t.number = 12 + static_cast<int>(i);
    t.params = Json{{"lr", 0.9 + 0.01 * static_cast<double>(i)}, {"seed", 0}, {"epochs", 3}};
    t.start_time = 1.7e9 + t.number;
    t.state = TrialState::kRunning;
    t.budget = stopped[i].budget;
    t.gpus = stopped[i].gpus;
    EXPECT_TRUE((*journal)->UpsertTrial(t));
    t.state = stopped[i].state;
    t.end_time = t.start_time + 1;
    t.exit_code = 0;
    t.objective = stopped[i].metrics["acc"].get<double>();
    t.last_metrics = stopped[i].metrics;
    EXPECT_TRUE((*journal)->FinishTrial(t, {}));
  }
  return files.dir;
}

ReportContext Context(const ExperimentView& view) {
  ReportContext ctx = view.report_context();
  ctx.now = 1.7e9 + 100;
  ctx.width = 0;
  return ctx;
}

// status with `options` from every trial (the old path) and from a slice.
void ExpectSameStatus(ExperimentView& view, StatusOptions options, const TrialQuery& query) {
  const ReportContext ctx = Context(view);
  auto trials = view.Trials();
  ASSERT_TRUE(trials);
  auto steps = view.FillRunningObjectives(*trials);
  ASSERT_TRUE(steps);
  options.running_steps = *steps;
  const std::string expected = FormatStatus(*trials, ctx, options);
  auto read = view.Slice(query, {"seed"});
  ASSERT_TRUE(read) << read.error().message;
  options.running_steps = read->running_steps;
  EXPECT_EQ(FormatStatus(read->slice, ctx, options), expected);
}

void ExpectSameBest(ExperimentView& view, const std::vector<std::string>& ignored, bool single) {
  const ReportContext ctx = Context(view);
  auto trials = view.Trials();
  ASSERT_TRUE(trials);
  auto read = view.Slice(std::nullopt, ignored);
  ASSERT_TRUE(read);
  const GroupingOptions grouping{ignored, single};
  EXPECT_EQ(FormatBest(read->slice, ctx, grouping), FormatBest(*trials, ctx, grouping));
  EXPECT_EQ(FormatNoBest(read->slice, ctx), FormatNoBest(*trials, ctx));
}

// The run's summary from every trial and from a SummarySlice of as many rows.
void ExpectSameSummary(ExperimentView& view) {
  const ReportContext ctx = Context(view);
  auto trials = view.Trials();
  ASSERT_TRUE(trials);
  for (int limit : {1, 2, 3, 10}) {
    auto read = view.SummarySlice(limit);
    ASSERT_TRUE(read) << read.error().message;
    EXPECT_EQ(FormatSummary(read->slice, ctx, limit), FormatSummary(*trials, ctx, limit)) << limit;
  }
}

void ExpectSameReports(ExperimentView& view) {
  ExpectSameSummary(view);
  const Mode mode = view.meta().metric.mode;
  ExpectSameStatus(view, {}, {TrialQuery::Order::kNumber, mode, std::nullopt, false, 0});
  for (int top : {1, 3, 20}) {
    StatusOptions options;
    options.sort = StatusSort::kObjective;
    options.top = top;
    ExpectSameStatus(view, options, {TrialQuery::Order::kObjective, mode, std::nullopt, false, top});
  }
  StatusOptions failed;
  failed.state = TrialState::kFailed;
  ExpectSameStatus(view, failed, {TrialQuery::Order::kNumber, mode, TrialState::kFailed, false, 0});
  for (bool single : {false, true}) {
    ExpectSameBest(view, {"seed"}, single);
    ExpectSameBest(view, {}, single);
  }
}

TEST(SliceTest, StatusAndBestFromQueriesPrintWhatEveryTrialPrints) {
  for (Mode mode : {Mode::kMax, Mode::kMin}) {
    TempDir tmp;
    auto view = ExperimentView::Open(WriteExperiment(tmp.path(), mode));
    ASSERT_TRUE(view) << view.error().message;
    ASSERT_TRUE(view->Sliceable());
    ExpectSameReports(*view);
    // The constant epochs is found over every trial, not just the listed ones.
    auto read = view->Slice(TrialQuery{TrialQuery::Order::kObjective, mode, std::nullopt, false, 1},
                            {"seed"});
    ASSERT_TRUE(read);
    ASSERT_EQ(read->slice.constants.size(), 1u);
    EXPECT_EQ(read->slice.constants.front().first, "epochs");
  }
}

// A scheduler's reports differ by the Stopped line (an aggregate over the pruned trials)
// and the rows' resource column: sliced too (issue 25: an ASHA status of 100,000 trials
// read every one, 2 s and 167 MB).
TEST(SliceTest, AnAshaExperimentsReportsFromQueriesPrintWhatEveryTrialPrints) {
  for (Mode mode : {Mode::kMax, Mode::kMin}) {
    TempDir tmp;
    auto view = ExperimentView::Open(WriteExperiment(tmp.path(), mode, /*scheduled=*/true));
    ASSERT_TRUE(view) << view.error().message;
    ASSERT_TRUE(view->Sliceable());
    ExpectSameReports(*view);
    auto read = view->Slice(std::nullopt, {"seed"});
    ASSERT_TRUE(read);
    ASSERT_TRUE(read->slice.early_stopping);
    EXPECT_EQ(read->slice.early_stopping->pruned, 4);
    // 9-3 on two GPUs, 9-1 and 9-3 on CPU slots; the one past the maximum saved nothing.
    EXPECT_DOUBLE_EQ(read->slice.early_stopping->resource_saved, 6 + 8 + 6);
    EXPECT_DOUBLE_EQ(read->slice.early_stopping->gpu_resource_saved, 12);
    EXPECT_DOUBLE_EQ(read->slice.early_stopping->cpu_resource_saved, 14);
    const std::string status = FormatStatus(read->slice, Context(*view), {});
    EXPECT_NE(status.find("4 of 17 trials pruned early by asha; epoch not trained: 20 of 153"),
              std::string::npos)
        << status;
  }
}

TEST(SliceTest, ThePreviousReleasesAshaSweepReadsTheSame) {
  const char* data = std::getenv("GPUSWEEP_TEST_DATA");
  const std::filesystem::path fixture =
      std::filesystem::path(data != nullptr ? data : "tests/data") / "journal_fixtures" / "asha";
  TempDir tmp;
  std::filesystem::copy(fixture, tmp.path() / "asha", std::filesystem::copy_options::recursive);
  auto view = ExperimentView::Open(tmp.path() / "asha" / "runs" / "asha");
  ASSERT_TRUE(view) << view.error().message;
  ASSERT_TRUE(view->Sliceable());
  ExpectSameReports(*view);
}

TEST(SliceTest, ThePreviousReleasesSweepReadsTheSame) {
  const char* data = std::getenv("GPUSWEEP_TEST_DATA");
  const std::filesystem::path fixture =
      std::filesystem::path(data != nullptr ? data : "tests/data") / "journal_fixtures" / "sweep";
  TempDir tmp;  // a copy: opening a WAL journal read-only writes its -shm file beside it
  std::filesystem::copy(fixture, tmp.path() / "sweep", std::filesystem::copy_options::recursive);
  auto view = ExperimentView::Open(tmp.path() / "sweep" / "runs" / "sweep");
  ASSERT_TRUE(view) << view.error().message;
  ASSERT_TRUE(view->Sliceable());
  ExpectSameReports(*view);
}

// <tmp>/exp with several objectives (acc max, size min) and/or a constraint (lat <= 5):
// a front with a tie, dominated and infeasible trials, a trial missing size, a failed,
// a pruned and a running trial (which reported so far), and a constant param.
// With `scheduled`, multi-objective ASHA (resource step, max 4): the pruned trial
// reported step 1.
std::filesystem::path WriteParetoExperiment(const std::filesystem::path& parent, const Json& identity,
                                            bool scheduled = false) {
  const ExperimentFiles files{parent / "exp"};
  std::filesystem::create_directories(files.dir);
  ExperimentMeta meta;
  meta.name = "exp";
  meta.metric = {"acc", Mode::kMax};
  meta.total_trials = 12;
  if (scheduled) meta.scheduler = SchedulerSummary{"asha", "step", 4};
  EXPECT_TRUE(WriteExperimentMeta(files.dir, meta));
  auto journal = OpenJournal(files.journal(), JournalAccess::kReadWrite);
  EXPECT_TRUE(journal);
  EXPECT_TRUE((*journal)->CreateExperiment({"exp", "/nowhere/sweep.yaml", "name: exp\n", identity, 1.7e9}));
  const std::vector<Json> completed{
      {{"acc", 0.9}, {"size", 8}, {"lat", 4}},   {{"acc", 0.7}, {"size", 2}, {"lat", 1}},
      {{"acc", 0.8}, {"size", 9}, {"lat", 2}},   {{"acc", 0.9}, {"size", 8}, {"lat", 3}},
      {{"acc", 0.95}, {"size", 20}, {"lat", 9}}, {{"acc", 0.6}},
      {{"acc", 0.5}, {"size", 1}, {"lat", 6}},   {{"acc", 0.85}, {"size", 5}, {"lat", 5}}};
  for (int k = 0; k < 11; ++k) {
    TrialRecord t;
    t.number = k;
    t.params = Json{{"width", 8 * (k + 1)}, {"epochs", 3}};
    t.start_time = 1.7e9 + k;
    t.state = TrialState::kRunning;
    EXPECT_TRUE((*journal)->UpsertTrial(t));
    if (k == 10) {  // running, reported so far
      EXPECT_TRUE((*journal)->AppendResults(
          {{k, 1, 2, 1.7e9 + k, Json{{"acc", 0.99}, {"size", 1}, {"lat", 1}, {"step", 2}}}}));
      continue;
    }
    t.end_time = t.start_time + 2;
    if (k < static_cast<int>(completed.size())) {
      t.state = TrialState::kCompleted;
      t.exit_code = 0;
      t.last_metrics = completed[k];
      t.objective = completed[k]["acc"].get<double>();
    } else if (k == 8) {
      t.state = TrialState::kFailed;
      t.exit_code = 1;
      t.failure_reason = "exit code 1";
    } else {
      t.state = TrialState::kPruned;
      t.failure_reason = "stopped";
      t.last_metrics = Json{{"acc", 0.3}, {"size", 3}, {"lat", 1}, {"step", 1}};
    }
    EXPECT_TRUE((*journal)->FinishTrial(t, {}));
  }
  return files.dir;
}

// status from every trial (the table and the Pareto lines after it) and from a ParetoSlice.
void ExpectSameParetoStatus(ExperimentView& view, StatusOptions options, const TrialQuery& query) {
  const ReportContext ctx = Context(view);
  ASSERT_TRUE(ctx.pareto);
  auto trials = view.Trials();
  ASSERT_TRUE(trials);
  auto steps = view.FillRunningObjectives(*trials);
  ASSERT_TRUE(steps);
  options.running_steps = *steps;
  const std::string expected = FormatStatus(*trials, ctx, options) +
                               FormatParetoStatus(*trials, *ctx.pareto, ctx.hypervolume_reference);
  auto pareto = view.ParetoSlice(query, {"seed"});
  ASSERT_TRUE(pareto) << pareto.error().message;
  options.running_steps = pareto->read.running_steps;
  EXPECT_EQ(FormatStatus(pareto->read.slice, pareto->ranked, ctx, options) +
                FormatRankedParetoStatus(pareto->ranked, *ctx.pareto, ctx.hypervolume_reference),
            expected)
      << "limit " << query.limit;
}

TEST(SliceTest, ParetoStatusFromTheRankingRecordsPrintsWhatEveryTrialPrints) {
  const Json metrics = Json::array({Json{{"name", "acc"}, {"mode", "max"}}, Json{{"name", "size"}, {"mode", "min"}}});
  const Json constraints = Json::array({Json{{"metric", "lat"}, {"max", 5}}});
  for (const Json& identity : {Json{{"metrics", metrics}}, Json{{"metrics", metrics}, {"constraints", constraints}},
                               Json{{"constraints", constraints}}})
  for (const bool scheduled : {false, true}) {
    TempDir tmp;
    auto view = ExperimentView::Open(WriteParetoExperiment(tmp.path(), identity, scheduled));
    ASSERT_TRUE(view) << view.error().message;
    ASSERT_TRUE(view->SliceableByPareto()) << identity.dump();
    ASSERT_FALSE(view->Sliceable());
    ExpectSameParetoStatus(*view, {}, {TrialQuery::Order::kNumber, Mode::kMax, std::nullopt, false, 0});
    for (int top : {1, 3, 8, 9, 20}) {
      StatusOptions options;
      options.sort = StatusSort::kObjective;
      options.top = top;
      ExpectSameParetoStatus(*view, options, {TrialQuery::Order::kObjective, Mode::kMax, std::nullopt, false, top});
    }
    StatusOptions by_rank;
    by_rank.sort = StatusSort::kObjective;
    ExpectSameParetoStatus(*view, by_rank, {TrialQuery::Order::kObjective, Mode::kMax, std::nullopt, false, 0});
    for (TrialState state : {TrialState::kCompleted, TrialState::kFailed, TrialState::kRunning}) {
      StatusOptions options = by_rank;
      options.state = state;
      options.top = 2;
      ExpectSameParetoStatus(*view, options, {TrialQuery::Order::kObjective, Mode::kMax, state, false, 2});
      options.sort = StatusSort::kNumber;
      options.top = 0;
      ExpectSameParetoStatus(*view, options, {TrialQuery::Order::kNumber, Mode::kMax, state, false, 0});
    }
  }
}

// `show` and the dashboard read a trial's output through ReadLogTail: at most its last
// bytes, from a line start, whatever the file's size.
TEST(LogTailTest, ReadsAtMostTheLastBytesFromALineStart) {
  TempDir tmp;
  const std::filesystem::path log = tmp.path() / "output.log";
  {
    std::ofstream out(log);
    out << std::string(1 << 20, 'x');  // a 1 MiB line without a newline
  }
  EXPECT_EQ(ReadLogTail(log, kLogTailBytes), std::string(kLogTailBytes, 'x'));
  {
    std::ofstream out(log, std::ios::app);
    out << "\nlast line\n";
  }
  EXPECT_EQ(ReadLogTail(log, 14), "last line\n");
  // The window's one newline ends the long line: its end is shown, not nothing.
  EXPECT_EQ(ReadLogTail(log, 10), "last line\n");
  EXPECT_EQ(ReadLogTail(log, 9), "ast line\n");
  EXPECT_EQ(ReadLogTail(tmp.path() / "missing.log", 100), "");
  std::filesystem::create_symlink(log, tmp.path() / "link.log");
  EXPECT_EQ(ReadLogTail(tmp.path() / "link.log", 100), "");  // O_NOFOLLOW
}

}  // namespace
}  // namespace gpusweep
