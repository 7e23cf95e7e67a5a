// enqueue, warm_start and max_failures in the YAML: parsed, validated against the search
// space, and located errors when wrong.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "config/config_test_util.h"
#include "gpusweep/config.h"

namespace gpusweep {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

constexpr std::string_view kHead =
    "name: e\n"
    "command: [a]\n"
    "metric: {name: m, mode: max}\n"
    "sampler: {type: tpe, trials: 3}\n"
    "search_space:\n"
    "  lr: {type: loguniform, low: 1.0e-4, high: 0.1}\n"
    "  depth: {type: int, low: 2, high: 8, step: 2}\n"
    "  opt: {type: choice, values: [sgd, adam]}\n"
    "  epochs: 3\n";

Expected<ExperimentConfig> Parse(std::string_view rest) { return config_test::ParseAfter(kHead, rest); }
std::string ErrorOf(std::string_view rest) { return config_test::ParseErrorAfter(kHead, rest); }

TEST(SeedingParserTest, EnqueueIsValidatedAgainstTheSearchSpace) {
  auto config = Parse("enqueue:\n  - {lr: 0.01, depth: 4.0}\n  - {opt: adam, epochs: 3}\n");
  ASSERT_TRUE(config) << config.error().message;
  ASSERT_EQ(config->sampler.enqueue.size(), 2u);
  EXPECT_EQ(config->sampler.enqueue[0].dump(), R"({"lr":0.01,"depth":4})");  // as params give it
  EXPECT_EQ(config->sampler.enqueue[1].dump(), R"({"opt":"adam","epochs":3})");

  EXPECT_THAT(ErrorOf("enqueue:\n  - {lr: 0.5}\n"),
              StartsWith("exp.yaml:11:10: enqueue[0].lr: 0.5 is outside [0.0001, 0.1]; give a "
                         "value search_space.lr (line 6) allows, or leave it out"));
  EXPECT_THAT(ErrorOf("enqueue:\n  - {depth: 3}\n"),
              HasSubstr("enqueue[0].depth: 3 is not on the step: 2, 4, ... by 2"));
  EXPECT_THAT(ErrorOf("enqueue:\n  - {opt: rmsprop}\n"),
              HasSubstr("enqueue[0].opt: \"rmsprop\" is not one of the values"));
  EXPECT_THAT(ErrorOf("enqueue:\n  - {epochs: 4}\n"),
              HasSubstr("enqueue[0].epochs: 4 differs from the constant 3"));
  EXPECT_THAT(ErrorOf("enqueue:\n  - {lrr: 0.01}\n"),
              StartsWith("exp.yaml:11:6: enqueue[0].lrr: 'lrr' is not a search-space parameter; "
                         "did you mean 'lr'?; the search space has: lr, depth, opt, epochs"));
  EXPECT_THAT(ErrorOf("enqueue: [{lr: 0.01}, {lr: 0.02}, {lr: 0.03}, {lr: 0.04}]\n"),
              HasSubstr("4 settings are enqueued but sampler.trials is 3; enqueued settings count "
                        "toward trials"));
}

TEST(SeedingParserTest, WarmStartIsForLearningSamplersAndResolvesAgainstTheConfigDirectory) {
  auto config = ParseConfig(std::string(kHead) + "warm_start: {from: runs/first}\n",
                            "/tmp/sweeps/exp.yaml");
  ASSERT_TRUE(config) << config.error().message;
  ASSERT_TRUE(config->warm_start);
  EXPECT_EQ(config->warm_start->from, "/tmp/sweeps/runs/first");
  EXPECT_EQ(config->warm_start->line, 10);
  std::string random(kHead);
  random.replace(random.find("type: tpe"), 9, "type: random");
  auto refused = ParseConfig(random + "warm_start: {from: runs/first}\n", "exp.yaml");
  ASSERT_FALSE(refused);
  EXPECT_THAT(refused.error().message,
              StartsWith("exp.yaml:10:13: warm_start: only the tpe, cmaes, evolution and gp "
                         "samplers learn from earlier trials"));
  for (const char* learner : {"type: cmaes", "type: evolution", "type: gp"}) {
    std::string other(kHead);
    other.replace(other.find("type: tpe"), 9, learner);
    const std::string choice = "{type: choice, values: [sgd, adam]}";
    other.replace(other.find(choice), choice.size(), "adam");  // cmaes refuses choices
    auto accepted = ParseConfig(other + "warm_start: {from: runs/first}\n", "exp.yaml");
    EXPECT_TRUE(accepted) << learner << ": " << (accepted ? "" : accepted.error().message);
  }
  EXPECT_THAT(ErrorOf("warm_start: {form: runs/first}\n"), HasSubstr("did you mean 'from'?"));
}

TEST(SeedingParserTest, WarmStartDefaultsAreValidatedAgainstTheSearchSpace) {
  auto config = Parse("warm_start:\n  from: runs/first\n  defaults: {opt: adam, depth: 4}\n");
  ASSERT_TRUE(config) << config.error().message;
  EXPECT_EQ(config->warm_start->defaults.dump(), R"({"opt":"adam","depth":4})");
  EXPECT_TRUE(Parse("warm_start: {from: runs/first}\n")->warm_start->defaults.empty());
  EXPECT_THAT(ErrorOf("warm_start:\n  from: runs/first\n  defaults: {dpeth: 4}\n"),
              StartsWith("exp.yaml:12:14: warm_start.defaults.dpeth: 'dpeth' is not a "
                         "search-space parameter; did you mean 'depth'?"));
  EXPECT_THAT(ErrorOf("warm_start:\n  from: runs/first\n  defaults: {opt: rmsprop}\n"),
              StartsWith("exp.yaml:12:19: warm_start.defaults.opt: \"rmsprop\" is not one of the "
                         "values; give a value search_space.opt (line 8) allows, or leave it out "
                         "(earlier trials without the parameter are then left out)"));
  EXPECT_THAT(ErrorOf("warm_start:\n  from: runs/first\n  defaults: {lr: 2}\n"),
              HasSubstr("warm_start.defaults.lr: 2 is outside [0.0001, 0.1]"));
  // Part of the identity only when given, so older warm starts keep theirs.
  auto plain = Parse("warm_start: {from: runs/first}\n");
  EXPECT_FALSE(ConfigIdentity(*plain)["warm_start"].contains("defaults"));
  EXPECT_EQ(ConfigIdentity(*config)["warm_start"]["defaults"], config->warm_start->defaults);
}

TEST(SeedingParserTest, MaxFailuresCountOrFraction) {
  auto count = Parse("max_failures: 3\n");
  ASSERT_TRUE(count);
  ASSERT_TRUE(count->max_failures);
  EXPECT_EQ(count->max_failures->count, 3);
  auto fraction = Parse("max_failures: {fraction: 0.5, after: 4}\n");
  ASSERT_TRUE(fraction) << fraction.error().message;
  EXPECT_EQ(fraction->max_failures->fraction, 0.5);
  EXPECT_EQ(fraction->max_failures->after, 4);
  EXPECT_FALSE(Parse("")->max_failures);
  EXPECT_THAT(ErrorOf("max_failures: 0\n"), StartsWith("exp.yaml:10:15: max_failures: "));
  EXPECT_THAT(ErrorOf("max_failures: {fraction: 1.5, after: 4}\n"),
              HasSubstr("the fraction must be in (0, 1], found 1.5"));
  EXPECT_THAT(ErrorOf("max_failures: {fraction: 0.5}\n"),
              HasSubstr("missing required key 'after'; add e.g. after: 4"));
}

}  // namespace
}  // namespace gpusweep
