#include "importance/importance.h"

#include <random>

#include <gtest/gtest.h>

namespace gpusweep::importance {
namespace {

TrialRecord Completed(int number, Json params, double objective) {
  TrialRecord t;
  t.number = number;
  t.state = TrialState::kCompleted;
  t.params = std::move(params);
  t.objective = objective;
  return t;
}

TEST(ImportanceTest, TheParameterThatDrivesTheObjectiveRanksFirst) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> unit(0, 1);
  std::vector<TrialRecord> trials;
  for (int k = 0; k < 120; ++k) {
    const double lr = unit(rng), wd = unit(rng), dropout = unit(rng);
    trials.push_back(Completed(k, {{"lr", lr}, {"wd", wd}, {"dropout", dropout}},
                               10 * lr * lr + 1 * wd + 0.01 * dropout));
  }
  trials.push_back(Completed(999, {{"lr", 0.5}}, 1.0));  // lacks wd: params need all trials
  trials[0].state = TrialState::kFailed;
  auto importances = FanovaImportances(trials, SearchSpace{});
  ASSERT_TRUE(importances) << importances.error().message;
  ASSERT_EQ(importances->size(), 1u);  // only lr is present in every completed trial
  trials.pop_back();
  importances = FanovaImportances(trials, SearchSpace{});
  ASSERT_TRUE(importances);
  ASSERT_EQ(importances->size(), 3u);
  EXPECT_EQ((*importances)[0].name, "lr");
  EXPECT_EQ((*importances)[1].name, "wd");
  EXPECT_EQ((*importances)[2].name, "dropout");
  double sum = 0;
  for (const auto& p : *importances) sum += p.importance;
  EXPECT_NEAR(sum, 1.0, 1e-9);
  EXPECT_GT((*importances)[0].importance, 0.6);
}

TEST(ImportanceTest, CategoricalParametersAreOneHotEncoded) {
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> unit(0, 1);
  std::vector<TrialRecord> trials;
  const char* optimizers[] = {"sgd", "adam", "rmsprop"};
  for (int k = 0; k < 90; ++k) {
    const int o = k % 3;
    const double lr = unit(rng);
    trials.push_back(Completed(k, {{"opt", optimizers[o]}, {"lr", lr}, {"fixed", 1}},
                               (o == 1 ? 5.0 : 0.0) + 0.1 * lr));
  }
  auto importances = FanovaImportances(trials, SearchSpace{});
  ASSERT_TRUE(importances) << importances.error().message;
  ASSERT_EQ(importances->size(), 2u);  // "fixed" never varies
  EXPECT_EQ((*importances)[0].name, "opt");
}

// A categorical parameter of 60 values is 60 one-hot features: the grid of their split
// cells could have 2^60 cells (serve was OOM-killed at 23 GiB on a NAS run, whose
// architectures are such a parameter). The marginal then comes from the leaves' pairwise
// overlaps, in memory linear in the leaves.
TEST(ImportanceTest, AManyValuedCategoricalParameterIsComputedInBoundedMemory) {
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> unit(0, 1);
  std::vector<TrialRecord> trials;
  for (int k = 0; k < 300; ++k) {
    const double lr = unit(rng);
    const int model = static_cast<int>(rng() % 60);
    trials.push_back(Completed(k, {{"lr", lr}, {"model", "m" + std::to_string(model)}},
                               10 * lr + 0.5 * (model % 2)));
  }
  auto importances = FanovaImportances(trials, SearchSpace{});
  ASSERT_TRUE(importances) << importances.error().message;
  ASSERT_EQ(importances->size(), 2u);
  EXPECT_EQ((*importances)[0].name, "lr");
  EXPECT_GT((*importances)[1].importance, 0.0);
}

TEST(ImportanceTest, AConstantObjectiveGivesZeroImportances) {
  std::vector<TrialRecord> trials;
  for (int k = 0; k < 10; ++k) trials.push_back(Completed(k, {{"x", k}}, 1.0));
  auto importances = FanovaImportances(trials, SearchSpace{});
  ASSERT_TRUE(importances);
  ASSERT_EQ(importances->size(), 1u);
  EXPECT_EQ((*importances)[0].importance, 0.0);
}

}  // namespace
}  // namespace gpusweep::importance
