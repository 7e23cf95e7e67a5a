// scheduler: {type: bohb}: Hyperband's keys plus BOHB's own, the tpe sampler it needs set
// up for it, and what it cannot do refused at its line with what to write.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "config/config_test_util.h"
#include "gpusweep/config.h"

namespace gpusweep {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::StartsWith;

std::string Head(std::string_view sampler = "{type: tpe, trials: 30}",
                 std::string_view metric = "metric: {name: m, mode: max}") {
  return "name: e\n"
         "command: [a, '{{budget}}']\n" +
         std::string(metric) + "\n"
         "sampler: " + std::string(sampler) + "\n"  // line 4
         "search_space:\n"
         "  lr: {type: loguniform, low: 1.0e-4, high: 0.1}\n"
         "  depth: {type: int, low: 1, high: 8}\n"
         "  act: {type: choice, values: [relu, tanh, gelu]}\n"
         "  seed: 7\n";  // line 9
}

constexpr std::string_view kBohb = "scheduler: {type: bohb, max_resource: 27";  // line 10

std::string Bohb(std::string_view extra = "") { return std::string(kBohb) + std::string(extra) + "}\n"; }

TEST(BohbConfigTest, HyperbandKeysAndBohbDefaults) {
  auto config = ParseConfig(Head() + Bohb(), "exp.yaml");
  ASSERT_TRUE(config) << config.error().message;
  const SchedulerConfig& s = config->scheduler;
  EXPECT_EQ(s.kind, SchedulerKind::kBohb);
  EXPECT_EQ(s.max_resource, 27);
  EXPECT_EQ(s.min_resource, 1);
  EXPECT_EQ(s.reduction_factor, 3);
  EXPECT_FALSE(s.brackets);
  EXPECT_DOUBLE_EQ(s.bohb.random_fraction, 1.0 / 3);
  EXPECT_EQ(s.bohb.min_points_in_model, 0);
  // The sampler is set up as BOHB draws: a model once the policy says so, one joint density.
  EXPECT_EQ(config->sampler.tpe.n_startup_trials, 1);
  EXPECT_TRUE(config->sampler.tpe.multivariate);

  auto full = ParseConfig(Head("{type: tpe, trials: 30, multivariate: false}") +
                              Bohb(", min_resource: 3, reduction_factor: 2, brackets: 2, "
                                   "random_fraction: 0.1, min_points_in_model: 6"),
                          "exp.yaml");
  ASSERT_TRUE(full) << full.error().message;
  EXPECT_EQ(full->scheduler.min_resource, 3);
  EXPECT_EQ(full->scheduler.reduction_factor, 2);
  EXPECT_EQ(full->scheduler.brackets, 2);
  EXPECT_DOUBLE_EQ(full->scheduler.bohb.random_fraction, 0.1);
  EXPECT_EQ(full->scheduler.bohb.min_points_in_model, 6);
  EXPECT_FALSE(full->sampler.tpe.multivariate) << "a written multivariate is kept";
}

TEST(BohbConfigTest, BadValuesAreLocatedAndSayWhatToWrite) {
  using config_test::ParseError;
  EXPECT_THAT(ParseError(Head() + Bohb(", random_fraction: 1.5")),
              AllOf(StartsWith("exp.yaml:10:"), HasSubstr("between 0 and 1")));
  EXPECT_THAT(ParseError(Head() + Bohb(", min_points_in_model: 0")), StartsWith("exp.yaml:10:"));
  EXPECT_THAT(ParseError(Head() + Bohb(", brackets: 0")), StartsWith("exp.yaml:10:"));
  EXPECT_THAT(ParseError(Head() + Bohb(", random_fractoin: 0.2")), HasSubstr("random_fraction"));
  // random_fraction belongs to bohb alone.
  EXPECT_THAT(ParseError(Head() + "scheduler: {type: hyperband, max_resource: 27, random_fraction: 0.2}\n"),
              HasSubstr("random_fraction"));
}

TEST(BohbConfigTest, NeedsTpeAndItsOwnStartRule) {
  using config_test::ParseError;
  EXPECT_THAT(ParseError(Head("{type: random, trials: 30}") + Bohb()),
              AllOf(StartsWith("exp.yaml:4:"), HasSubstr("this sampler is random"),
                    HasSubstr("sampler: {type: tpe, trials: 30}"), HasSubstr("hyperband")));
  EXPECT_THAT(ParseError(Head("{type: tpe, trials: 30, n_startup_trials: 5}") + Bohb()),
              AllOf(StartsWith("exp.yaml:4:"), HasSubstr("min_points_in_model")));
  EXPECT_THAT(ParseError(Head("{type: tpe, trials: 30}",
                              "metrics: [{name: m, mode: max}, {name: n, mode: min}]") + Bohb()),
              AllOf(StartsWith("exp.yaml:10:"), HasSubstr("BOHB models one metric")));
  EXPECT_THAT(ParseError(Head() + Bohb() + "constraints: [{metric: mem, max: 3}]\n"),
              HasSubstr("BOHB models one metric"));
}

TEST(BohbConfigTest, OnlyABohbExperimentsIdentityNamesBohb) {
  auto hyperband = ParseConfig(Head() + "scheduler: {type: hyperband, max_resource: 27}\n", "exp.yaml");
  auto bohb = ParseConfig(Head() + Bohb(), "exp.yaml");
  auto other = ParseConfig(Head() + Bohb(", random_fraction: 0.5"), "exp.yaml");
  ASSERT_TRUE(hyperband && bohb && other);
  EXPECT_FALSE(ConfigIdentity(*hyperband)["scheduler"].contains("bohb"));
  EXPECT_EQ(ConfigIdentity(*bohb)["scheduler"]["type"], "bohb");
  EXPECT_FALSE(DiffConfigIdentity(ConfigIdentity(*bohb), ConfigIdentity(*other)).empty());
}

}  // namespace
}  // namespace gpusweep
