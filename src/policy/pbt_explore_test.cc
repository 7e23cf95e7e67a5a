// PBT's explore step: bounds, int and choice moves, resampling, determinism.
#include "policy/pbt_explore.h"

#include <gtest/gtest.h>

#include "search/param_specs_for_tests.h"

namespace gpusweep {
namespace {

using test_support::Choice;
using test_support::Constant;
using test_support::Int;
using test_support::Real;

SearchSpace Space() {
  return SearchSpace{{Real("lr", ParamKind::kLogUniform, 1e-4, 1e-1),
                      Real("momentum", ParamKind::kUniform, 0.5, 0.99), Int("layers", 1, 9, 2),
                      Choice("act", {"relu", "tanh", "gelu"}), Constant("seed", 7)}};
}

std::unique_ptr<Sampler> Resampler(const SearchSpace& space) {
  SamplerConfig config;
  config.kind = SamplerKind::kRandom;
  config.trials = 1000;
  config.seed = 5;
  auto sampler = MakeSampler(config, space, Mode::kMax);
  EXPECT_TRUE(sampler.has_value());
  return std::move(*sampler);
}

PbtConfig NoResample() {
  PbtConfig pbt;
  pbt.resample_probability = 0;
  return pbt;
}

TEST(PbtExploreTest, NumbersAreMultipliedByAFactorAndStayInsideTheirBounds) {
  const SearchSpace space = Space();
  const auto resampler = Resampler(space);
  const Params donor{{"lr", 0.09}, {"momentum", 0.6}, {"layers", 5}, {"act", "tanh"}, {"seed", 7}};
  std::mt19937_64 rng(1);
  for (int draw = 0; draw < 200; ++draw) {
    const Explored out = PbtExplore(NoResample(), space, donor, *resampler, draw, rng);
    const double lr = out.params["lr"].get<double>();
    EXPECT_TRUE(lr == 0.1 || std::abs(lr - 0.09 * 0.8) < 1e-12) << lr;  // 0.108 is clamped
    const double momentum = out.params["momentum"].get<double>();
    EXPECT_TRUE(momentum == 0.5 || std::abs(momentum - 0.72) < 1e-12) << momentum;  // 0.48 clamped
    const std::int64_t layers = out.params["layers"].get<std::int64_t>();
    EXPECT_TRUE(layers == 3 || layers == 7) << layers;  // 4 and 6 snap to the step grid 1,3,..9
    EXPECT_TRUE(out.params["layers"].is_number_integer());
    EXPECT_EQ(out.params["act"].get<std::string>() == "tanh", false);  // moved to a neighbour
    EXPECT_EQ(out.params["seed"], 7);
    EXPECT_EQ(out.changes.size(), 4u);
  }
}

TEST(PbtExploreTest, ASmallIntStillMovesAndAChoiceAtAnEndTakesItsOnlyNeighbour) {
  const SearchSpace space{{Int("k", 1, 3), Choice("c", {1, 2, 3})}};
  const auto resampler = Resampler(space);
  std::mt19937_64 rng(2);
  PbtConfig pbt = NoResample();
  pbt.factors = {1.2};  // 1 * 1.2 rounds back to 1: it moves one step up
  const Explored up = PbtExplore(pbt, space, Params{{"k", 1}, {"c", 1}}, *resampler, 0, rng);
  EXPECT_EQ(up.params["k"], 2);
  EXPECT_EQ(up.params["c"], 2);
  pbt.factors = {0.8};
  const Explored down = PbtExplore(pbt, space, Params{{"k", 1}, {"c", 3}}, *resampler, 0, rng);
  EXPECT_EQ(down.params["k"], 1);  // already at the lower bound
  EXPECT_EQ(down.params["c"], 2);
  pbt.factors = {100};
  EXPECT_EQ(PbtExplore(pbt, space, Params{{"k", 2}, {"c", 2}}, *resampler, 0, rng).params["k"], 3);
}

TEST(PbtExploreTest, ResamplingDrawsFromTheSpaceAndMutationsLimitWhatChanges) {
  const SearchSpace space = Space();
  const auto resampler = Resampler(space);
  const Params donor{{"lr", 0.001}, {"momentum", 0.9}, {"layers", 3}, {"act", "relu"}, {"seed", 7}};
  PbtConfig always;
  always.resample_probability = 1;
  always.mutations = {"lr"};
  std::mt19937_64 rng(3);
  const Explored out = PbtExplore(always, space, donor, *resampler, 42, rng);
  EXPECT_EQ(out.params["lr"], resampler->Suggest(42, {}).params["lr"]);
  EXPECT_EQ(out.changes.at(0).how, "resampled");
  EXPECT_EQ(out.params["momentum"], 0.9);  // not a mutation: the donor's
  EXPECT_EQ(out.params["act"], "relu");
  ASSERT_EQ(out.changes.size(), 1u);
  EXPECT_NE(DescribeChanges(out.changes).find("lr 0.001 -> "), std::string::npos);
}

TEST(PbtExploreTest, TheSameStreamGivesTheSameParams) {
  const SearchSpace space = Space();
  const auto resampler = Resampler(space);
  const Params donor{{"lr", 0.01}, {"momentum", 0.7}, {"layers", 5}, {"act", "tanh"}, {"seed", 7}};
  std::mt19937_64 a(9), b(9);
  for (int draw = 0; draw < 20; ++draw)
    EXPECT_EQ(PbtExplore(PbtConfig{}, space, donor, *resampler, draw, a).params,
              PbtExplore(PbtConfig{}, space, donor, *resampler, draw, b).params);
}

}  // namespace
}  // namespace gpusweep
