#include "gpusweep/scheduler.h"

#include <gtest/gtest.h>

namespace gpusweep {
namespace {

TEST(RungResources, PowersOfEtaEndAtMax) {
  EXPECT_EQ(RungResources(1, 27, 3), (std::vector<double>{1, 3, 9, 27}));
}

TEST(RungResources, MaxNotAPowerIsAppended) {
  EXPECT_EQ(RungResources(1, 10, 3), (std::vector<double>{1, 3, 9, 10}));
}

TEST(RungResources, MinEqualsMaxIsOneRung) {
  EXPECT_EQ(RungResources(5, 5, 2), (std::vector<double>{5}));
}

TEST(RungResources, NonIntegerEtaAndMin) {
  EXPECT_EQ(RungResources(0.5, 4, 2), (std::vector<double>{0.5, 1, 2, 4}));
}

TEST(RoundBudgets, GeometricIsRungResources) {
  SchedulerConfig config;
  config.min_resource = 1;
  config.max_resource = 16;
  config.reduction_factor = 2;
  EXPECT_EQ(RoundBudgets(config), (std::vector<double>{1, 2, 4, 8, 16}));
}

TEST(RoundBudgets, LinearAddsTheStepAndCapsAtMax) {
  SchedulerConfig config;
  config.growth = BudgetGrowth::kLinear;
  config.min_resource = 2;
  config.max_resource = 9;
  config.budget_step = 3;
  EXPECT_EQ(RoundBudgets(config), (std::vector<double>{2, 5, 8, 9}));
  config.max_resource = 8;
  EXPECT_EQ(RoundBudgets(config), (std::vector<double>{2, 5, 8}));
}

TEST(ToStringVerdict, NamesEachVerdict) {
  EXPECT_EQ(ToString(Verdict::kContinue), "continue");
  EXPECT_EQ(ToString(Verdict::kStop), "stop");
  EXPECT_EQ(ToString(Verdict::kPause), "pause");
  EXPECT_EQ(ToString(Verdict::kPromote), "promote");
  EXPECT_EQ(ToString(Verdict::kComplete), "complete");
}

}  // namespace
}  // namespace gpusweep
