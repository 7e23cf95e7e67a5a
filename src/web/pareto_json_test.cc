#include "web/pareto_json.h"

#include <gtest/gtest.h>

namespace gpusweep::web {
namespace {

// n completed trials on two objectives (min), completing in number order: trial k is at
// (k, n - k) for even k, a point the earlier front dominates for odd k.
std::vector<TrialRecord> Trials(int n) {
  std::vector<TrialRecord> trials(static_cast<std::size_t>(n));
  for (int k = 0; k < n; ++k) {
    TrialRecord& t = trials[k];
    t.number = k;
    t.state = TrialState::kCompleted;
    t.end_time = 1.7e9 + k;
    const double f1 = k % 2 ? n : k, f2 = k % 2 ? n : n - k;
    t.objective = f1;
    t.last_metrics = Json{{"f1", f1}, {"f2", f2}};
  }
  return trials;
}

const Objective kTwo(std::vector<MetricSpec>{{"f1", Mode::kMin}, {"f2", Mode::kMin}});

TEST(ParetoJsonTest, AKeepPredicateListsOnlyTheKeptTrialsButCountsThemAll) {
  const std::vector<TrialRecord> trials = Trials(10);
  const Json all = ParetoJson(trials, kTwo, std::vector<double>{20, 20});
  EXPECT_EQ(all["trials"].size(), 10u);
  const Json kept = ParetoJson(trials, kTwo, std::vector<double>{20, 20}, [](int k) { return k < 3; });
  ASSERT_EQ(kept["trials"].size(), 3u);
  for (const Json& t : kept["trials"]) EXPECT_LT(t["trial"].get<int>(), 3);
  EXPECT_EQ(kept["counts"], all["counts"]);
  EXPECT_EQ(kept["counts"], (Json{{"completed", 10}, {"front", 5}, {"infeasible", 0}}));
  EXPECT_EQ(kept["hypervolume"], all["hypervolume"]);  // 10 entries: one per completion
  EXPECT_EQ(all["hypervolume"].size(), 10u);
}

// Past kMaxHypervolumeHistory completions the history keeps its changes and its last
// entry: the same step line.
TEST(ParetoJsonTest, ALongHypervolumeHistoryKeepsOnlyItsChanges) {
  const int n = static_cast<int>(kMaxHypervolumeHistory) + 2;  // even: the last is dominated
  const Json history = ParetoJson(Trials(n), kTwo, std::vector<double>{2.0 * n, 2.0 * n})["hypervolume"];
  ASSERT_EQ(history.size(), static_cast<std::size_t>(n / 2 + 1));  // each even trial, and the last
  for (std::size_t i = 0; i + 1 < history.size(); ++i) {
    EXPECT_EQ(history[i]["trial"], 2 * static_cast<int>(i));
    EXPECT_EQ(history[i]["completed"], 2 * static_cast<int>(i) + 1);
    if (i > 0) {
      EXPECT_GT(history[i]["value"].get<double>(), history[i - 1]["value"].get<double>());
    }
  }
  EXPECT_EQ(history.back()["trial"], n - 1);
  EXPECT_EQ(history.back()["completed"], n);
  EXPECT_EQ(history.back()["value"], history[history.size() - 2]["value"]);
}

}  // namespace
}  // namespace gpusweep::web
