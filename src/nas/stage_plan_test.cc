#include "nas/stage_plan.h"

#include <gtest/gtest.h>

namespace gpusweep::nas {
namespace {

NasConfig SeedConfig() {
  NasConfig config;
  config.blocks = 2;
  config.samples_per_round = 2;
  config.winner_samples = 4;
  config.data_size = NasDataSize{DataSchedule::kLinear, 2000, 2000, 2, std::nullopt};
  config.confirm_data_size = 20000;
  config.epochs = NasEpochs{1, 3, 10};
  return config;
}

TEST(StagePlanTest, FifteenTopologiesHalveToOne) {
  const StagePlan plan = MakeStagePlan(SeedConfig(), 15);
  EXPECT_EQ(plan.survivors, (std::vector<int>{15, 8, 4, 2}));
  EXPECT_EQ(plan.rounds, 4);
  // Per block 15 + 16 + 8 + 4 (rounds) + 4 (winner) + 1 (confirm); one retrain.
  EXPECT_EQ(plan.slots.size(), 2u * 48 + 1);
  EXPECT_EQ(plan.slots.back().stage, Stage::kRetrain);
  EXPECT_EQ(plan.slots.back().block, 2);
  EXPECT_EQ(plan.groups, 2 * 6 + 1);
}

TEST(StagePlanTest, LinearDataSizeGrowsPerRoundAndRestartsEveryBlock) {
  const StagePlan plan = MakeStagePlan(SeedConfig(), 15);
  for (const Slot& slot : plan.slots) {
    if (slot.stage == Stage::kRound) {
      EXPECT_EQ(slot.data_size, 2000 * slot.round);
    }
    if (slot.stage == Stage::kWinner) {
      EXPECT_EQ(slot.data_size, 10000);  // round 5's
    }
    if (slot.stage == Stage::kConfirm) {
      EXPECT_EQ(slot.data_size, 20000);
    }
    if (slot.stage == Stage::kRetrain) {
      EXPECT_EQ(slot.data_size, 0);
    }
    EXPECT_EQ(slot.epochs, slot.stage == Stage::kConfirm   ? 3
                           : slot.stage == Stage::kRetrain ? 10
                                                           : 1);
  }
  // Block 2's round 1 is back at init (the seed's data size never reset).
  EXPECT_EQ(plan.slots[48].block, 2);
  EXPECT_EQ(plan.slots[48].round, 1);
  EXPECT_EQ(plan.slots[48].data_size, 2000);
}

TEST(StagePlanTest, GeometricScheduleAndCap) {
  NasDataSize geometric{DataSchedule::kGeometric, 1000, 0, 3, 20000};
  EXPECT_EQ(RoundDataSize(geometric, 1), 1000);
  EXPECT_EQ(RoundDataSize(geometric, 2), 3000);
  EXPECT_EQ(RoundDataSize(geometric, 3), 9000);
  EXPECT_EQ(RoundDataSize(geometric, 4), 20000);  // 27000 capped
  NasDataSize linear{DataSchedule::kLinear, 500, 250, 2, std::nullopt};
  EXPECT_EQ(RoundDataSize(linear, 3), 1000);
}

TEST(StagePlanTest, GroupsIncreaseAndOneTopologyHasNoRounds) {
  NasConfig config = SeedConfig();
  config.blocks = 1;
  const StagePlan plan = MakeStagePlan(config, 1);
  EXPECT_EQ(plan.rounds, 0);
  ASSERT_EQ(plan.slots.size(), 4u + 1 + 1);
  EXPECT_EQ(plan.slots[0].stage, Stage::kWinner);
  EXPECT_EQ(plan.slots[0].data_size, 2000);
  for (std::size_t k = 1; k < plan.slots.size(); ++k)
    EXPECT_GE(plan.slots[k].group, plan.slots[k - 1].group);
}

TEST(StagePlanTest, OddCountsEliminateTheFloorOfHalf) {
  NasConfig config = SeedConfig();
  EXPECT_EQ(MakeStagePlan(config, 5).survivors, (std::vector<int>{5, 3, 2}));
  EXPECT_EQ(MakeStagePlan(config, 2).survivors, (std::vector<int>{2}));
}

}  // namespace
}  // namespace gpusweep::nas
