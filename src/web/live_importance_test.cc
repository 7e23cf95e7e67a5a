#include "web/live_importance.h"

#include <atomic>
#include <thread>

#include <gtest/gtest.h>

namespace gpusweep::web {
namespace {

// `n` completed trials whose objective is driven by x alone (y is noise-free filler).
TrialsSnapshot Trials(std::int64_t revision, int n) {
  TrialsSnapshot snapshot{revision, {}};
  for (int k = 0; k < n; ++k) {
    TrialRecord t;
    t.number = k;
    const double x = (k * 7 % n) / static_cast<double>(n), y = (k * 3 % 5) / 5.0;
    t.params = {{"x", x}, {"y", y}};
    t.state = TrialState::kCompleted;
    t.objective = 10 * x * x;
    snapshot.trials.push_back(std::move(t));
  }
  return snapshot;
}

TEST(LiveImportanceTest, FollowsTheTrialsAsTheyFinish) {
  LiveImportance importance({}, std::chrono::milliseconds(0), 0);
  auto first = importance.Get(1, [] { return Trials(1, 20); });
  ASSERT_TRUE(first) << first.error().message;
  EXPECT_EQ((*first)["trials"], 20);
  EXPECT_EQ((*first)["current"], true);
  EXPECT_EQ((*first)["params"][0]["name"], "x");
  auto later = importance.Get(2, [] { return Trials(2, 30); });  // ten more finished
  ASSERT_TRUE(later);
  EXPECT_EQ((*later)["trials"], 30);
  EXPECT_EQ((*later)["revision"], 2);
  EXPECT_EQ((*later)["current"], true);
}

TEST(LiveImportanceTest, AThrottledRecomputationLeavesTheStaleResultMarked) {
  LiveImportance importance({}, std::chrono::hours(1));
  ASSERT_TRUE(importance.Get(1, [] { return Trials(1, 20); }));
  bool asked = false;
  auto stale = importance.Get(2, [&] {
    asked = true;
    return Trials(2, 30);
  });
  ASSERT_TRUE(stale);
  EXPECT_FALSE(asked);  // no forest within the hour
  EXPECT_EQ((*stale)["trials"], 20);
  EXPECT_EQ((*stale)["revision"], 1);
  EXPECT_EQ((*stale)["current"], false);
  auto same = importance.Get(1, [] { return Trials(1, 20); });
  EXPECT_EQ((*same)["current"], true);  // for a page that has only seen revision 1
}

TEST(LiveImportanceTest, ConcurrentFirstRequestsShareOneComputation) {
  LiveImportance importance({});
  std::atomic<int> computations = 0;
  std::vector<std::thread> pages;
  std::atomic<int> answered = 0;
  for (int i = 0; i < 6; ++i)
    pages.emplace_back([&] {
      auto result = importance.Get(1, [&] {
        ++computations;
        return Trials(1, 200);
      });
      if (result && (*result)["current"] == true && (*result)["trials"] == 200) ++answered;
    });
  for (std::thread& page : pages) page.join();
  EXPECT_EQ(computations, 1);
  EXPECT_EQ(answered, 6);
}

}  // namespace
}  // namespace gpusweep::web
