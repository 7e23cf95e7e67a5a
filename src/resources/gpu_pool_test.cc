#include <random>
#include <set>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "gpusweep/resources.h"

namespace gpusweep {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

TEST(GpuPoolTest, HandsOutLowestFreeGpusExclusively) {
  GpuPool pool({3, 1, 2, 0});
  EXPECT_EQ(pool.total(), 4);
  EXPECT_EQ(pool.free_count(), 4);
  EXPECT_THAT(pool.TryAcquire(2), ::testing::Optional(ElementsAre(0, 1)));
  EXPECT_THAT(pool.TryAcquire(2), ::testing::Optional(ElementsAre(2, 3)));
  EXPECT_EQ(pool.free_count(), 0);
  EXPECT_EQ(pool.TryAcquire(1), std::nullopt);  // all busy: the caller waits
}

TEST(GpuPoolTest, WaitsUntilEnoughAreReleased) {
  GpuPool pool({0, 1, 2, 3});
  ASSERT_TRUE(pool.TryAcquire(1, 7));  // 0
  ASSERT_TRUE(pool.TryAcquire(1, 8));  // 1
  ASSERT_TRUE(pool.TryAcquire(1, 9));  // 2
  EXPECT_EQ(pool.TryAcquire(2, 10), std::nullopt);
  EXPECT_EQ(pool.free_count(), 1);  // a failed acquire takes nothing
  pool.Release(8, 0);  // without memory readings: free at once
  EXPECT_FALSE(pool.Waiting());
  EXPECT_THAT(pool.TryAcquire(2, 10), ::testing::Optional(ElementsAre(1, 3)));
  EXPECT_EQ(pool.free_count(), 0);
}

TEST(GpuPoolTest, ZeroGpusAlwaysSucceedsAndNegativeNever) {
  GpuPool pool({5});
  ASSERT_TRUE(pool.TryAcquire(1));
  EXPECT_THAT(pool.TryAcquire(0), ::testing::Optional(IsEmpty()));
  EXPECT_EQ(pool.TryAcquire(-1), std::nullopt);
  EXPECT_EQ(pool.TryAcquire(2), std::nullopt);
}

TEST(GpuPoolTest, BogusReleasesKeepCountsRight) {
  GpuPool pool({0, 1, 0});  // duplicate dropped
  EXPECT_EQ(pool.total(), 2);
  ASSERT_THAT(pool.TryAcquire(1, 3), ::testing::Optional(ElementsAre(0)));
  EXPECT_EQ(pool.Release(7, 0), std::nullopt);  // trial 7 holds nothing
  EXPECT_EQ(pool.free_count(), 1);
  pool.Release(3, 0);
  EXPECT_EQ(pool.free_count(), 2);
  pool.Release(3, 0);  // the second release is ignored
  EXPECT_EQ(pool.free_count(), 2);
  EXPECT_THAT(pool.TryAcquire(2, 4), ::testing::Optional(ElementsAre(0, 1)));
}

// Random acquires and releases: a GPU is never handed to two holders at once, and
// free + held always equals total.
TEST(GpuPoolTest, NeverHandsABusyGpuTwice) {
  GpuPool pool({0, 1, 2, 3, 4, 5, 6, 7});
  std::mt19937 rng(12345);
  std::vector<std::pair<int, std::vector<int>>> holders;  // trial, its GPUs
  std::set<int> held;
  for (int step = 0; step < 5000; ++step) {
    if (!holders.empty() && rng() % 2 == 0) {
      const std::size_t victim = rng() % holders.size();
      for (int gpu : holders[victim].second) held.erase(gpu);
      pool.Release(holders[victim].first, step);
      holders.erase(holders.begin() + static_cast<std::ptrdiff_t>(victim));
    } else {
      const int count = static_cast<int>(rng() % 4);
      std::optional<std::vector<int>> got = pool.TryAcquire(count, step);
      ASSERT_EQ(got.has_value(), count <= 8 - static_cast<int>(held.size()));
      if (!got) continue;
      ASSERT_EQ(static_cast<int>(got->size()), count);
      for (int gpu : *got) ASSERT_TRUE(held.insert(gpu).second) << "GPU " << gpu << " twice";
      holders.emplace_back(step, *got);
    }
    ASSERT_EQ(pool.free_count() + static_cast<int>(held.size()), pool.total());
  }
}

TEST(CheckGpuDemandTest, AcceptsDemandThatFits) {
  EXPECT_TRUE(CheckGpuDemand({1, 2, 1}, 2));
  EXPECT_TRUE(CheckGpuDemand({0, 0}, 0));
  EXPECT_TRUE(CheckGpuDemand({}, 0));
}

TEST(CheckGpuDemandTest, NamesTheFirstTrialThatCannotFit) {
  Status status = CheckGpuDemand({1, 4, 8}, 2);
  ASSERT_FALSE(status);
  EXPECT_EQ(status.error().code, ErrorCode::kResource);
  EXPECT_EQ(status.error().message,
            "trial 1 needs 4 GPUs but only 2 are available; lower gpus_per_trial or add GPUs");
}

TEST(CheckGpuDemandTest, SingleCountMeansEveryTrial) {
  Status status = CheckGpuDemand({2}, 1);
  ASSERT_FALSE(status);
  EXPECT_EQ(status.error().message,
            "each trial needs 2 GPUs but only 1 is available; lower gpus_per_trial or add GPUs");
  status = CheckGpuDemand({1}, 0);
  ASSERT_FALSE(status);
  EXPECT_EQ(status.error().message,
            "each trial needs 1 GPU but only 0 are available; lower gpus_per_trial or add GPUs");
}

TEST(CheckGpuDemandTest, RejectsNegativeCounts) {
  Status status = CheckGpuDemand({1, -1}, 4);
  ASSERT_FALSE(status);
  EXPECT_EQ(status.error().code, ErrorCode::kInvalidArgument);
}

}  // namespace
}  // namespace gpusweep
