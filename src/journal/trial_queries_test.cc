// The SQLite journal's counting, ranking and grouping queries against the in-memory
// defaults (Journal::CountTrials etc. called non-virtually, so they filter LoadTrials()):
// on hand-made trials with ties, NaN, missing objectives, every state and repeated
// params, and on the journal fixtures the previous release wrote.
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <span>

#include <gtest/gtest.h>

#include "gpusweep/journal.h"
#include "journal/schema.h"
#include "journal/sqlite.h"
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
  std::vector<std::vector<std::string>> ignored_sets{{}, {"seed"}, {"absent"}};
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
          if (sql->top[i].mean && !(std::isnan(*sql->top[i].mean) && std::isnan(*memory->top[i].mean))) {
            EXPECT_DOUBLE_EQ(*sql->top[i].mean, *memory->top[i].mean) << i;  // NaN: +inf and -inf
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

// The grouping reads the params as they are and strips an ignored name only when some
// trial holds it: here one trial late in key order does ("z" sorts last), so the first
// pass stops there, and the groups must still be those of the stripped key.
TEST(TrialQueriesTest, GroupsStripAnIgnoredNameThatOnlySomeTrialsHold) {
  ScratchDir dir;
  auto journal = OpenJournal(dir.path() / "gpusweep.db", JournalAccess::kReadWrite);
  ASSERT_TRUE(journal);
  std::vector<TrialRecord> trials{
      Trial(0, TrialState::kCompleted, 0.5, Json{{"a", 1}}),
      Trial(1, TrialState::kCompleted, 0.7, Json{{"a", 2}}),
      Trial(2, TrialState::kCompleted, 0.3, Json{{"a", 2}, {"z", 0}}),
      Trial(3, TrialState::kCompleted, 0.1, Json{{"a", 3}}),
  };
  for (const TrialRecord& t : trials) ASSERT_TRUE((*journal)->UpsertTrial(t));
  ExpectQueriesAgree(**journal, {"a", "z"});
  auto groups = (*journal)->RankTrialGroups({"z"}, Mode::kMin, 0);
  ASSERT_TRUE(groups);
  EXPECT_EQ(groups->groups, 3);
  EXPECT_TRUE(groups->repeats);
  ASSERT_EQ(groups->top.size(), 3u);
  // By mean (min): a=3 0.1, then a=1 0.5 and the stripped a=2 group (0.7, 0.3) at 0.5,
  // the tie to the lower first trial.
  EXPECT_EQ(groups->top[0].key, R"({"a":3})");
  EXPECT_EQ(groups->top[2].numbers, (std::vector<int>{1, 2}));
  EXPECT_EQ(groups->top[2].key, R"({"a":2})");
  EXPECT_DOUBLE_EQ(*groups->top[2].mean, 0.5);
  // Without the name ignored every trial is its own group, keys as stored.
  auto plain = (*journal)->RankTrialGroups({}, Mode::kMin, 1);
  ASSERT_TRUE(plain);
  EXPECT_EQ(plain->groups, 4);
  EXPECT_FALSE(plain->repeats);
  EXPECT_EQ(plain->top.at(0).key, R"({"a":3})");
}

// The read tallies hold what they would if made now from the trials (schema.h).
void ExpectTalliesWhole(const std::filesystem::path& path) {
  auto db = sqlite::Database::Open(path, sqlite::OpenMode::kReadOnly);
  ASSERT_TRUE(db);
  auto rows = [&](const std::string& sql) {
    std::vector<std::string> out;
    auto stmt = db->Prepare("SELECT quote(a) || ' ' || quote(b) || ' ' || quote(c) || ' ' || quote(d) || ' ' || "
                            "quote(e) || ' ' || quote(f) FROM (" + sql + ")", "read tallies");
    EXPECT_TRUE(stmt) << sql;
    while (stmt && *stmt->Step()) out.push_back(stmt->Text(0));
    return out;
  };
  const std::string key = journal::GroupKeySql("params");
  EXPECT_EQ(rows("SELECT key AS a, trials AS b, first AS c, completed AS d, total AS e, "
                 "spoiled || ' ' || quote(last) AS f FROM param_groups ORDER BY key"),
            rows("SELECT " + key + " AS a, count(*) AS b, min(number) AS c, "
                 "sum(state = 'completed' AND objective IS NOT NULL) AS d, "
                 "total(CASE WHEN state = 'completed' THEN objective END) AS e, "
                 "sum(state IN ('failed', 'pruned') OR (state = 'completed' AND objective IS NULL)) || ' ' || "
                 "quote(max(CASE WHEN state = 'completed' AND objective IS NOT NULL THEN number END)) AS f "
                 "FROM trials GROUP BY a ORDER BY a"));
  EXPECT_EQ(rows("SELECT state AS a, trials AS b, with_objective AS c, 0 AS d, 0 AS e, 0 AS f FROM trial_tally "
                 "WHERE trials > 0 ORDER BY state"),
            rows("SELECT state AS a, count(*) AS b, count(objective) AS c, 0 AS d, 0 AS e, 0 AS f FROM trials "
                 "GROUP BY state ORDER BY state"));
}

// The read tallies (schema.h) that counts and the default grouping read: kept by the
// triggers through every kind of trial write (a new trial, its finish, a replace that
// moves it to other params and state, a delete), made whole for a journal written
// before they existed, and not needed by a reader of a journal without them.
TEST(TrialQueriesTest, ReadTalliesFollowEveryTrialWriteAndOlderJournalsGetThem) {
  ScratchDir dir;
  const auto path = dir.path() / "gpusweep.db";
  const double inf = std::numeric_limits<double>::infinity();
  {
    auto opened = OpenJournal(path, JournalAccess::kReadWrite);
    ASSERT_TRUE(opened);
    Journal& journal = **opened;
    for (int k = 0; k < 12; ++k)  // running: no objective yet; params repeat every 4
      ASSERT_TRUE(journal.UpsertTrial(
          Trial(k, TrialState::kRunning, std::nullopt, Json{{"a", k % 4}, {"seed", k}})));
    ExpectQueriesAgree(journal, {"a"});
    ExpectTalliesWhole(path);
    for (int k = 0; k < 12; k += 3) {  // written again as a run records its process: unchanged
      TrialRecord t = Trial(k, TrialState::kRunning, std::nullopt, Json{{"a", k % 4}, {"seed", k}});
      t.pid = 1000 + k;
      ASSERT_TRUE(journal.UpsertTrial(t));
    }
    ExpectTalliesWhole(path);
    for (int k = 0; k < 12; ++k) {  // finished, some with ties, one group summing +inf and -inf
      TrialRecord t = Trial(k, k % 5 == 4 ? TrialState::kFailed : TrialState::kCompleted,
                            k % 5 == 4 ? std::nullopt : std::optional<double>(0.25 * (k % 3)),
                            Json{{"a", k % 4}, {"seed", k}});
      if (k == 3) t.objective = inf;
      if (k == 7) t.objective = -inf;
      const Status finished = journal.FinishTrial(t, {});
      ASSERT_TRUE(finished) << finished.error().message;
      ExpectQueriesAgree(journal, {"a"});
      ExpectTalliesWhole(path);
    }
    // A group whose trials finish out of number order: summed again from its trials (in
    // number order, as the scan sums), where one in order is added to the sum.
    for (int k = 12; k < 16; ++k)
      ASSERT_TRUE(journal.UpsertTrial(Trial(k, TrialState::kRunning, std::nullopt, Json{{"a", 5}, {"seed", k}})));
    for (int k : {14, 15, 12, 13}) {
      ASSERT_TRUE(journal.FinishTrial(Trial(k, TrialState::kCompleted, 0.1 * k, Json{{"a", 5}, {"seed", k}}), {}));
      ExpectTalliesWhole(path);
    }
    // Replaced with other params and state, and a new group of one.
    ASSERT_TRUE(journal.UpsertTrial(Trial(5, TrialState::kPruned, 0.1, Json{{"a", 9}})));
    ASSERT_TRUE(journal.UpsertTrial(Trial(6, TrialState::kCompleted, 0.0, Json{{"a", 0}, {"seed", 1}})));
    ExpectQueriesAgree(journal, {"a"});
    ExpectTalliesWhole(path);
  }
  {
    auto raw = sqlite::Database::Open(path, sqlite::OpenMode::kReadWriteCreate);
    ASSERT_TRUE(raw);
    ASSERT_TRUE(raw->Exec("DELETE FROM trials WHERE number IN (0, 9)", "delete two trials"));
    // An UPDATE that moves a trial to other params (no run's write does).
    ASSERT_TRUE(raw->Exec(R"(UPDATE trials SET params = '{"a":1,"seed":4}' WHERE number = 2)", "move a trial"));
    ExpectTalliesWhole(path);
    // A summed objective changed, and a REPLACE as older builds write a trial again.
    ASSERT_TRUE(raw->Exec("UPDATE trials SET objective = 7.5 WHERE number = 13", "change an objective"));
    ExpectTalliesWhole(path);
    ASSERT_TRUE(raw->Exec("INSERT OR REPLACE INTO trials SELECT * FROM trials WHERE number = 14", "replace a trial"));
    ASSERT_TRUE(raw->Exec("CREATE TEMP TABLE t AS SELECT * FROM trials WHERE number = 12; "
                          "UPDATE t SET state = 'failed', objective = NULL; "
                          "INSERT OR REPLACE INTO trials SELECT * FROM t", "replace a trial with a failed one"));
    ExpectTalliesWhole(path);
    auto reader = OpenJournal(path, JournalAccess::kReadOnly);
    ASSERT_TRUE(reader);
    ExpectQueriesAgree(**reader, {"a"});
    // A journal from before the tallies: a reader scans; the next run makes them again.
    ASSERT_TRUE(raw->Exec("DROP TRIGGER trials_tally_replaced; DROP TRIGGER trials_tally_inserted; "
                          "DROP TRIGGER trials_tally_updated; DROP TRIGGER trials_tally_progressed; "
                          "DROP TRIGGER trials_tally_regrouped; DROP TRIGGER trials_tally_deleted; "
                          "DROP TABLE param_groups; DROP TABLE trial_tally; DROP INDEX trials_by_group_key",
                          "drop the read tallies"));
    ExpectQueriesAgree(**reader, {"a"});
  }
  auto reopened = OpenJournal(path, JournalAccess::kReadWrite);
  ASSERT_TRUE(reopened) << reopened.error().message;
  ExpectQueriesAgree(**reopened, {"a"});
  ExpectTalliesWhole(path);
  auto groups = (*reopened)->RankTrialGroups({"seed"}, Mode::kMin, 1);
  ASSERT_TRUE(groups);
  EXPECT_TRUE(groups->repeats);
  ASSERT_EQ(groups->top.size(), 1u);
  // a=0: 4 (failed), 6, 8; a=1: 1, 2; a=2: 10; a=3: 3, 7, 11 (+inf, -inf: a NaN mean,
  // last of its tier); a=5: 12 (failed), 13, 14, 15; a=9: 5 (pruned). Unspoiled by mean
  // (report/groups.h): a=2 0.25.
  EXPECT_EQ(groups->top[0].key, R"({"a":2})");
  EXPECT_EQ(groups->top[0].numbers, (std::vector<int>{10}));
  EXPECT_EQ(groups->top[0].completed, 1);
  auto raw = sqlite::Database::Open(path, sqlite::OpenMode::kReadOnly);
  ASSERT_TRUE(raw);
  auto tallied = raw->Prepare("SELECT count(*) FROM param_groups", "count groups");
  ASSERT_TRUE(tallied);
  ASSERT_TRUE(tallied->Step());
  EXPECT_EQ(tallied->Int(0), 6);  // a = 0, 1, 2, 3, 5, 9
}

// What early stopping saved, summed by SQL as AddPrunedTrial sums it: the resource as
// a number > 0 (not true, a string or 0), else the budget when > 0, else counted only;
// GPU trials times their GPU count; trials past the maximum and other states add nothing.
TEST(TrialQueriesTest, PrunedProgressFromSqlAgreesWithTheInMemorySum) {
  ScratchDir dir;
  auto opened = OpenJournal(dir.path() / "gpusweep.db", JournalAccess::kReadWrite);
  ASSERT_TRUE(opened);
  Journal& journal = **opened;
  auto pruned = [](int number, Json metrics, std::optional<double> budget, std::vector<int> gpus) {
    TrialRecord t = Trial(number, TrialState::kPruned, std::nullopt, Json{{"x", number}});
    t.last_metrics = std::move(metrics);
    t.budget = budget;
    t.gpus = std::move(gpus);
    return t;
  };
  std::vector<TrialRecord> trials{
      pruned(0, Json{{"epoch", 3}}, 3.0, {}),
      pruned(1, Json{{"epoch", true}}, 9.0, {}),     // a bool is no number: the budget
      pruned(2, Json{{"epoch", "5"}}, std::nullopt, {}),  // neither: counted only
      pruned(3, Json{{"epoch", 0}}, 1.0, {0, 1}),    // 0 is not > 0: the budget, 2 GPUs
      pruned(4, Json{{"loss", 0.5}}, std::nullopt, {2}),
      pruned(5, Json{{"epoch", 2.5e1}}, std::nullopt, {}),  // past the maximum
      pruned(6, Json{{"epoch", 1.5}}, 0.0, {3}),
      Trial(7, TrialState::kCompleted, 0.5, Json{{"x", 7}}),
  };
  trials[7].last_metrics = Json{{"epoch", 1}};
  for (const TrialRecord& t : trials) ASSERT_TRUE(journal.UpsertTrial(t));
  for (const std::string resource : {"epoch", "loss", "absent"}) {
    auto sql = journal.SumPrunedProgress(resource, 20);
    auto memory = journal.Journal::SumPrunedProgress(resource, 20);
    ASSERT_TRUE(sql && memory);
    EXPECT_EQ(sql->pruned, memory->pruned) << resource;
    EXPECT_DOUBLE_EQ(sql->resource_saved, memory->resource_saved) << resource;
    EXPECT_DOUBLE_EQ(sql->cpu_resource_saved, memory->cpu_resource_saved) << resource;
    EXPECT_DOUBLE_EQ(sql->gpu_resource_saved, memory->gpu_resource_saved) << resource;
  }
  auto epochs = journal.SumPrunedProgress("epoch", 20);
  ASSERT_TRUE(epochs);
  EXPECT_EQ(epochs->pruned, 7);
  // 17 (trial 0) + 11 (1) + 19 (3) + 18.5 (6); CPU 17 + 11; GPU 19 * 2 + 18.5 * 1.
  EXPECT_DOUBLE_EQ(epochs->resource_saved, 65.5);
  EXPECT_DOUBLE_EQ(epochs->cpu_resource_saved, 28);
  EXPECT_DOUBLE_EQ(epochs->gpu_resource_saved, 56.5);
}

IntermediateResult StepResult(int trial, int attempt, std::int64_t step, std::string tag) {
  return IntermediateResult{trial, attempt, step, 1700000000.0 + step, Json{{"tag", std::move(tag)}}};
}

std::vector<std::string> Tags(const std::vector<IntermediateResult>& results) {
  std::vector<std::string> tags;
  for (const IntermediateResult& r : results) tags.push_back(r.values.at("tag").get<std::string>());
  return tags;
}

// What an export streams (issue 25): the same rows, in the same order, as the loads.
TEST(TrialQueriesTest, StreamedReadsVisitWhatTheLoadsReturnAndStopAtAVisitsError) {
  ScratchDir dir;
  auto opened = OpenJournal(dir.path() / "gpusweep.db", JournalAccess::kReadWrite);
  ASSERT_TRUE(opened);
  Journal& journal = **opened;
  for (int number : {3, 0, 2, 1})
    ASSERT_TRUE(journal.UpsertTrial(Trial(number, TrialState::kCompleted, number * 0.1, Json{{"x", number}})));
  ASSERT_TRUE(journal.AppendResults({StepResult(2, 2, 0, "2/a2s0"), StepResult(0, 1, 3, "0/a1s3"),
                                     StepResult(2, 1, 5, "2/a1s5"), StepResult(0, 1, 1, "0/a1s1"),
                                     StepResult(9, 1, 0, "no trial 9")}));
  ASSERT_TRUE(journal.AppendResults({StepResult(0, 1, 1, "0/a1s1-again")}));

  std::vector<IntermediateResult> sql, memory;
  auto into = [](std::vector<IntermediateResult>& out) {
    return [&out](const IntermediateResult& r) -> Status {
      out.push_back(r);
      return {};
    };
  };
  ASSERT_TRUE(journal.ForEachResult(into(sql)));
  ASSERT_TRUE(journal.Journal::ForEachResult(into(memory)));
  EXPECT_EQ(Tags(sql), (std::vector<std::string>{"0/a1s1", "0/a1s1-again", "0/a1s3", "2/a1s5", "2/a2s0"}));
  EXPECT_EQ(Tags(sql), Tags(memory));

  for (auto order : {TrialQuery::Order::kNumber, TrialQuery::Order::kNumberDescending,
                     TrialQuery::Order::kObjective}) {
    const TrialQuery query{order, Mode::kMin, std::nullopt, false, 3};
    std::vector<TrialRecord> streamed;
    ASSERT_TRUE(journal.ForEachTrial(query, [&](const TrialRecord& t) -> Status {
      streamed.push_back(t);
      return {};
    }));
    auto loaded = journal.QueryTrials(query);
    ASSERT_TRUE(loaded);
    EXPECT_EQ(Numbers(streamed), Numbers(*loaded));
    EXPECT_EQ(Numbers(streamed), Numbers(*journal.Journal::QueryTrials(query)));
  }

  ASSERT_TRUE(journal.UpsertTrial(Trial(4, TrialState::kFailed, std::nullopt, Json{{"x", 4}})));
  EXPECT_EQ(*journal.TrialNumbers(TrialState::kCompleted), (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(*journal.TrialNumbers(TrialState::kFailed), std::vector<int>{4});
  EXPECT_EQ(*journal.Journal::TrialNumbers(TrialState::kCompleted), (std::vector<int>{0, 1, 2, 3}));
  EXPECT_TRUE(journal.TrialNumbers(TrialState::kRunning)->empty());

  // What a Pareto ranking reads: completed trials only, numbers only (a bool, a string
  // and a missing metric are all absent), the same from SQL as from the default.
  TrialRecord odd = Trial(5, TrialState::kCompleted, 0.5, Json{{"x", 5}});
  odd.last_metrics = Json{{"acc", true}, {"size", "big"}, {"other", 1}};
  ASSERT_TRUE(journal.UpsertTrial(odd));
  TrialRecord fine = Trial(6, TrialState::kCompleted, 0.25, Json{{"x", 6}});
  fine.last_metrics = Json{{"acc", 0.75}, {"size", 12}, {"other", 2}};
  ASSERT_TRUE(journal.UpsertTrial(fine));
  // A number in exponent form is one; a string of digits or an object is not.
  TrialRecord signed_exponent = Trial(7, TrialState::kCompleted, 0.125, Json{{"x", 7}});
  signed_exponent.last_metrics = Json::parse(R"({"acc": -1.5e3, "size": {"n": 1}, "other": "12"})");
  ASSERT_TRUE(journal.UpsertTrial(signed_exponent));
  const double nan = std::numeric_limits<double>::quiet_NaN();
  auto same = [](const std::vector<double>& a, const std::vector<double>& b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
      if (!(a[i] == b[i] || (std::isnan(a[i]) && std::isnan(b[i])))) return false;
    return true;
  };
  for (const auto& rows : {journal.LoadRankingRows({"acc", "size", "other"}),
                           journal.Journal::LoadRankingRows({"acc", "size", "other"})}) {
    ASSERT_TRUE(rows);
    ASSERT_EQ(rows->size(), 7u);
    EXPECT_EQ(rows->metrics, (std::vector<std::string>{"acc", "size", "other"}));
    const std::span<const double> last = rows->row(6);
    EXPECT_TRUE(same({last.begin(), last.end()}, {-1500.0, nan, nan}));
  }
  for (const auto& rows : {journal.LoadRankingRows({"acc", "size"}),
                           journal.Journal::LoadRankingRows({"acc", "size"})}) {
    ASSERT_TRUE(rows);
    EXPECT_EQ(rows->numbers, (std::vector<int>{0, 1, 2, 3, 5, 6, 7}));
    EXPECT_TRUE(same(rows->values, {nan, nan, nan, nan, nan, nan, nan, nan,  // no metrics
                                    nan, nan,                                // true, "big"
                                    0.75, 12.0, -1500.0, nan}));
    EXPECT_EQ(rows->objectives.at(5), 0.25);
    EXPECT_EQ(rows->objectives.at(0), 0.0);
  }

  int visits = 0;
  const Status stopped = journal.ForEachTrial(TrialQuery{}, [&](const TrialRecord&) -> Status {
    if (++visits == 2) return Fail(ErrorCode::kOutputClosed, "the reader went away");
    return {};
  });
  ASSERT_FALSE(stopped);
  EXPECT_EQ(stopped.error().code, ErrorCode::kOutputClosed);
  EXPECT_EQ(visits, 2);
}

// Two passes inside InSnapshot see the same rows while another connection commits.
TEST(TrialQueriesTest, InSnapshotHoldsOneViewWhileAWriterCommits) {
  ScratchDir dir;
  const auto path = dir.path() / "gpusweep.db";
  auto writer = OpenJournal(path, JournalAccess::kReadWrite);
  ASSERT_TRUE(writer);
  ASSERT_TRUE((*writer)->UpsertTrial(Trial(0, TrialState::kCompleted, 1.0, Json{{"x", 0}})));
  auto reader = OpenJournal(path, JournalAccess::kReadOnly);
  ASSERT_TRUE(reader);
  int first = -1, second = -1;
  ASSERT_TRUE((*reader)->InSnapshot([&]() -> Status {
    GS_ASSIGN_OR_RETURN(const TrialCounts before, (*reader)->CountTrials());
    first = before.recorded;
    GS_TRY((*writer)->UpsertTrial(Trial(1, TrialState::kCompleted, 2.0, Json{{"x", 1}})));
    GS_ASSIGN_OR_RETURN(const TrialCounts after, (*reader)->CountTrials());
    second = after.recorded;
    return {};
  }));
  EXPECT_EQ(first, 1);
  EXPECT_EQ(second, 1);  // the commit came after the snapshot began
  auto now = (*reader)->CountTrials();
  ASSERT_TRUE(now);
  EXPECT_EQ(now->recorded, 2);
  // An error inside ends the snapshot too, and is what InSnapshot returns.
  const Status failed = (*reader)->InSnapshot([]() -> Status { return Fail(ErrorCode::kIo, "disk"); });
  ASSERT_FALSE(failed);
  EXPECT_EQ(failed.error().message, "disk");
  EXPECT_TRUE((*reader)->InSnapshot([]() -> Status { return {}; }));  // not left open
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
