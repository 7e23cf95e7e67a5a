#include "gpusweep/journal.h"

#include <cmath>
#include <limits>

#include <gtest/gtest.h>

#include "journal/forwarding_journal.h"
#include "journal/sqlite.h"
#include "journal/test_util.h"

namespace gpusweep {
namespace {

using testing_util::ScratchDir;

// Every field compared one by one; params/last_metrics also as text, since key order
// is part of the contract.
void ExpectSameTrial(const TrialRecord& actual, const TrialRecord& expected) {
  EXPECT_EQ(actual.number, expected.number);
  EXPECT_EQ(actual.repeat, expected.repeat);
  EXPECT_EQ(actual.attempt, expected.attempt);
  EXPECT_EQ(actual.params.dump(), expected.params.dump());
  EXPECT_EQ(actual.state, expected.state);
  EXPECT_EQ(actual.gpus, expected.gpus);
  EXPECT_EQ(actual.start_time, expected.start_time);
  EXPECT_EQ(actual.end_time, expected.end_time);
  EXPECT_EQ(actual.pid, expected.pid);
  EXPECT_EQ(actual.pid_start_ticks, expected.pid_start_ticks);
  EXPECT_EQ(actual.exit_code, expected.exit_code);
  EXPECT_EQ(actual.term_signal, expected.term_signal);
  EXPECT_EQ(actual.failure_reason, expected.failure_reason);
  EXPECT_EQ(actual.objective, expected.objective);
  EXPECT_EQ(actual.last_metrics.dump(), expected.last_metrics.dump());
}

TrialRecord RunningTrial(int number) {
  TrialRecord trial;
  trial.number = number;
  trial.repeat = 1;
  trial.attempt = 1;
  // Keys deliberately not in alphabetical order; a list of maps nested inside.
  trial.params = Json::parse(R"({"z_lr": 0.001, "layers": [{"width": 64, "act": "relu"},
                                 {"width": 32, "act": "gelu"}], "a_opt": "adam"})");
  trial.state = TrialState::kRunning;
  trial.start_time = 1700000000.25;
  trial.pid = 4242;
  trial.pid_start_ticks = 123456;
  return trial;
}

IntermediateResult Result(int trial, int attempt, std::int64_t step, Json values) {
  return IntermediateResult{trial, attempt, step, 1700000100.5 + static_cast<double>(step),
                            std::move(values)};
}

class JournalTest : public ::testing::Test {
 protected:
  void SetUp() override { journal_ = Open(JournalAccess::kReadWrite); }

  std::unique_ptr<Journal> Open(JournalAccess access) {
    auto journal = OpenJournal(db_path_, access);
    EXPECT_TRUE(journal) << journal.error().message;
    return journal ? std::move(*journal) : nullptr;
  }

  TrialRecord MustLoadTrial(Journal& journal, int number) {
    auto trial = journal.LoadTrial(number);
    EXPECT_TRUE(trial) << trial.error().message;
    EXPECT_TRUE(trial && trial->has_value()) << "trial " << number << " missing";
    return trial && *trial ? **trial : TrialRecord{};
  }

  std::vector<IntermediateResult> MustLoadResults(Journal& journal, int trial) {
    auto results = journal.LoadResults(trial);
    EXPECT_TRUE(results) << results.error().message;
    return results ? *results : std::vector<IntermediateResult>{};
  }

  ScratchDir dir_;
  std::filesystem::path db_path_ = dir_.path() / kJournalFileName;
  std::unique_ptr<Journal> journal_;
};

TEST_F(JournalTest, TrialRoundTripsWithOptionalFieldsAbsent) {
  const TrialRecord trial = RunningTrial(3);
  ASSERT_TRUE(journal_->UpsertTrial(trial));
  const TrialRecord loaded = MustLoadTrial(*journal_, 3);
  ExpectSameTrial(loaded, trial);
  EXPECT_FALSE(loaded.objective.has_value());
  EXPECT_FALSE(loaded.exit_code.has_value());
  EXPECT_TRUE(loaded.gpus.empty());
}

TEST_F(JournalTest, TrialRoundTripsWithEveryFieldPresent) {
  TrialRecord trial = RunningTrial(0);
  trial.attempt = 3;
  trial.state = TrialState::kFailed;
  trial.gpus = {3, 1};
  trial.end_time = 1700000500.75;
  trial.pid_start_ticks = (std::uint64_t{1} << 40) + 7;
  trial.exit_code = 0;     // present and zero is not absent
  trial.term_signal = 9;
  trial.failure_reason = "killed by signal 9 (SIGKILL)";
  trial.objective = 0.0;   // present and zero is not NULL
  trial.last_metrics = Json::parse(R"({"val_acc": 0.0, "loss": 1.5, "epoch": 4})");
  ASSERT_TRUE(journal_->UpsertTrial(trial));
  ExpectSameTrial(MustLoadTrial(*journal_, 0), trial);
}

TEST_F(JournalTest, NanObjectiveIsStoredAsAbsent) {
  TrialRecord trial = RunningTrial(1);
  trial.objective = std::numeric_limits<double>::quiet_NaN();
  ASSERT_TRUE(journal_->UpsertTrial(trial));
  EXPECT_FALSE(MustLoadTrial(*journal_, 1).objective.has_value());
}

TEST_F(JournalTest, LoadTrialsIsOrderedByNumberAndMissingTrialIsNullopt) {
  for (int number : {5, 0, 2}) ASSERT_TRUE(journal_->UpsertTrial(RunningTrial(number)));
  auto trials = journal_->LoadTrials();
  ASSERT_TRUE(trials) << trials.error().message;
  ASSERT_EQ(trials->size(), 3u);
  EXPECT_EQ((*trials)[0].number, 0);
  EXPECT_EQ((*trials)[1].number, 2);
  EXPECT_EQ((*trials)[2].number, 5);
  auto missing = journal_->LoadTrial(1);
  ASSERT_TRUE(missing);
  EXPECT_FALSE(missing->has_value());
}

TEST_F(JournalTest, UpsertReplacesTrialAndKeepsOlderAttemptsResults) {
  ASSERT_TRUE(journal_->UpsertTrial(RunningTrial(4)));
  ASSERT_TRUE(journal_->AppendResults({Result(4, 1, 0, {{"loss", 2.0}})}));

  TrialRecord rerun = RunningTrial(4);
  rerun.attempt = 2;
  rerun.gpus = {0};
  rerun.pid = 5151;
  rerun.start_time = 1700001000;
  ASSERT_TRUE(journal_->UpsertTrial(rerun));

  auto trials = journal_->LoadTrials();
  ASSERT_TRUE(trials);
  ASSERT_EQ(trials->size(), 1u);
  ExpectSameTrial(trials->front(), rerun);
  const auto results = MustLoadResults(*journal_, 4);
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].attempt, 1);
}

TEST_F(JournalTest, FinishTrialRecordsEndStateAndResultsTogether) {
  const TrialRecord started = RunningTrial(2);
  ASSERT_TRUE(journal_->UpsertTrial(started));

  TrialRecord finished = started;
  finished.state = TrialState::kCompleted;
  finished.end_time = 1700000999.5;
  finished.exit_code = 0;
  finished.objective = 0.93;
  finished.last_metrics = {{"val_acc", 0.93}, {"epoch", 9}};
  finished.params = {{"ignored", true}};  // FinishTrial writes only the end state
  ASSERT_TRUE(journal_->FinishTrial(finished, {Result(2, 1, 8, {{"val_acc", 0.9}}),
                                               Result(2, 1, 9, {{"val_acc", 0.93}})}));

  TrialRecord expected = finished;
  expected.params = started.params;
  ExpectSameTrial(MustLoadTrial(*journal_, 2), expected);
  EXPECT_EQ(MustLoadResults(*journal_, 2).size(), 2u);
}

TEST_F(JournalTest, FinishTrialWritesNothingWhenAnyPartFails) {
  ASSERT_TRUE(journal_->UpsertTrial(RunningTrial(2)));
  {
    // Fault injection from a second connection: inserting a result with step 99 fails.
    auto raw = sqlite::Database::Open(db_path_, sqlite::OpenMode::kReadWriteCreate);
    ASSERT_TRUE(raw) << raw.error().message;
    ASSERT_TRUE(raw->Exec("CREATE TRIGGER fault BEFORE INSERT ON results WHEN NEW.step = 99 "
                          "BEGIN SELECT RAISE(ABORT, 'injected fault'); END",
                          "create trigger"));
  }
  TrialRecord finished = RunningTrial(2);
  finished.state = TrialState::kCompleted;
  finished.objective = 1.0;
  const Status status = journal_->FinishTrial(
      finished, {Result(2, 1, 1, {{"x", 1}}), Result(2, 1, 99, {{"x", 2}})});
  ASSERT_FALSE(status);
  EXPECT_EQ(status.error().code, ErrorCode::kJournal);
  EXPECT_NE(status.error().message.find("injected fault"), std::string::npos);

  // Neither the state change nor the first result is visible.
  const TrialRecord loaded = MustLoadTrial(*journal_, 2);
  EXPECT_EQ(loaded.state, TrialState::kRunning);
  EXPECT_FALSE(loaded.objective.has_value());
  EXPECT_TRUE(MustLoadResults(*journal_, 2).empty());
  // And the journal is usable afterwards (the transaction was rolled back, not left open).
  ASSERT_TRUE(journal_->FinishTrial(finished, {Result(2, 1, 1, {{"x", 1}})}));
  EXPECT_EQ(MustLoadTrial(*journal_, 2).state, TrialState::kCompleted);
}

TEST_F(JournalTest, FinishTrialOfUnknownTrialIsNotFoundAndWritesNoResults) {
  const Status status = journal_->FinishTrial(RunningTrial(8), {Result(8, 1, 0, {{"x", 1}})});
  ASSERT_FALSE(status);
  EXPECT_EQ(status.error().code, ErrorCode::kNotFound);
  // A one-entry batch speaks as the single call it is.
  EXPECT_NE(status.error().message.find("finish trial 8: trial 8 is not in the journal"),
            std::string::npos)
      << status.error().message;
  EXPECT_TRUE(MustLoadResults(*journal_, 8).empty());
}

// Counts the batches that reach the journal beneath it: every write goes through Apply.
class ApplyCounter final : public ForwardingJournal {
 public:
  using ForwardingJournal::ForwardingJournal;
  Status Apply(const std::vector<JournalWrite>& writes, Durability durability) override {
    batches.push_back(writes.size());
    return ForwardingJournal::Apply(writes, durability);
  }
  std::vector<std::size_t> batches;
};

TEST_F(JournalTest, SingleWritesAreOneEntryBatchesOfApply) {
  ApplyCounter counter(Open(JournalAccess::kReadWrite));
  ASSERT_TRUE(counter.UpsertTrial(RunningTrial(3)));
  TrialRecord done = RunningTrial(3);
  done.state = TrialState::kCompleted;
  done.objective = 0.5;
  ASSERT_TRUE(counter.FinishTrial(done, {Result(3, 1, 0, {{"x", 1}})}));
  ASSERT_TRUE(counter.AppendResults({Result(3, 1, 1, {{"x", 2}})}));
  ASSERT_TRUE(counter.AppendResults({}, {}));  // nothing to write: no batch at all
  ASSERT_TRUE(counter.AppendEvent(1700000000, "resumed", Json{{"by", "test"}}));
  EXPECT_EQ(counter.batches, (std::vector<std::size_t>{1, 1, 1, 1}));
  // And what they wrote is there, as the single calls always wrote it.
  EXPECT_EQ(MustLoadTrial(*journal_, 3).objective, 0.5);
  EXPECT_EQ(MustLoadResults(*journal_, 3).size(), 2u);
  auto events = journal_->LoadEvents("resumed");
  ASSERT_TRUE(events) << events.error().message;
  ASSERT_EQ(events->size(), 1u);
  EXPECT_EQ((*events)[0]["by"], "test");
}

TEST_F(JournalTest, ResultsAreOrderedByAttemptStepThenAppendOrder) {
  ASSERT_TRUE(journal_->AppendResults({
      Result(1, 2, 0, {{"tag", "a2s0"}}),
      Result(1, 1, 5, {{"tag", "a1s5"}}),
      Result(1, 1, 1, {{"tag", "a1s1-first"}}),
      Result(7, 1, 0, {{"tag", "other trial"}}),
  }));
  ASSERT_TRUE(journal_->AppendResults({Result(1, 1, 1, {{"tag", "a1s1-second"}, {"b", 1}, {"a", 2}})}));
  ASSERT_TRUE(journal_->AppendResults({}));

  const auto results = MustLoadResults(*journal_, 1);
  std::vector<std::string> tags;
  for (const auto& result : results) tags.push_back(result.values["tag"].get<std::string>());
  EXPECT_EQ(tags, (std::vector<std::string>{"a1s1-first", "a1s1-second", "a1s5", "a2s0"}));
  ASSERT_EQ(results.size(), 4u);
  EXPECT_EQ(results[1].values.dump(), R"({"tag":"a1s1-second","b":1,"a":2})");
  EXPECT_EQ(results[1].time, 1700000101.5);
  EXPECT_EQ(results[3].trial, 1);
  EXPECT_EQ(results[3].attempt, 2);
}

TEST_F(JournalTest, ExperimentRoundTripsAndCannotBeCreatedTwice) {
  auto none = journal_->LoadExperiment();
  ASSERT_TRUE(none);
  EXPECT_FALSE(none->has_value());

  ExperimentRecord experiment{"mnist-lr", "/home/u/mnist.yaml", "name: mnist-lr\n",
                              Json::parse(R"({"sampler": {"kind": "grid"}, "command": ["python"]})"),
                              1700000000.5};
  ASSERT_TRUE(journal_->CreateExperiment(experiment));
  const Status again = journal_->CreateExperiment(experiment);
  ASSERT_FALSE(again);
  EXPECT_EQ(again.error().code, ErrorCode::kJournal);
  EXPECT_NE(again.error().message.find("already holds experiment 'mnist-lr'"), std::string::npos)
      << again.error().message;

  auto loaded = journal_->LoadExperiment();
  ASSERT_TRUE(loaded && loaded->has_value());
  EXPECT_EQ((*loaded)->name, experiment.name);
  EXPECT_EQ((*loaded)->config_path, experiment.config_path);
  EXPECT_EQ((*loaded)->config_yaml, experiment.config_yaml);
  EXPECT_EQ((*loaded)->identity.dump(), experiment.identity.dump());
  EXPECT_EQ((*loaded)->created_time, experiment.created_time);
}

TEST_F(JournalTest, DataSurvivesReopening) {
  ASSERT_TRUE(journal_->UpsertTrial(RunningTrial(6)));
  journal_.reset();
  journal_ = Open(JournalAccess::kReadWrite);
  ASSERT_NE(journal_, nullptr);
  ExpectSameTrial(MustLoadTrial(*journal_, 6), RunningTrial(6));
}

TEST_F(JournalTest, EventsAreAppended) {
  ASSERT_TRUE(journal_->AppendEvent(1700000000, "resumed", {{"interrupted_trials", {1, 4}}}));
  ASSERT_TRUE(journal_->AppendEvent(1700000001, "interrupted", Json::object()));
  auto raw = sqlite::Database::Open(db_path_, sqlite::OpenMode::kReadOnly);
  ASSERT_TRUE(raw);
  auto rows = raw->Prepare("SELECT time, kind, detail FROM events ORDER BY rowid", "events");
  ASSERT_TRUE(rows);
  ASSERT_EQ(rows->Step(), true);
  EXPECT_EQ(rows->Double(0), 1700000000);
  EXPECT_EQ(rows->Text(1), "resumed");
  EXPECT_EQ(rows->Text(2), R"({"interrupted_trials":[1,4]})");
  ASSERT_EQ(rows->Step(), true);
  EXPECT_EQ(rows->Text(1), "interrupted");
  EXPECT_EQ(rows->Step(), false);
}

TEST_F(JournalTest, FileIsInWalMode) {
  auto raw = sqlite::Database::Open(db_path_, sqlite::OpenMode::kReadOnly);
  ASSERT_TRUE(raw);
  auto mode = raw->Prepare("PRAGMA journal_mode", "mode");
  ASSERT_TRUE(mode);
  ASSERT_EQ(mode->Step(), true);
  EXPECT_EQ(mode->Text(0), "wal");
}

TEST_F(JournalTest, DataVersionChangesWhenAnotherConnectionCommits) {
  auto reader = OpenJournal(db_path_, JournalAccess::kReadOnly);
  ASSERT_TRUE(reader) << reader.error().message;
  const auto before = (*reader)->DataVersion();
  ASSERT_TRUE(before);
  EXPECT_EQ(*(*reader)->DataVersion(), *before);  // nothing committed: unchanged
  ASSERT_TRUE(journal_->UpsertTrial(RunningTrial(1)));
  EXPECT_NE(*(*reader)->DataVersion(), *before);
}

// A follower reads what each commit wrote and nothing else: upserts and finishes, in
// one Apply or several, from its own connection; results and events alone change no row.
TEST_F(JournalTest, TrialsChangedAfterAMarkAreWhatWasWrittenSince) {
  auto reader = OpenJournal(db_path_, JournalAccess::kReadOnly);
  ASSERT_TRUE(reader) << reader.error().message;
  for (int n = 0; n < 4; ++n) ASSERT_TRUE(journal_->UpsertTrial(RunningTrial(n)));
  auto numbers = [](const ChangedTrials& read) {
    std::vector<int> out;
    for (const TrialRecord& t : read.trials) out.push_back(t.number);
    return out;
  };
  auto first = (*reader)->LoadTrialsChangedAfter(-1);
  ASSERT_TRUE(first) << first.error().message;
  EXPECT_TRUE(first->whole);
  EXPECT_EQ(numbers(*first), (std::vector<int>{0, 1, 2, 3}));

  TrialRecord done = RunningTrial(2);
  done.state = TrialState::kCompleted;
  done.objective = 0.5;
  TrialRecord promoted = RunningTrial(0);
  promoted.attempt = 2;
  ASSERT_TRUE(journal_->Apply({JournalWrite::Finish(done, {Result(2, 1, 1, Json{{"acc", 1}})}),
                               JournalWrite::Upsert(promoted), JournalWrite::Upsert(RunningTrial(7))}));
  ASSERT_TRUE(journal_->AppendResults({Result(1, 1, 1, Json{{"acc", 2}})}));
  auto next = (*reader)->LoadTrialsChangedAfter(first->mark);
  ASSERT_TRUE(next) << next.error().message;
  EXPECT_FALSE(next->whole);
  EXPECT_EQ(numbers(*next), (std::vector<int>{0, 2, 7}));  // by number, each whole
  ExpectSameTrial(next->trials[0], promoted);
  EXPECT_EQ(next->trials[1].objective, 0.5);
  EXPECT_GT(next->mark, first->mark);

  auto none = (*reader)->LoadTrialsChangedAfter(next->mark);
  ASSERT_TRUE(none) << none.error().message;
  EXPECT_TRUE(none->trials.empty());
  EXPECT_EQ(none->mark, next->mark);
  // Written again as it is: nothing changed, no new mark.
  ASSERT_TRUE(journal_->UpsertTrial(RunningTrial(7)));
  auto same = (*reader)->LoadTrialsChangedAfter(none->mark);
  ASSERT_TRUE(same) << same.error().message;
  EXPECT_TRUE(same->trials.empty());
  EXPECT_EQ(same->mark, none->mark);
  // Written again with a change: a later mark than every earlier one, even for the row
  // that held the largest.
  TrialRecord recorded = RunningTrial(7);
  recorded.pid = 4343;
  ASSERT_TRUE(journal_->UpsertTrial(recorded));
  auto again = (*reader)->LoadTrialsChangedAfter(none->mark);
  ASSERT_TRUE(again) << again.error().message;
  EXPECT_EQ(numbers(*again), (std::vector<int>{7}));
  EXPECT_GT(again->mark, none->mark);
}

// A journal that keeps no marks (the interface's default) answers every trial, whole.
TEST_F(JournalTest, TheDefaultAnswersEveryTrialWhole) {
  ASSERT_TRUE(journal_->UpsertTrial(RunningTrial(0)));
  ASSERT_TRUE(journal_->UpsertTrial(RunningTrial(1)));
  auto read = journal_->Journal::LoadTrialsChangedAfter(1);
  ASSERT_TRUE(read) << read.error().message;
  EXPECT_TRUE(read->whole);
  EXPECT_EQ(read->mark, -1);
  EXPECT_EQ(read->trials.size(), 2u);
}

TEST_F(JournalTest, MetricPointsFollowTheAppendOrderFromACursor) {
  ASSERT_TRUE(journal_->UpsertTrial(RunningTrial(1)));
  ASSERT_TRUE(journal_->UpsertTrial(RunningTrial(0)));
  ASSERT_TRUE(journal_->AppendResults({Result(1, 1, 0, {{"a \"quoted\" key", 0.5}}),
                                       Result(0, 1, 0, {{"a \"quoted\" key", 3}}),
                                       Result(0, 1, 1, {{"a \"quoted\" key", "text"}})}));
  auto all = journal_->LoadMetricPoints("a \"quoted\" key", 0, 1000);
  ASSERT_TRUE(all) << all.error().message;
  ASSERT_EQ(all->size(), 3u);
  EXPECT_EQ((*all)[0].trial, 1);  // append order, not trial order
  EXPECT_EQ((*all)[0].value, 0.5);
  EXPECT_EQ((*all)[1].value, 3.0);  // integers are numbers too
  EXPECT_FALSE((*all)[2].value.has_value());  // a string is no number
  EXPECT_LT((*all)[0].cursor, (*all)[1].cursor);

  ASSERT_TRUE(journal_->AppendResults({Result(1, 1, 1, {{"other", 1.0}})}));
  auto newer = journal_->LoadMetricPoints("a \"quoted\" key", (*all)[2].cursor, 1000);
  ASSERT_TRUE(newer) << newer.error().message;
  ASSERT_EQ(newer->size(), 1u);  // only the new row travels
  EXPECT_EQ((*newer)[0].step, 1);
  EXPECT_FALSE((*newer)[0].value.has_value());

  // A limit gives the first rows past the cursor; the next piece starts at the last.
  auto piece = journal_->LoadMetricPoints("a \"quoted\" key", 0, 2);
  ASSERT_TRUE(piece) << piece.error().message;
  ASSERT_EQ(piece->size(), 2u);
  EXPECT_EQ((*piece)[1].cursor, (*all)[1].cursor);
  auto rest = journal_->LoadMetricPoints("a \"quoted\" key", piece->back().cursor, 2);
  ASSERT_TRUE(rest);
  ASSERT_EQ(rest->size(), 2u);
  EXPECT_EQ((*rest)[0].cursor, (*all)[2].cursor);
}

}  // namespace
}  // namespace gpusweep
