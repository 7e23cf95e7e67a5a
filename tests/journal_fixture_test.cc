// Journals written by the previous release resume under this build (issue 20: the
// SearchPolicy seam replaced the per-kind scheduler/sampler wrappers, and promised that
// older journals resume unchanged). tests/data/journal_fixtures/<kind> holds an
// experiment the release before the seam (a590f8b) stopped part-way: finished trials,
// trials cut short (kill -9, or SIGINT for cv) and trials never started; expected.tsv is
// how that release ends the same config run without a stop (README.md there says how
// they were made). Each test resumes a copy with this build's gpusweep and checks that
// the past is kept, nothing runs twice, and the end is the old release's end.
#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "cli_harness.h"
#include "gpusweep/journal.h"
#include "run/test_util.h"

namespace gpusweep {
namespace {

namespace fs = std::filesystem;
using testing::RunGpusweep;

fs::path FixtureDir(const std::string& kind) {
  const char* data = std::getenv("GPUSWEEP_TEST_DATA");
  return fs::path(data != nullptr ? data : "tests/data") / "journal_fixtures" / kind;
}

// One line of expected.tsv: number, state, objective (empty: none), params.
struct ExpectedTrial {
  int number = 0;
  std::string state;
  std::optional<double> objective;
  Json params;
};

std::map<int, ExpectedTrial> ReadExpected(const fs::path& path) {
  std::map<int, ExpectedTrial> rows;
  std::istringstream in(ReadFile(path));
  for (std::string line; std::getline(in, line);) {
    std::vector<std::string> fields;
    std::istringstream cells(line);
    for (std::string cell; std::getline(cells, cell, '\t');) fields.push_back(cell);
    if (fields.size() != 4) {
      ADD_FAILURE() << path << ": not 4 tab-separated fields: " << line;
      continue;
    }
    ExpectedTrial row{std::stoi(fields[0]), fields[1], std::nullopt, Json::parse(fields[3])};
    if (!fields[2].empty()) row.objective = std::stod(fields[2]);
    rows[row.number] = row;
  }
  return rows;
}

// Lines of a file the trials of the resumed run append to ({{config_dir}}/starts or
// evals; the fixture has none, so it holds only what this build started).
std::vector<std::string> Lines(const fs::path& path) {
  std::vector<std::string> lines;
  if (!fs::exists(path)) return lines;
  std::istringstream in(ReadFile(path));
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

bool SameEvent(const SchedulerEventRecord& a, const SchedulerEventRecord& b) {
  return a.seq == b.seq && a.time == b.time && a.trial == b.trial && a.kind == b.kind &&
         a.detail == b.detail;
}

bool SameResult(const IntermediateResult& a, const IntermediateResult& b) {
  return a.trial == b.trial && a.attempt == b.attempt && a.step == b.step && a.time == b.time &&
         a.values == b.values;
}

class JournalFixtureTest : public ::testing::Test {
 protected:
  // Copies fixture `kind` into the scratch directory and reads what its journal holds.
  void Load(const std::string& kind) {
    kind_ = kind;
    ASSERT_TRUE(fs::exists(FixtureDir(kind) / "sweep.yaml")) << FixtureDir(kind);
    fs::copy(FixtureDir(kind), dir_.path(), fs::copy_options::recursive);
    // The copy is the test's own: a source tree checked out read-only still resumes.
    fs::permissions(dir_.path(), fs::perms::owner_all, fs::perm_options::add);
    for (const auto& entry : fs::recursive_directory_iterator(dir_.path()))
      fs::permissions(entry.path(), fs::perms::owner_read | fs::perms::owner_write |
                                        (entry.is_directory() ? fs::perms::owner_exec
                                                              : fs::perms::none),
                      fs::perm_options::add);
    expected_ = ReadExpected(dir_.path() / "expected.tsv");
    before_ = Trials();
    events_before_ = SchedulerEvents();
    for (const TrialRecord& t : before_) results_before_[t.number] = Results(t.number);
    // What makes the fixture worth resuming: a finished trial, one cut short, and work
    // the stopped run never started.
    ASSERT_GE(Count(before_, TrialState::kCompleted) + Count(before_, TrialState::kPaused), 1);
    ASSERT_GE(Count(before_, TrialState::kRunning) + Count(before_, TrialState::kInterrupted), 1);
    ASSERT_LT(before_.size(), expected_.size()) << "no trial left unstarted";
  }

  fs::path exp() const { return dir_.path() / "runs" / kind_; }
  std::unique_ptr<Journal> Open() {
    auto journal = OpenJournal(exp() / "gpusweep.db", JournalAccess::kReadOnly);
    EXPECT_TRUE(journal) << journal.error().message;
    return journal ? std::move(*journal) : nullptr;
  }
  std::vector<TrialRecord> Trials() {
    auto journal = Open();
    return journal ? journal->LoadTrials().value_or(std::vector<TrialRecord>{})
                   : std::vector<TrialRecord>{};
  }
  std::vector<SchedulerEventRecord> SchedulerEvents() {
    auto journal = Open();
    return journal ? journal->LoadSchedulerEvents().value_or(std::vector<SchedulerEventRecord>{})
                   : std::vector<SchedulerEventRecord>{};
  }
  std::vector<IntermediateResult> Results(int trial) {
    auto journal = Open();
    return journal ? journal->LoadResults(trial).value_or(std::vector<IntermediateResult>{})
                   : std::vector<IntermediateResult>{};
  }
  static int Count(const std::vector<TrialRecord>& trials, TrialState state) {
    return static_cast<int>(std::count_if(trials.begin(), trials.end(),
                                          [&](const TrialRecord& t) { return t.state == state; }));
  }

  // Resumes the copy with this build; the end must be a clean exit.
  void Resume() {
    const auto run = RunGpusweep({"run", "sweep.yaml"}, dir_.path());
    ASSERT_EQ(run.exit_code, 0) << run.out;
    after_ = Trials();
  }

  // Every trial finished before the stop is as the old release journaled it: same
  // params, objective, attempt, times and reports (nothing re-ran it or rewrote it).
  // Trials cut short keep their earlier reports, before those of the new attempt.
  void ExpectThePastKept() {
    std::map<int, const TrialRecord*> now;
    for (const TrialRecord& t : after_) now[t.number] = &t;
    for (const TrialRecord& old : before_) {
      SCOPED_TRACE(fmt::format("{} trial {} ({} before)", kind_, old.number, ToString(old.state)));
      ASSERT_TRUE(now.count(old.number));
      const TrialRecord& t = *now[old.number];
      EXPECT_EQ(t.params, old.params);
      const std::vector<IntermediateResult> results = Results(old.number);
      const std::vector<IntermediateResult>& earlier = results_before_[old.number];
      ASSERT_GE(results.size(), earlier.size());
      EXPECT_TRUE(std::equal(earlier.begin(), earlier.end(), results.begin(), SameResult));
      if (old.state != TrialState::kCompleted) continue;
      EXPECT_EQ(t.state, TrialState::kCompleted);
      EXPECT_EQ(t.objective, old.objective);
      EXPECT_EQ(t.attempt, old.attempt);
      EXPECT_EQ(t.start_time, old.start_time);
      EXPECT_EQ(t.end_time, old.end_time);
      EXPECT_EQ(results.size(), earlier.size());
    }
    // The journaled policy's calls (ASHA, NAS) are the start of the new ones, unchanged:
    // what was replayed is what the old release decided.
    const std::vector<SchedulerEventRecord> events = SchedulerEvents();
    ASSERT_GE(events.size(), events_before_.size());
    EXPECT_TRUE(std::equal(events_before_.begin(), events_before_.end(), events.begin(), SameEvent));
  }

  // The resumed run ends where the old release ends without a stop: the same trials,
  // each with the same params, state and objective.
  void ExpectTheOldReleasesEnd() {
    ASSERT_EQ(after_.size(), expected_.size());
    for (const TrialRecord& t : after_) {
      SCOPED_TRACE(fmt::format("{} trial {}", kind_, t.number));
      ASSERT_TRUE(expected_.count(t.number));
      const ExpectedTrial& want = expected_.at(t.number);
      EXPECT_EQ(t.params, want.params);
      EXPECT_EQ(ToString(t.state), want.state) << t.failure_reason;
      // expected.tsv went through SQLite's printf, exact to about 16 digits only.
      ASSERT_EQ(t.objective.has_value(), want.objective.has_value());
      if (want.objective) {
        EXPECT_DOUBLE_EQ(*t.objective, *want.objective);
      }
    }
  }

  // What the resumed run started (its trials' `starts` lines): each trial the stop
  // left unfinished exactly once, no trial finished before it.
  void ExpectEachUnfinishedTrialRunOnce() {
    std::map<int, int> starts;
    for (const std::string& line : Lines(dir_.path() / "starts")) ++starts[std::stoi(line)];
    std::set<int> finished;
    for (const TrialRecord& t : before_)
      if (t.state == TrialState::kCompleted) finished.insert(t.number);
    for (const auto& [number, want] : expected_) {
      EXPECT_EQ(starts[number], finished.count(number) ? 0 : 1) << kind_ << " trial " << number;
    }
  }

  // The trial `best` names and the text it prints for it.
  std::string Best() {
    const auto best = RunGpusweep({"best", exp().string()}, dir_.path());
    EXPECT_EQ(best.exit_code, 0) << best.out;
    return best.out;
  }

  // The expected trial with the largest objective (every fixture maximises).
  const ExpectedTrial& ExpectedBest() const {
    const ExpectedTrial* best = nullptr;
    for (const auto& [number, row] : expected_)
      if (row.objective && (best == nullptr || *row.objective > *best->objective)) best = &row;
    return *best;
  }

  TempDir dir_;
  std::string kind_;
  std::map<int, ExpectedTrial> expected_;
  std::vector<TrialRecord> before_, after_;
  std::vector<SchedulerEventRecord> events_before_;
  std::map<int, std::vector<IntermediateResult>> results_before_;
};

// A grid of 8 on 2 slots, killed with -9: trials 0-2 finished, 3 and 4 running (each
// with its step-1 report journaled), 5-7 never started.
TEST_F(JournalFixtureTest, PlainSweepKilledMidRunResumesToTheSameEnd) {
  ASSERT_NO_FATAL_FAILURE(Load("sweep"));
  ASSERT_NO_FATAL_FAILURE(Resume());
  ExpectThePastKept();
  ExpectTheOldReleasesEnd();
  ExpectEachUnfinishedTrialRunOnce();
  // The trials the kill cut short ran once more, as their second attempt.
  for (const TrialRecord& old : before_) {
    if (old.state == TrialState::kCompleted) continue;
    const auto t = std::find_if(after_.begin(), after_.end(),
                                [&](const TrialRecord& n) { return n.number == old.number; });
    ASSERT_NE(t, after_.end());
    EXPECT_EQ(t->attempt, old.attempt + 1) << "trial " << old.number;
  }
  const ExpectedTrial& best = ExpectedBest();
  const std::string out = Best();
  EXPECT_NE(out.find(fmt::format("trials/{}", TrialDirName(best.number))), std::string::npos)
      << out;
}

// Budgeted ASHA (budgets 1, 2, 4) over a grid of 8 on 2 slots, killed with -9 when both
// slots held a promoted job: the replay of the old scheduler_events must give the same
// scheduler, so no job finished before the stop runs again, and the run goes on to the
// same best trial.
TEST_F(JournalFixtureTest, AshaKilledMidRungHonoursTheJournaledDecisions) {
  ASSERT_NO_FATAL_FAILURE(Load("asha"));
  ASSERT_FALSE(events_before_.empty());
  ASSERT_NO_FATAL_FAILURE(Resume());
  ExpectThePastKept();

  const std::vector<SchedulerEventRecord> events = SchedulerEvents();
  ASSERT_GT(events.size(), events_before_.size());

  // Jobs (trial, rung) the old run finished, and those it had started and not ended.
  std::set<std::pair<int, int>> finished_before, cut_short;
  for (const SchedulerEventRecord& e : events_before_) {
    if (!e.detail.contains("job")) continue;  // reports
    const auto job = std::make_pair(e.trial, e.detail["job"]["rung"].get<int>());
    if (e.kind == "job_started") cut_short.insert(job);
    if (e.kind == "job_finished" || e.kind == "job_interrupted") cut_short.erase(job);
    if (e.kind == "job_finished") finished_before.insert(job);
  }
  ASSERT_FALSE(finished_before.empty());
  ASSERT_FALSE(cut_short.empty());
  // Over both runs, each job finished once.
  std::set<std::pair<int, int>> finished;
  for (const SchedulerEventRecord& e : events) {
    if (e.kind != "job_finished") continue;
    const auto job = std::make_pair(e.trial, e.detail["job"]["rung"].get<int>());
    EXPECT_TRUE(finished.insert(job).second) << "trial " << job.first << " rung " << job.second;
  }
  // What the resumed run evaluated ("trial budget" lines): no job the old one finished,
  // every job it cut short, no job twice.
  std::set<std::pair<int, int>> evaluated;
  for (const std::string& line : Lines(dir_.path() / "evals")) {
    int trial = 0, budget = 0;
    std::istringstream(line) >> trial >> budget;
    int rung = 0;
    while ((1 << rung) < budget) ++rung;
    const auto job = std::make_pair(trial, rung);
    EXPECT_FALSE(finished_before.count(job)) << "re-ran trial " << trial << " budget " << budget;
    EXPECT_TRUE(evaluated.insert(job).second) << "ran twice: trial " << trial << " budget " << budget;
  }
  for (const auto& job : cut_short)
    EXPECT_TRUE(evaluated.count(job)) << "trial " << job.first << " rung " << job.second;

  // Every trial ends completed (at budget 4) or pruned; the best is the old release's.
  ASSERT_EQ(after_.size(), expected_.size());
  for (const TrialRecord& t : after_) {
    EXPECT_EQ(t.params, expected_.at(t.number).params) << "trial " << t.number;
    EXPECT_TRUE(t.state == TrialState::kCompleted || t.state == TrialState::kPruned)
        << t.number << ": " << ToString(t.state) << " " << t.failure_reason;
  }
  const ExpectedTrial& best = ExpectedBest();
  const auto t = std::find_if(after_.begin(), after_.end(),
                              [&](const TrialRecord& n) { return n.number == best.number; });
  ASSERT_NE(t, after_.end());
  EXPECT_EQ(t->state, TrialState::kCompleted);
  ASSERT_TRUE(t->objective);
  EXPECT_DOUBLE_EQ(*t->objective, *best.objective);
  for (const TrialRecord& other : after_) {
    if (other.objective) {
      EXPECT_LE(*other.objective, *best.objective) << "trial " << other.number;
    }
  }
  const std::string out = Best();
  EXPECT_NE(out.find(fmt::format("trials/{}", TrialDirName(best.number))), std::string::npos)
      << out;
}

// Cross-validation (3 configurations x 3 folds) stopped with SIGINT: configuration 0
// finished, configuration 1 with one fold done and two interrupted, configuration 2 not
// started. Every fold ends with the same score, so every configuration's mean is the
// old release's.
TEST_F(JournalFixtureTest, CrossValidationInterruptedResumesEveryFold) {
  ASSERT_NO_FATAL_FAILURE(Load("cv"));
  ASSERT_GE(Count(before_, TrialState::kInterrupted), 1);
  ASSERT_NO_FATAL_FAILURE(Resume());
  ExpectThePastKept();
  ExpectTheOldReleasesEnd();
  ExpectEachUnfinishedTrialRunOnce();
  // The aggregation: configuration c's folds are trials 3c..3c+2, their mean its score.
  std::map<int, double> mean;
  for (const auto& [number, row] : expected_) mean[number / 3] += *row.objective / 3;
  ASSERT_EQ(mean.size(), 3u);
  const auto best = std::max_element(mean.begin(), mean.end(),
                                     [](auto& a, auto& b) { return a.second < b.second; });
  const std::string out = Best();
  EXPECT_NE(out.find(fmt::format("{}", best->second)), std::string::npos) << out;
  EXPECT_NE(out.find("3-fold cross-validation"), std::string::npos) << out;
}

// The small NAS tournament of nas_cli_test (13 evaluations), killed with -9 while
// round 2 waited for trial 6: the resumed tournament continues to the same winner, with
// the same params for every evaluation as the old release's uninterrupted run.
TEST_F(JournalFixtureTest, NasKilledMidRoundContinuesToTheSameWinner) {
  ASSERT_NO_FATAL_FAILURE(Load("nas"));
  ASSERT_NO_FATAL_FAILURE(Resume());
  ExpectThePastKept();
  ExpectTheOldReleasesEnd();
  ExpectEachUnfinishedTrialRunOnce();
  // One winner: the last evaluation is the retrain of the topology that won.
  const ExpectedTrial& retrain = expected_.rbegin()->second;
  ASSERT_TRUE(retrain.params.contains("nas_topology")) << retrain.params.dump();
  const std::string out = Best();
  EXPECT_NE(out.find("retrain"), std::string::npos) << out;
  EXPECT_NE(out.find(fmt::format("trials/{}", TrialDirName(retrain.number))), std::string::npos)
      << out;
}

}  // namespace
}  // namespace gpusweep
