// An experiment written through the real journal API and experiment.json in a temp dir,
// then read back through the view: what both front ends see.
#include "view/experiment_view.h"

#include <gtest/gtest.h>

#include "common/temp_dir_for_tests.h"
#include "gpusweep/experiment_files.h"
#include "run/experiment_meta.h"

namespace gpusweep {
namespace {

using test_support::TempDir;

// <tmp>/exp with `n` trials: 0..n-2 completed (objective 0.1 * k, two "acc" reports),
// the last one running with two reports of its current attempt 2 and one of attempt 1.
class WrittenExperiment {
 public:
  WrittenExperiment(const std::filesystem::path& parent, int n, Json identity = Json::object(),
                    int folds = 0)
      : files_{parent / "exp"} {
    std::filesystem::create_directories(files_.dir);
    ExperimentMeta meta;
    meta.name = "exp";
    meta.metric = {"acc", Mode::kMax};
    meta.total_trials = n + 1;
    meta.scheduler = SchedulerSummary{"asha", "epoch", 9};
    meta.cv.folds = folds;
    EXPECT_TRUE(WriteExperimentMeta(files_.dir, meta));
    auto journal = OpenJournal(files_.journal(), JournalAccess::kReadWrite);
    EXPECT_TRUE(journal) << journal.error().message;
    journal_ = std::move(*journal);
    EXPECT_TRUE(journal_->CreateExperiment(
        {"exp", "/nowhere/sweep.yaml", "name: exp\n", std::move(identity), 1.7e9}));
    for (int k = 0; k + 1 < n; ++k) Completed(k);
    if (n > 0) Running(n - 1);
  }

  void Completed(int k) {
    TrialRecord trial = Started(k, 1);
    std::vector<IntermediateResult> results{Report(k, 1, 0, 0.05 * k), Report(k, 1, 1, 0.1 * k)};
    trial.state = TrialState::kCompleted;
    trial.end_time = 1.7e9 + k + 2;
    trial.exit_code = 0;
    trial.objective = 0.1 * k;
    EXPECT_TRUE(journal_->FinishTrial(trial, results));
  }

  void Running(int k) {
    Started(k, 2);
    EXPECT_TRUE(journal_->AppendResults(
        {Report(k, 1, 5, 0.99), Report(k, 2, 0, 0.3), Report(k, 2, 1, 0.4),
         IntermediateResult{k, 2, 2, 1.7e9, Json{{"loss", 1.0}, {"step", 2}}}}));
  }

  const ExperimentFiles& files() const { return files_; }
  Journal& journal() { return *journal_; }

 private:
  TrialRecord Started(int k, int attempt) {
    TrialRecord trial;
    trial.number = k;
    trial.attempt = attempt;
    trial.params = {{"lr", 0.01 * (k + 1)}};
    trial.start_time = 1.7e9 + k;
    trial.state = TrialState::kRunning;
    EXPECT_TRUE(journal_->UpsertTrial(trial));
    return trial;
  }
  static IntermediateResult Report(int k, int attempt, int step, double acc) {
    return {k, attempt, step, 1.7e9 + k + step, Json{{"acc", acc}, {"step", step}}};
  }

  ExperimentFiles files_;
  std::unique_ptr<Journal> journal_;
};

ExperimentView MustOpen(const std::filesystem::path& dir) {
  auto view = ExperimentView::Open(dir);
  EXPECT_TRUE(view) << view.error().message;
  if (!view) std::abort();
  return std::move(*view);
}

TEST(ExperimentFilesTest, NamesEveryFileOfTheLayout) {
  const ExperimentFiles files{"/x/runs/exp"};
  EXPECT_EQ(files.journal(), "/x/runs/exp/gpusweep.db");
  EXPECT_EQ(files.lock(), "/x/runs/exp/gpusweep.lock");
  EXPECT_EQ(files.meta(), "/x/runs/exp/experiment.json");
  EXPECT_EQ(files.trials_dir(), "/x/runs/exp/trials");
  EXPECT_EQ(files.trial_dir(7), "/x/runs/exp/trials/0007");
  const TrialFiles trial = files.trial(7);
  EXPECT_EQ(trial.params(), "/x/runs/exp/trials/0007/params.json");
  EXPECT_EQ(trial.output_log(), "/x/runs/exp/trials/0007/output.log");
  EXPECT_EQ(trial.metrics(), "/x/runs/exp/trials/0007/metrics.jsonl");
  EXPECT_EQ(trial.verdicts(), "/x/runs/exp/trials/0007/verdicts.jsonl");
  EXPECT_EQ(trial.job_script(), "/x/runs/exp/trials/0007/gpusweep-job.sh");
  EXPECT_EQ(trial.exit_record("42"), "/x/runs/exp/trials/0007/gpusweep-exit.42");
  EXPECT_EQ(TrialFiles::KeptOutputLog("attempt1"), "output.attempt1.log");
  EXPECT_EQ(TrialFiles::KeptMetrics("unrecorded"), "metrics.unrecorded.jsonl");
  EXPECT_EQ(ExperimentFiles::Default("/w", "exp").dir, "/w/runs/exp");
}

TEST(ExperimentViewTest, OpensWhatTheRunWroteAndGivesItsRecordedConfig) {
  TempDir tmp;
  WrittenExperiment written(tmp.path(), 3, Json{{"search_space", {{"lr", {{"type", "float"}}}}}});
  EXPECT_TRUE(HoldsExperiment(written.files().dir));
  EXPECT_FALSE(HoldsExperiment(tmp.path()));
  ExperimentView view = MustOpen(written.files().dir);
  EXPECT_EQ(view.dir(), written.files().dir);
  EXPECT_EQ(view.meta().name, "exp");
  EXPECT_EQ(view.meta().total_trials, 4);
  ASSERT_TRUE(view.recorded());
  EXPECT_EQ(view.recorded()->config_yaml, "name: exp\n");
  EXPECT_EQ(view.recorded()->config_path, "/nowhere/sweep.yaml");
  EXPECT_EQ(view.search_space_json(), (Json{{"lr", {{"type", "float"}}}}));
  EXPECT_TRUE(view.search_space().params.empty());  // its YAML does not parse as a config
  EXPECT_FALSE(view.is_nas());
  auto nas = view.nas_config();
  ASSERT_TRUE(nas) << nas.error().message;
  EXPECT_FALSE(*nas);
  EXPECT_EQ(view.resource(), "epoch");
  EXPECT_FALSE(view.run_alive());

  const ReportContext context = view.report_context();
  EXPECT_EQ(context.experiment_name, "exp");
  EXPECT_EQ(context.experiment_dir, written.files().dir);
  EXPECT_EQ(context.metric.name, "acc");
  EXPECT_EQ(context.total_trials, 4);
  ASSERT_TRUE(context.scheduler);
  EXPECT_EQ(context.scheduler->type, "asha");
  EXPECT_FALSE(context.nas);
}

TEST(ExperimentViewTest, ReadsTrialsResultsAndEventsFromTheJournal) {
  TempDir tmp;
  WrittenExperiment written(tmp.path(), 3);
  ExperimentView view = MustOpen(written.files().dir);
  auto trials = view.Trials();
  ASSERT_TRUE(trials) << trials.error().message;
  ASSERT_EQ(trials->size(), 3u);
  EXPECT_EQ((*trials)[1].state, TrialState::kCompleted);
  EXPECT_DOUBLE_EQ(*(*trials)[1].objective, 0.1);
  EXPECT_EQ((*trials)[2].state, TrialState::kRunning);

  auto one = view.Trial(1);
  ASSERT_TRUE(one && *one);
  EXPECT_EQ((*one)->number, 1);
  auto none = view.Trial(3);  // planned, not started
  ASSERT_TRUE(none);
  EXPECT_FALSE(*none);

  auto results = view.Results(1);
  ASSERT_TRUE(results);
  ASSERT_EQ(results->size(), 2u);
  EXPECT_EQ((*results)[1].step, 1);
  auto all = view.Results(*trials);
  ASSERT_TRUE(all);
  EXPECT_EQ(all->size(), 2u + 2u + 4u);

  auto points = view.ObjectivePoints(0, 1000);
  ASSERT_TRUE(points);
  ASSERT_EQ(points->size(), all->size());
  EXPECT_FALSE(points->back().value);  // the report without "acc"

  ASSERT_TRUE(written.journal().AppendEvent(1.7e9, "gpu_pool", Json{{"run", 1}}));
  auto events = view.Events("gpu_pool");
  ASSERT_TRUE(events);
  ASSERT_EQ(events->size(), 1u);
  EXPECT_EQ((*events)[0]["run"], 1);
  auto decisions = view.SchedulerEvents(1);
  ASSERT_TRUE(decisions);
  EXPECT_TRUE(decisions->empty());
}

// What a writer commits after Open is seen by the next read, and DataVersion says so.
TEST(ExperimentViewTest, SeesWhatARunCommitsAfterItOpened) {
  TempDir tmp;
  WrittenExperiment written(tmp.path(), 2);
  ExperimentView view = MustOpen(written.files().dir);
  auto before = view.DataVersion();
  ASSERT_TRUE(before);
  written.Completed(2);
  auto after = view.DataVersion();
  ASSERT_TRUE(after);
  EXPECT_NE(*before, *after);
  auto trials = view.Trials();
  ASSERT_TRUE(trials);
  EXPECT_EQ(trials->size(), 3u);
}

// A running trial shows the last value its current attempt reported, with that report's
// step and values: attempt 1's later step 5 and the report without "acc" are skipped.
TEST(ExperimentViewTest, RunningTrialsGetTheirLastReportedObjective) {
  TempDir tmp;
  WrittenExperiment written(tmp.path(), 3);
  ExperimentView view = MustOpen(written.files().dir);
  auto trials = view.Trials();
  ASSERT_TRUE(trials);
  auto steps = view.FillRunningObjectives(*trials);
  ASSERT_TRUE(steps) << steps.error().message;
  EXPECT_EQ(*steps, (std::map<int, std::int64_t>{{2, 1}}));
  ASSERT_TRUE((*trials)[2].objective);
  EXPECT_DOUBLE_EQ(*(*trials)[2].objective, 0.4);
  EXPECT_EQ((*trials)[2].last_metrics, (Json{{"acc", 0.4}, {"step", 1}}));
  EXPECT_DOUBLE_EQ(*(*trials)[1].objective, 0.1);  // completed: as recorded
}

TEST(ExperimentViewTest, FoldSiblingsAreTheConfigurationsRecordedFolds) {
  TempDir tmp;
  WrittenExperiment written(tmp.path(), 5, Json::object(), /*folds=*/2);  // 0..3 done, 4 running
  ExperimentView view = MustOpen(written.files().dir);
  auto siblings = view.FoldSiblings(3);
  ASSERT_TRUE(siblings);
  ASSERT_EQ(siblings->size(), 2u);
  EXPECT_EQ((*siblings)[0].number, 2);
  EXPECT_EQ((*siblings)[1].number, 3);
  auto lone = view.FoldSiblings(4);  // fold 1 of configuration 2 has not started
  ASSERT_TRUE(lone);
  ASSERT_EQ(lone->size(), 1u);
  EXPECT_EQ((*lone)[0].number, 4);

  TempDir plain_tmp;
  WrittenExperiment plain(plain_tmp.path(), 2);
  ExperimentView plain_view = MustOpen(plain.files().dir);
  auto no_cv = plain_view.FoldSiblings(1);
  ASSERT_TRUE(no_cv);
  EXPECT_TRUE(no_cv->empty());
}

// A NAS section that no longer reads is an error for the tournament view, not a
// silently empty one.
TEST(ExperimentViewTest, ANasSectionThatDoesNotReadIsAnError) {
  TempDir tmp;
  WrittenExperiment written(tmp.path(), 1, Json{{"nas", "not a nas section"}});
  ExperimentView view = MustOpen(written.files().dir);
  EXPECT_TRUE(view.is_nas());
  EXPECT_TRUE(view.report_context().nas);
  EXPECT_FALSE(view.nas_config());
  EXPECT_FALSE(view.Nas({}));
}

TEST(ExperimentViewTest, SaysWhatIsMissing) {
  TempDir tmp;
  auto no_meta = ExperimentView::Open(tmp.path());
  ASSERT_FALSE(no_meta);
  EXPECT_EQ(no_meta.error().code, ErrorCode::kNotFound);

  ExperimentMeta meta;
  meta.name = "bare";
  ASSERT_TRUE(WriteExperimentMeta(tmp.path(), meta));
  auto no_journal = ExperimentView::Open(tmp.path());
  ASSERT_FALSE(no_journal);
  EXPECT_NE(no_journal.error().message.find(ExperimentFiles{tmp.path()}.journal().string()),
            std::string::npos)
      << no_journal.error().message;
  EXPECT_FALSE(std::filesystem::exists(ExperimentFiles{tmp.path()}.journal()));  // read-only
}

TEST(ExperimentViewTest, RunAliveWhileTheLockIsHeld) {
  TempDir tmp;
  WrittenExperiment written(tmp.path(), 1);
  ExperimentView view = MustOpen(written.files().dir);
  {
    auto lock = ExperimentLock::Acquire(written.files().dir);
    ASSERT_TRUE(lock) << lock.error().message;
    EXPECT_EQ(lock->path(), written.files().lock());
    EXPECT_TRUE(view.run_alive());
  }
  EXPECT_FALSE(view.run_alive());
}

}  // namespace
}  // namespace gpusweep
