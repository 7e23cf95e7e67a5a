// The tree-structured TPE (tpe_tree.h): each leaf fitted only from the trials that had it.
#include "search/tpe_tree.h"

#include <cmath>
#include <limits>

#include <gtest/gtest.h>

#include "gpusweep/sampler.h"
#include "search/param_specs_for_tests.h"

namespace gpusweep {
namespace {

using namespace test_support;

ParamSpec When(ParamSpec p, std::string param, std::vector<Json> values) {
  p.when.push_back(ParamCondition{std::move(param), std::move(values), 0});
  return p;
}

// branch a: x in [0, 1]; branch b: y in [0, 1].
SearchSpace TwoBranches() {
  SearchSpace s;
  s.params = {Choice("branch", {"a", "b"}),
              When(Real("x", ParamKind::kUniform, 0, 1), "branch", {"a"}),
              When(Real("y", ParamKind::kUniform, 0, 1), "branch", {"b"})};
  return s;
}

TrialRecord Done(int number, Params params, double objective) {
  TrialRecord t;
  t.number = number;
  t.params = std::move(params);
  t.state = TrialState::kCompleted;
  t.objective = objective;
  return t;
}

TEST(TreeTpe, ActiveRowsKeepOnlyTrialsWhereEveryDimWasActive) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const search::Columns columns{{0, 1, 0, 1}, {0.5, nan, 0.25, nan}, {nan, 0.75, nan, 0.125}};
  EXPECT_EQ(search::ActiveRows(columns, {1}), (search::Columns{{0.5, 0.25}}));
  EXPECT_EQ(search::ActiveRows(columns, {0, 2}), (search::Columns{{1, 1}, {0.75, 0.125}}));
  EXPECT_EQ(search::ActiveRows(columns, {1, 2}), (search::Columns{{}, {}}));
  // Multi-objective TPE's weights follow the rows kept; none given stays none.
  EXPECT_EQ(search::ActiveWeights(columns, {2}, {0.1, 0.2, 0.3, 0.4}), (std::vector<double>{0.2, 0.4}));
  EXPECT_TRUE(search::ActiveWeights(columns, {2}, {}).empty());
}

TEST(TreeTpe, HistoryMarksInactiveLeavesInsteadOfDroppingTrials) {
  const search::TpeSpace space(TwoBranches());
  const std::vector<TrialRecord> history{Done(0, {{"branch", "a"}, {"x", 0.5}}, 1),
                                         Done(1, {{"branch", "b"}, {"y", 0.25}}, 2)};
  const search::TpeGroups groups =
      search::SplitHistory(history, 2, space, Mode::kMin, search::RunningTrials::kIgnore);
  EXPECT_EQ(groups.scored, 2);  // neither trial is dropped for lacking a leaf
  ASSERT_EQ(groups.below[1].size(), 1u);
  EXPECT_EQ(groups.below[1][0], 0.5);       // trial 0 (the better one) had x
  EXPECT_TRUE(std::isnan(groups.below[2][0]));  // ... and not y
}

// Branch a is good near x = 0.9; every trial of branch b is worse than every one of a,
// and its y values sit near 0.9 too. A tree-structured TPE fits x from branch a's trials
// alone, so it proposes branch a with x near 0.9. A TPE that needs every leaf in a trial
// has no usable trial here (it would draw at random), and one that filled inactive leaves
// with a default would see branch b's many "bad" trials at that default.
TEST(TreeTpe, FitsEachLeafOnlyFromTheTrialsThatHadIt) {
  SamplerConfig config;
  config.kind = SamplerKind::kTpe;
  config.trials = 100;
  config.seed = 11;
  for (const bool multivariate : {false, true}) {
    config.tpe.multivariate = multivariate;
    auto sampler = MakeSampler(config, TwoBranches(), Mode::kMin);
    ASSERT_TRUE(sampler) << sampler.error().message;
    std::vector<TrialRecord> history;
    for (int i = 0; i < 40; ++i) {
      const double u = (i + 0.5) / 40;
      if (i % 2 == 0)
        history.push_back(Done(i, {{"branch", "a"}, {"x", u}}, (u - 0.9) * (u - 0.9)));
      else
        history.push_back(Done(i, {{"branch", "b"}, {"y", 0.8 + 0.2 * u}}, 10 + u));
    }
    for (int k = 40; k < 50; ++k) {
      const Params p = (*sampler)->Suggest(k, history).params;
      ASSERT_EQ(p.at("branch"), "a") << p.dump();
      EXPECT_FALSE(p.contains("y")) << p.dump();
      EXPECT_NEAR(p.at("x").get<double>(), 0.9, 0.15) << p.dump();
    }
  }
}

TEST(TreeTpe, LeafSeenOnlyInBadTrialsIsDrawnAwayFromThem) {
  // Every trial of branch a is bad, with x near 0.1; branch b is good. Forcing branch a
  // (a single-value branch choice would be fixed), check x's density: l is the prior
  // (no good trial had x), g is concentrated at 0.1, so x lands away from 0.1.
  SearchSpace s;
  s.params = {Choice("branch", {"a"}), When(Real("x", ParamKind::kUniform, 0, 1), "branch", {"a"}),
              Real("z", ParamKind::kUniform, 0, 1)};
  SamplerConfig config;
  config.kind = SamplerKind::kTpe;
  config.trials = 100;
  config.seed = 5;
  auto sampler = MakeSampler(config, s, Mode::kMin);
  ASSERT_TRUE(sampler);
  std::vector<TrialRecord> history;
  for (int i = 0; i < 30; ++i) {
    const double u = (i + 0.5) / 30;
    if (i < 10) history.push_back(Done(i, {{"branch", "a"}, {"x", 0.05 + 0.1 * u}, {"z", u}}, 10));
    else history.push_back(Done(i, {{"branch", "b"}, {"z", u}}, u));  // an older branch "b"
  }
  int far = 0;
  for (int k = 30; k < 50; ++k) far += (*sampler)->Suggest(k, history).params.at("x") > 0.25;
  EXPECT_GE(far, 17);
}

}  // namespace
}  // namespace gpusweep
