// metrics:, constraints: and what refuses them (objective_parser.h).
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "config/config_test_util.h"
#include "gpusweep/config.h"

namespace gpusweep {
namespace {

using config_test::ParseError;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

constexpr std::string_view kObjectiveHead = "name: e\ncommand: [a]\n";
constexpr std::string_view kObjectiveTail =
    "sampler: {type: random, trials: 4}\n"
    "search_space:\n"
    "  lr: {type: uniform, low: 0, high: 1}\n";

std::string ObjectiveYaml(std::string_view objective, std::string_view tail = kObjectiveTail) {
  return std::string(kObjectiveHead) + std::string(objective) + std::string(tail);
}

TEST(ObjectiveParserTest, MetricsListsTheObjectivesInOrderAndMetricIsTheFirst) {
  auto config = ParseConfig(ObjectiveYaml("metrics:\n"
                                          "  - {name: val_acc, mode: max}\n"
                                          "  - {name: params_m, direction: minimize}\n"
                                          "constraints:\n"
                                          "  - {metric: latency_ms, max: 10}\n"
                                          "  - {metric: mem_gib, min: 1, max: 20.5}\n"),
                            "exp.yaml");
  ASSERT_TRUE(config) << config.error().message;
  ASSERT_EQ(config->metrics.size(), 2u);
  EXPECT_EQ(config->metrics[1].name, "params_m");
  EXPECT_EQ(config->metrics[1].mode, Mode::kMin);
  EXPECT_EQ(config->metric.name, "val_acc");
  ASSERT_EQ(config->constraints.size(), 2u);
  EXPECT_EQ(config->constraints[0].metric, "latency_ms");
  EXPECT_FALSE(config->constraints[0].min);
  EXPECT_EQ(config->constraints[0].max, 10.0);
  EXPECT_EQ(config->constraints[1].min, 1.0);
  EXPECT_EQ(config->constraints[1].max, 20.5);
  const Objective objective = ObjectiveOf(*config);
  EXPECT_TRUE(objective.multi());
  EXPECT_TRUE(objective.constrained());
  EXPECT_FALSE(objective.Feasible(Json{{"latency_ms", 11}, {"mem_gib", 2}}));
  // Both are part of the identity: resuming with other objectives is another experiment.
  const Json identity = ConfigIdentity(*config);
  EXPECT_EQ(identity["metrics"][1]["mode"], "min");
  EXPECT_EQ(identity["constraints"][0]["max"], 10.0);
}

TEST(ObjectiveParserTest, OneMetricKeepsItsIdentityAndTakesConstraintsToo) {
  auto plain = ParseConfig(ObjectiveYaml("metric: {name: m, mode: max}\n"), "exp.yaml");
  ASSERT_TRUE(plain) << plain.error().message;
  EXPECT_TRUE(plain->metrics.empty());
  EXPECT_FALSE(ConfigIdentity(*plain).contains("metrics"));
  EXPECT_FALSE(ConfigIdentity(*plain).contains("constraints"));
  EXPECT_FALSE(ObjectiveOf(*plain).multi());
  auto constrained = ParseConfig(
      ObjectiveYaml("metric: {name: m, mode: max}\nconstraints: [{metric: m2, min: 0}]\n"), "exp.yaml");
  ASSERT_TRUE(constrained) << constrained.error().message;
  EXPECT_TRUE(ObjectiveOf(*constrained).constrained());
}

TEST(ObjectiveParserTest, AMetricNamedTwiceSaysWhereItFirstWas) {
  EXPECT_THAT(ParseError(ObjectiveYaml("metrics:\n"
                                       "  - {name: acc, mode: max}\n"
                                       "  - {name: size, mode: min}\n"
                                       "  - {name: acc, mode: min}\n")),
              StartsWith("exp.yaml:6:5: metrics[2]: metric 'acc' is named twice (first on line 4)"));
}

TEST(ObjectiveParserTest, AModeMissingNamesTheMetric) {
  EXPECT_THAT(ParseError(ObjectiveYaml("metrics:\n  - {name: acc, mode: max}\n  - {name: size}\n")),
              AllOf(StartsWith("exp.yaml:5:"), HasSubstr("mode"), HasSubstr("for size")));
}

TEST(ObjectiveParserTest, CountsOutsideTwoToEightAndBothKeysAreRefused) {
  EXPECT_THAT(ParseError(ObjectiveYaml("metrics: [{name: a, mode: max}]\n")),
              AllOf(StartsWith("exp.yaml:3:"), HasSubstr("metrics: lists one objective"),
                    Not(HasSubstr("metrics: metrics:")), HasSubstr("write metric:")));
  std::string nine = "metrics: [";
  for (int i = 0; i < 9; ++i) nine += "{name: m" + std::to_string(i) + ", mode: max}, ";
  nine.resize(nine.size() - 2);
  nine += "]\n";
  EXPECT_THAT(ParseError(ObjectiveYaml(nine)), HasSubstr("lists 9 objectives; list 2 to 8"));
  EXPECT_THAT(ParseError(ObjectiveYaml("metric: {name: a, mode: max}\n"
                                       "metrics: [{name: a, mode: max}, {name: b, mode: min}]\n")),
              AllOf(StartsWith("exp.yaml:4:"), HasSubstr("metric: (line 3) and metrics: are both given")));
  EXPECT_THAT(ParseError(ObjectiveYaml("")), HasSubstr("or metrics: [...]"));
}

TEST(ObjectiveParserTest, AConstraintNeedsAMetricAndABoundThatCanHold) {
  const std::string_view head = "metric: {name: m, mode: max}\n";
  EXPECT_THAT(ParseError(ObjectiveYaml(std::string(head) + "constraints: [{max: 10}]\n")),
              AllOf(StartsWith("exp.yaml:4:"), HasSubstr("'metric'"), HasSubstr("latency_ms")));
  EXPECT_THAT(ParseError(ObjectiveYaml(std::string(head) + "constraints: [{metric: lat}]\n")),
              AllOf(StartsWith("exp.yaml:4:"), HasSubstr("the constraint on 'lat' has no bound")));
  EXPECT_THAT(ParseError(ObjectiveYaml(std::string(head) + "constraints: [{metric: lat, min: 5, max: 1}]\n")),
              HasSubstr("min 5 > max 1"));
  EXPECT_THAT(ParseError(ObjectiveYaml(std::string(head) + "constraints: [{metric: lat, max: .inf}]\n")),
              HasSubstr("constraints[0].max: found the number .inf, expected a finite number"));
  EXPECT_THAT(ParseError(ObjectiveYaml(std::string(head) + "constraints: [{metric: lat, maxx: 1}]\n")),
              HasSubstr("did you mean 'max'"));
  EXPECT_THAT(ParseError(ObjectiveYaml(std::string(head) + "constraints: {metric: lat, max: 1}\n")),
              HasSubstr("expected a list"));
}

TEST(ObjectiveParserTest, HypervolumeReferenceGivesEveryObjectiveAValueInTheirOrder) {
  const std::string_view two = "metrics:\n  - {name: acc, mode: max}\n  - {name: size, mode: min}\n";
  auto config = ParseConfig(ObjectiveYaml(std::string(two) + "hypervolume_reference: {size: 12, acc: 0.5}\n"),
                            "exp.yaml");
  ASSERT_TRUE(config) << config.error().message;
  EXPECT_EQ(config->hypervolume_reference, (std::vector<double>{0.5, 12}));
  const Json identity = ConfigIdentity(*config);
  EXPECT_FALSE(identity.dump().find("hypervolume") != std::string::npos) << identity.dump();
  EXPECT_THAT(ParseError(ObjectiveYaml(std::string(two) + "hypervolume_reference: {acc: 0.5}\n")),
              AllOf(StartsWith("exp.yaml:6:"), HasSubstr("'size'"), HasSubstr("every objective")));
  EXPECT_THAT(ParseError(ObjectiveYaml(std::string(two) + "hypervolume_reference: {acc: 0.5, sise: 1}\n")),
              AllOf(StartsWith("exp.yaml:6:"), HasSubstr("did you mean 'size'")));
  EXPECT_THAT(ParseError(ObjectiveYaml(std::string(two) + "hypervolume_reference: [0.5, 12]\n")),
              AllOf(StartsWith("exp.yaml:6:"), HasSubstr("hypervolume_reference: {acc: ..., size: ...}")));
  EXPECT_THAT(ParseError(ObjectiveYaml(std::string(two) + "hypervolume_reference: {acc: .nan, size: 1}\n")),
              HasSubstr("expected a finite number"));
  EXPECT_THAT(ParseError(ObjectiveYaml("metric: {name: acc, mode: max}\nhypervolume_reference: {acc: 0.5}\n")),
              AllOf(StartsWith("exp.yaml:4:"), HasSubstr("needs several objectives")));
}

TEST(ObjectiveParserTest, WhatRanksByOneMetricRefusesSeveralOrConstraintsAtItsType) {
  const std::string two = "metrics: [{name: a, mode: max}, {name: b, mode: min}]\n";
  EXPECT_THAT(ParseError(ObjectiveYaml(two, "sampler: {type: cmaes, trials: 4}\n"
                                            "search_space: {lr: {type: uniform, low: 0, high: 1}}\n")),
              AllOf(StartsWith("exp.yaml:4:"), HasSubstr("sampler.type"),
                    HasSubstr("cmaes sampler models one metric"), HasSubstr("use sampler type tpe, gp or nsga2")));
  EXPECT_THAT(ParseError(ObjectiveYaml("metric: {name: a, mode: max}\nconstraints: [{metric: c, max: 1}]\n",
                                       "sampler: {type: evolution, trials: 4}\n"
                                       "search_space: {lr: {type: uniform, low: 0, high: 1}}\n")),
              HasSubstr("cannot honour constraints"));
  EXPECT_THAT(ParseError(ObjectiveYaml(two, std::string(kObjectiveTail) +
                                                "scheduler: {type: median}\n")),
              AllOf(HasSubstr("scheduler.type"), HasSubstr("median scheduler")));
  // Samplers that ignore the history take any objective, and so does tpe (multi-objective
  // TPE, with or without constraints).
  for (std::string_view sampler : {"random", "sobol", "tpe"}) {
    auto config = ParseConfig(
        ObjectiveYaml(two, fmt::format("sampler: {{type: {}, trials: 4}}\n"
                                       "search_space: {{lr: {{type: uniform, low: 0, high: 1}}}}\n",
                                       sampler)),
        "exp.yaml");
    EXPECT_TRUE(config) << config.error().message;
  }
}

// A configuration's objectives are its folds' means (gpusweep/cv.h), so cv takes several
// metrics and constraints, with a sampler that ranks them (nsga2) as with one that does not.
TEST(ObjectiveParserTest, CrossValidationTakesSeveralObjectivesAndConstraints) {
  const std::string two = "metrics: [{name: a, mode: max}, {name: b, mode: min}]\n";
  const std::string one_constrained = "metric: {name: a, mode: max}\nconstraints: [{metric: c, max: 1}]\n";
  for (const std::string& objective : {two, one_constrained, two + "constraints: [{metric: c, max: 1}]\n"}) {
    auto config = ParseConfig(ObjectiveYaml(objective, std::string(kObjectiveTail) + "cv: {folds: 3}\n"), "exp.yaml");
    ASSERT_TRUE(config) << config.error().message;
    EXPECT_EQ(config->cv.folds, 3);
    EXPECT_EQ(ObjectiveOf(*config).size(), objective == one_constrained ? 1u : 2u);
    EXPECT_TRUE(ObjectiveOf(*config).multi() || ObjectiveOf(*config).constrained());
  }
  auto nsga2 = ParseConfig(ObjectiveYaml(two, "sampler: {type: nsga2, trials: 4}\n"
                                              "search_space: {lr: {type: uniform, low: 0, high: 1}}\n"
                                              "cv: {folds: 2}\n"),
                           "exp.yaml");
  EXPECT_TRUE(nsga2) << nsga2.error().message;
}

TEST(ObjectiveParserTest, AshaHyperbandAndHalvingTakeSeveralObjectivesMedianRefusesWithWhatToWrite) {
  const std::string two = "metrics: [{name: a, mode: max}, {name: b, mode: min}]\n";
  const std::string one_constrained = "metric: {name: a, mode: max}\nconstraints: [{metric: c, max: 1}]\n";
  for (const std::string& objective : {two, one_constrained}) {
    for (std::string_view type : {"asha", "hyperband", "successive_halving"}) {
      auto config = ParseConfig(
          ObjectiveYaml(objective, fmt::format("{}scheduler: {{type: {}, max_resource: 9}}\n",
                                               kObjectiveTail, type)),
          "exp.yaml");
      EXPECT_TRUE(config) << type << ": " << config.error().message;
    }
  }
  // The scheduler's type is on line 7 (objective 3, sampler 4, search space 5-6).
  EXPECT_THAT(ParseError(ObjectiveYaml(two, std::string(kObjectiveTail) +
                                                "scheduler: {type: median, max_resource: 9}\n")),
              AllOf(StartsWith("exp.yaml:7:"), HasSubstr("median scheduler stops trials by one metric"),
                    HasSubstr("use scheduler: {type: asha, ...}")));
}

}  // namespace
}  // namespace gpusweep
