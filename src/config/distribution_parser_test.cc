// Our own spelling of the distribution block: normal / lognormal (mu, sigma, bounds),
// q and clip, a choice's weights; errors name file:line, the key and what to write.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

#include <fmt/format.h>

#include "config/config_test_util.h"
#include "gpusweep/config.h"

namespace gpusweep {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::StartsWith;
using config_test::FirstParamOf;
using config_test::SpaceErrorOf;

constexpr std::string_view kHead = config_test::kSearchSpaceHead;

std::string ErrorUnder(std::string_view sampler, std::string_view space) {
  return config_test::ParseError(fmt::format(
      "name: e\ncommand: [a]\nmetric: {{name: m, mode: max}}\nsampler: {}\nsearch_space:\n{}",
      sampler, space));
}

TEST(DistributionParserTest, NormalAndLogNormal) {
  ParamSpec n = FirstParamOf("  x: {type: normal, mu: 1, sigma: 0.5}\n");
  EXPECT_EQ(n.kind, ParamKind::kNormal);
  EXPECT_EQ(n.mu, 1);
  EXPECT_EQ(n.sigma, 0.5);
  EXPECT_TRUE(std::isinf(n.low) && n.low < 0);
  EXPECT_TRUE(std::isinf(n.high) && n.high > 0);
  ParamSpec t = FirstParamOf("  x: {type: normal, mu: 0, sigma: 1, low: -1, high: 2, q: 0.5}\n");
  EXPECT_EQ(t.low, -1);
  EXPECT_EQ(t.high, 2);
  EXPECT_EQ(t.q, 0.5);
  ParamSpec l = FirstParamOf("  lr: {type: lognormal, mu: -7, sigma: 1, high: 0.1}\n");
  EXPECT_EQ(l.kind, ParamKind::kLogNormal);
  EXPECT_EQ(l.low, 0);
  EXPECT_EQ(l.high, 0.1);
  EXPECT_THAT(SpaceErrorOf("  x: {type: normal, mu: 0, sigma: 0}\n"),
              StartsWith("exp.yaml:6:35: search_space.x.sigma: sigma must be > 0, found 0"));
  EXPECT_THAT(SpaceErrorOf("  x: {type: lognormal, low: -1}\n"),
              HasSubstr("search_space.x.low: a log-normal value is > 0"));
  EXPECT_THAT(SpaceErrorOf("  x: {type: normal, low: 2, high: 1}\n"),
              HasSubstr("high (1) must be greater than low (2)"));
  EXPECT_THAT(SpaceErrorOf("  x: {type: normal, mean: 0}\n"),
              HasSubstr("unknown key 'mean'"));
}

TEST(DistributionParserTest, RoundingAndClip) {
  ParamSpec u = FirstParamOf("  x: {type: uniform, low: 1, high: 10, q: 3, clip: true}\n");
  EXPECT_EQ(u.q, 3);
  EXPECT_TRUE(u.q_clip);
  EXPECT_THAT(SpaceErrorOf("  x: {type: uniform, low: 1, high: 10, q: 0}\n"),
              StartsWith("exp.yaml:6:43: search_space.x.q: q must be > 0, found 0"));
  EXPECT_THAT(SpaceErrorOf("  x: {type: uniform, low: 1, high: 10, clip: true}\n"),
              HasSubstr("search_space.x.clip: clip: true clamps a value rounded to q"));
  EXPECT_THAT(SpaceErrorOf("  x: {type: int, low: 1, high: 10, step: 2, q: 3}\n"),
              AllOf(HasSubstr("search_space.x.q: give step or q, not both"),
                    HasSubstr("keep step: 2 (values from low) or q: 3 (multiples of q)")));
  // Identity: the new keys only where used.
  auto config = config_test::ParseAfter(kHead, "  x: {type: uniform, low: 1, high: 10, q: 3}\n"
                                               "  y: {type: uniform, low: 1, high: 10}\n");
  ASSERT_TRUE(config);
  EXPECT_EQ(ConfigIdentity(*config)["search_space"]["x"]["q"], 3.0);
  EXPECT_FALSE(ConfigIdentity(*config)["search_space"]["y"].contains("q"));
  // An unbounded normal's identity survives a round trip through JSON text (resume).
  auto normal = config_test::ParseAfter(kHead, "  x: {type: normal, mu: 0, sigma: 1}\n");
  ASSERT_TRUE(normal);
  const Json identity = ConfigIdentity(*normal);
  EXPECT_EQ(Json::parse(identity.dump()), identity);
  EXPECT_TRUE(identity["search_space"]["x"]["low"].is_null());
}

TEST(DistributionParserTest, Weights) {
  ParamSpec c =
      FirstParamOf("  opt: {type: choice, values: [a, b, c], weights: [0.5, 0.25, 0.25]}\n");
  EXPECT_EQ(c.weights, (std::vector<double>{0.5, 0.25, 0.25}));
  EXPECT_THAT(SpaceErrorOf("  opt: {type: choice, values: [a, b], weights: [1]}\n"),
              AllOf(StartsWith("exp.yaml:6:48: search_space.opt.weights: 1 weights for 2 values"),
                    HasSubstr("give one weight per value")));
  EXPECT_THAT(SpaceErrorOf("  opt: {type: choice, values: [a, b], weights: [0.5, 0.6]}\n"),
              HasSubstr("the weights sum to 1.1, not 1"));
  EXPECT_THAT(SpaceErrorOf("  opt: {type: choice, values: [a, b], weights: [1.5, -0.5]}\n"),
              HasSubstr("a weight must be >= 0, found -0.5"));
}

TEST(DistributionParserTest, SamplersRefuseWhatTheyCannotHonourAtItsLine) {
  EXPECT_THAT(ErrorUnder("{type: grid}", "  x: {type: normal, mu: 0, sigma: 1}\n"),
              AllOf(StartsWith("exp.yaml:6:13: search_space.x.type: the grid sampler cannot "
                               "enumerate a continuous normal parameter"),
                    HasSubstr("write type: choice with the values to try")));
  EXPECT_THAT(ErrorUnder("{type: grid}", "  x: {type: uniform, low: 1, high: 10, q: 3}\n"),
              HasSubstr("write x: {type: choice, values: [0, 3, 6, 9]}"));
  EXPECT_THAT(ErrorUnder("{type: grid}", "  x: {type: uniform, low: 1, high: 10, q: 3, clip: true}\n"),
              HasSubstr("write x: {type: choice, values: [1, 3, 6, 9]}"));
  EXPECT_THAT(ErrorUnder("{type: grid}", "  x: {values: [a, b], weights: [0.5, 0.5]}\n"),
              HasSubstr("search_space.x.weights: the grid sampler runs every value once"));
  EXPECT_THAT(ErrorUnder("{type: tpe, trials: 5}", "  x: {values: [a, b], weights: [0.5, 0.5]}\n"),
              AllOf(StartsWith("exp.yaml:6:32: search_space.x.weights: this sampler's model of "
                               "a choice has no place for weights"),
                    HasSubstr("use sampler type: random or sobol, which draw by them (or evolution, with one objective)")));
  EXPECT_EQ(ErrorUnder("{type: evolution, trials: 5}", "  x: {values: [a, b], weights: [0.5, 0.5]}\n"),
            "<parsed without error>");
  EXPECT_EQ(ErrorUnder("{type: cmaes, trials: 5}", "  x: {type: normal, mu: 0, sigma: 1}\n"),
            "<parsed without error>");
}

}  // namespace
}  // namespace gpusweep
