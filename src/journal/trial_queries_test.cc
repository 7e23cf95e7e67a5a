// The SQLite journal's counting, ranking and grouping queries against the in-memory
// defaults (Journal::CountTrials etc. called non-virtually, so they filter LoadTrials()):
// on hand-made trials with ties, NaN, missing objectives, every state and repeated
// params, and on the journal fixtures the previous release wrote.
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <limits>

#include <gtest/gtest.h>

#include "gpusweep/journal.h"
#include "journal/test_util.h"

namespace gpusweep {
namespace {

using testing_util::ScratchDir;

void ExpectSameCounts(const TrialCounts& sql, const TrialCounts& memory) {
  EXPECT_EQ(sql.recorded, memory.recorded);
  EXPECT_EQ(sql.completed, memory.completed);
  EXPECT_EQ(sql.running, memory.running);
  EXPECT_EQ(sql.failed, memory.failed);
  EXPECT_EQ(sql.interrupted, memory.interrupted);
  EXPECT_EQ(sql.pruned, memory.pruned);
  EXPECT_EQ(sql.paused, memory.paused);
  EXPECT_EQ(sql.ranked, memory.ranked);
  EXPECT_EQ(sql.repeats, memory.repeats);
  EXPECT_EQ(sql.jobs, memory.jobs);
}

std::vector<int> Numbers(const std::vector<TrialRecord>& trials) {
  std::vector<int> numbers;
  for (const TrialRecord& t : trials) numbers.push_back(t.number);
  return numbers;
}

// Every query shape the read commands use, SQL against the default, on `journal`.
void ExpectQueriesAgree(Journal& journal, const std::vector<std::string>& param_names) {
  auto sql_counts = journal.CountTrials();
  auto memory_counts = journal.Journal::CountTrials();
  ASSERT_TRUE(sql_counts && memory_counts);
  ExpectSameCounts(*sql_counts, *memory_counts);
  for (Mode mode : {Mode::kMin, Mode::kMax})
    for (auto order : {TrialQuery::Order::kNumber, TrialQuery::Order::kNumberDescending,
                       TrialQuery::Order::kObjective})
      for (bool ranked : {false, true})
        for (int limit : {0, 1, 3})
          for (std::optional<TrialState> state :
               {std::optional<TrialState>(), std::optional(TrialState::kCompleted),
                std::optional(TrialState::kFailed)}) {
            const TrialQuery query{order, mode, state, ranked, limit};
            auto sql = journal.QueryTrials(query);
            auto memory = journal.Journal::QueryTrials(query);
            ASSERT_TRUE(sql && memory);
            EXPECT_EQ(Numbers(*sql), Numbers(*memory))
                << "mode " << static_cast<int>(mode) << " order " << static_cast<int>(order)
                << " ranked " << ranked << " limit " << limit;
          }
  std::vector<std::vector<std::string>> ignored_sets{{}, {"seed"}};
  for (const std::string& name : param_names) ignored_sets.push_back({name, "seed"});
  for (Mode mode : {Mode::kMin, Mode::kMax})
    for (const auto& ignored : ignored_sets)
      for (int limit : {0, 1, 2}) {
        auto sql = journal.RankTrialGroups(ignored, mode, limit);
        auto memory = journal.Journal::RankTrialGroups(ignored, mode, limit);
        ASSERT_TRUE(sql && memory);
        EXPECT_EQ(sql->groups, memory->groups);
        EXPECT_EQ(sql->repeats, memory->repeats);
        ASSERT_EQ(sql->top.size(), memory->top.size());
        for (size_t i = 0; i < sql->top.size(); ++i) {
          EXPECT_EQ(sql->top[i].key, memory->top[i].key) << i;
          EXPECT_EQ(sql->top[i].numbers, memory->top[i].numbers) << i;
          EXPECT_EQ(sql->top[i].completed, memory->top[i].completed) << i;
          ASSERT_EQ(sql->top[i].mean.has_value(), memory->top[i].mean.has_value()) << i;
          if (sql->top[i].mean) {
            EXPECT_DOUBLE_EQ(*sql->top[i].mean, *memory->top[i].mean) << i;
          }
        }
      }
}

TrialRecord Trial(int number, TrialState state, std::optional<double> objective, Json params) {
  TrialRecord t;
  t.number = number;
  t.state = state;
  t.objective = objective;
  t.params = std::move(params);
  t.start_time = 1700000000 + number;
  t.end_time = state == TrialState::kRunning ? 0 : t.start_time + 1;
  return t;
}

TEST(TrialQueriesTest, SqlAgreesWithTheInMemoryDefaultsOnTiesNanStatesAndRepeats) {
  ScratchDir dir;
  auto journal = OpenJournal(dir.path() / "gpusweep.db", JournalAccess::kReadWrite);
  ASSERT_TRUE(journal);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  // Inserted out of number order: the queries order by number, not by rowid.
  std::vector<TrialRecord> trials{
      Trial(5, TrialState::kCompleted, 0.5, Json{{"lr", 0.1}, {"seed", 1}, {"net", {{"d", 2}}}}),
      Trial(1, TrialState::kCompleted, 0.5, Json{{"lr", 0.1}, {"seed", 0}, {"net", {{"d", 2}}}}),
      Trial(2, TrialState::kCompleted, 0.9, Json{{"lr", 0.2}, {"seed", 0}, {"net", {{"d", 2}}}}),
      Trial(3, TrialState::kCompleted, nan, Json{{"lr", 0.3}, {"seed", 0}, {"net", {{"d", 3}}}}),
      Trial(4, TrialState::kFailed, std::nullopt, Json{{"lr", 0.2}, {"seed", 1}, {"net", {{"d", 2}}}}),
      Trial(0, TrialState::kCompleted, -inf, Json{{"lr", 0.4}, {"seed", 0}, {"net", {{"d", 3}}}}),
      Trial(6, TrialState::kRunning, std::nullopt, Json{{"lr", 0.3}, {"seed", 1}, {"net", {{"d", 3}}}}),
      Trial(7, TrialState::kPruned, 0.7, Json{{"lr", 0.5}, {"seed", 0}, {"net", {{"d", 2}}}}),
      Trial(8, TrialState::kInterrupted, std::nullopt, Json{{"lr", 0.5}, {"seed", 1}, {"net", {{"d", 2}}}}),
      Trial(9, TrialState::kPaused, 0.9, Json{{"lr", "a\"b"}, {"seed", 0}, {"net", {{"d", 2}}}}),
      Trial(10, TrialState::kCompleted, 0.9, Json{{"lr", 0.6}, {"seed", 0}, {"net", {{"d", 2}}}}),
      Trial(11, TrialState::kCompleted, inf, Json{{"lr", 0.6}, {"seed", 1}, {"net", {{"d", 2}}}}),
  };
  trials[3].repeat = 1;
  trials[5].job_id = "12345";
  for (const TrialRecord& t : trials) ASSERT_TRUE((*journal)->UpsertTrial(t));
  ExpectQueriesAgree(**journal, {"lr", "net"});

  // The grouping the read commands rely on: seed ignored, trials 1 and 5 one group.
  auto groups = (*journal)->RankTrialGroups({"seed"}, Mode::kMax, 0);
  ASSERT_TRUE(groups);
  EXPECT_TRUE(groups->repeats);
  bool found = false;
  for (const TrialGroupRow& g : groups->top)
    if (g.numbers == std::vector<int>{1, 5}) found = g.completed == 2 && g.mean == 0.5;
  EXPECT_TRUE(found);
  // Empty journal: no groups, no counts.
  ScratchDir empty_dir;
  auto empty = OpenJournal(empty_dir.path() / "gpusweep.db", JournalAccess::kReadWrite);
  ASSERT_TRUE(empty);
  ExpectQueriesAgree(**empty, {});
}

TEST(TrialQueriesTest, SqlAgreesWithTheInMemoryDefaultsOnThePreviousReleasesJournals) {
  const char* data = std::getenv("GPUSWEEP_TEST_DATA");
  const std::filesystem::path root =
      std::filesystem::path(data != nullptr ? data : "tests/data") / "journal_fixtures";
  int seen = 0;
  for (const char* kind : {"sweep", "asha", "cv", "nas"}) {
    for (const auto& entry : std::filesystem::directory_iterator(root / kind / "runs")) {
      ScratchDir copy;  // read-only opens write a -shm file: read a copy
      std::filesystem::copy_file(entry.path() / "gpusweep.db", copy.path() / "gpusweep.db");
      auto journal = OpenJournal(copy.path() / "gpusweep.db", JournalAccess::kReadOnly);
      ASSERT_TRUE(journal) << journal.error().message;
      auto trials = (*journal)->LoadTrials();
      ASSERT_TRUE(trials);
      std::vector<std::string> names;
      if (!trials->empty() && trials->front().params.is_object())
        for (const auto& [name, unused] : trials->front().params.items()) names.push_back(name);
      SCOPED_TRACE(kind);
      ExpectQueriesAgree(**journal, names);
      ++seen;
    }
  }
  EXPECT_EQ(seen, 4);
}

}  // namespace
}  // namespace gpusweep
