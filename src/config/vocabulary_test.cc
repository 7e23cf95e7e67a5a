// Other tools' vocabulary (Optuna, Ray Tune, W&B Sweeps): accepted where it means one
// thing here, answered with our word where it does not.
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "config/config_test_util.h"
#include "gpusweep/config.h"

namespace gpusweep {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

// Every key a search-space case needs, up to `search_space:`.
constexpr std::string_view kHead = config_test::kSearchSpaceHead;

Expected<ExperimentConfig> Parse(std::string_view yaml) { return ParseConfig(yaml, "exp.yaml"); }

// The first parameter of a search space given after kHead.
ParamSpec ParamOf(std::string_view space) {
  auto config = Parse(std::string(kHead) + std::string(space));
  EXPECT_TRUE(config) << config.error().message;
  if (!config || config->search_space.params.empty()) return ParamSpec{};
  return config->search_space.params.front();
}

using config_test::ParseError;
std::string ErrorOf(std::string_view yaml) { return ParseError(yaml); }

TEST(VocabularyTest, ModeAcceptsOptunaAndWandbWords) {
  for (std::string_view metric : {"{name: m, mode: minimize}", "{name: m, goal: minimize}",
                                  "{name: m, direction: minimize}"}) {
    auto config = Parse(fmt::format(
        "name: e\ncommand: [a]\nmetric: {}\nsampler: {{type: grid}}\n", metric));
    ASSERT_TRUE(config) << metric << ": " << config.error().message;
    EXPECT_EQ(config->metric.mode, Mode::kMin) << metric;
  }
  auto max = Parse("name: e\ncommand: [a]\nmetric: {name: m, mode: maximize}\nsampler: {type: grid}\n");
  ASSERT_TRUE(max);
  EXPECT_EQ(max->metric.mode, Mode::kMax);
  EXPECT_THAT(ErrorOf("name: e\ncommand: [a]\nmetric: {name: m, mode: min, goal: maximize}\n"
                      "sampler: {type: grid}\n"),
              StartsWith("exp.yaml:3:36: metric.goal: 'goal' says the same as 'metric.mode'"));
}

TEST(VocabularyTest, OptunaTypesWithLog) {
  ParamSpec lr = ParamOf("  lr: {type: float, low: 1.0e-4, high: 0.1, log: true}\n");
  EXPECT_EQ(lr.kind, ParamKind::kLogUniform);
  EXPECT_EQ(lr.low, 1.0e-4);
  EXPECT_EQ(ParamOf("  d: {type: float, min: 0, max: 0.5}\n").kind, ParamKind::kUniform);
  ParamSpec opt = ParamOf("  opt: {type: categorical, choices: [sgd, adam]}\n");
  EXPECT_EQ(opt.kind, ParamKind::kChoice);
  EXPECT_EQ(opt.values, (std::vector<Json>{"sgd", "adam"}));
  // q rounds to multiples of q (as W&B, Hyperopt, NNI and Ray); it is not step.
  ParamSpec depth = ParamOf("  depth: {type: int, min: 2, max: 8, q: 2}\n");
  EXPECT_EQ(depth.kind, ParamKind::kInt);
  EXPECT_EQ(depth.int_low, 2);
  EXPECT_EQ(depth.int_high, 8);
  EXPECT_EQ(depth.int_step, 1);
  EXPECT_EQ(depth.q, 2);
  ParamSpec width = ParamOf("  n: {type: int, low: 16, high: 256, log: true}\n");
  EXPECT_EQ(width.kind, ParamKind::kInt);
  EXPECT_TRUE(width.int_log);
  EXPECT_FALSE(depth.int_log);
  EXPECT_TRUE(ParamOf("  n: {type: suggest_int, low: 1, high: 64, log: true}\n").int_log);
  EXPECT_TRUE(ParamOf("  n: {type: IntLogUniformDistribution, low: 1, high: 64}\n").int_log);
  EXPECT_THAT(ErrorOf(std::string(kHead) + "  n: {type: int, low: 0, high: 256, log: true}\n"),
              StartsWith("exp.yaml:6:23: search_space.n.low: an int on a log scale needs low >= "
                         "1, found 0; use low: 1 or more, or remove search_space.n.log"));
  EXPECT_THAT(ErrorOf(std::string(kHead) + "  n: {type: int, low: 1, high: 256, step: 2, "
                                           "log: true}\n"),
              StartsWith("exp.yaml:6:43: search_space.n.step: an int on a log scale takes no "
                         "step"));
  // On a log scale the identity says so; without, it is what it was before log existed.
  auto logged = Parse(std::string(kHead) + "  n: {type: int, low: 1, high: 8, log: true}\n"
                                           "  m: {type: int, low: 1, high: 8}\n");
  ASSERT_TRUE(logged) << logged.error().message;
  EXPECT_EQ(ConfigIdentity(*logged)["search_space"]["n"]["log"], true);
  EXPECT_FALSE(ConfigIdentity(*logged)["search_space"]["m"].contains("log"));
  EXPECT_THAT(ErrorOf(std::string(kHead) + "  x: {type: float, low: 0, min: 1, high: 2}\n"),
              StartsWith("exp.yaml:6:33: search_space.x.min: 'min' and 'low' mean the same; "
                         "give only low"));
}

TEST(VocabularyTest, WandbDistributionsAndInference) {
  EXPECT_EQ(ParamOf("  lr: {distribution: log_uniform_values, min: 1.0e-5, max: 1.0e-1}\n").kind,
            ParamKind::kLogUniform);
  EXPECT_EQ(ParamOf("  x: {distribution: uniform, min: 0, max: 1}\n").kind, ParamKind::kUniform);
  EXPECT_EQ(ParamOf("  n: {distribution: int_uniform, min: 1, max: 4}\n").kind, ParamKind::kInt);
  // W&B's q_uniform: round(U(min, max) / q) * q, q defaulting to 1.
  ParamSpec q = ParamOf("  b: {distribution: q_uniform, min: 16, max: 64, q: 16}\n");
  EXPECT_EQ(q.kind, ParamKind::kUniform);
  EXPECT_EQ(q.q, 16);
  ParamSpec q1 = ParamOf("  b: {distribution: q_uniform, min: 0.5, max: 9.5}\n");
  EXPECT_EQ(q1.kind, ParamKind::kUniform);
  EXPECT_EQ(q1.q, 1);
  ParamSpec qf = ParamOf("  x: {distribution: q_uniform, min: 0, max: 1, q: 0.1}\n");
  EXPECT_EQ(qf.q, 0.1);
  ParamSpec weighted =
      ParamOf("  opt: {distribution: categorical, values: [a, b], probabilities: [0.25, 0.75]}\n");
  EXPECT_EQ(weighted.weights, (std::vector<double>{0.25, 0.75}));
  ParamSpec c = ParamOf("  opt: {distribution: categorical, values: [sgd, adam]}\n");
  EXPECT_EQ(c.kind, ParamKind::kChoice);
  ParamSpec values = ParamOf("  opt: {values: [sgd, adam]}\n");  // W&B: a list of values
  EXPECT_EQ(values.kind, ParamKind::kChoice);
  ParamSpec value = ParamOf("  epochs: {value: 3}\n");
  EXPECT_EQ(value.kind, ParamKind::kConstant);
  EXPECT_EQ(value.constant, 3);

  EXPECT_THAT(ErrorOf(std::string(kHead) + "  lr: {distribution: log_uniform, min: -9, max: -2}\n"),
              AllOf(StartsWith("exp.yaml:6:22: search_space.lr.distribution: W&B's log_uniform "
                               "takes natural-log exponents"),
                    HasSubstr("log_uniform_values")));
  ParamSpec normal = ParamOf("  x: {distribution: normal, mu: 1, sigma: 2}\n");
  EXPECT_EQ(normal.kind, ParamKind::kNormal);
  EXPECT_EQ(normal.mu, 1);
  EXPECT_EQ(normal.sigma, 2);
  ParamSpec qlog = ParamOf("  x: {distribution: q_log_normal, mu: 1, sigma: 2}\n");
  EXPECT_EQ(qlog.kind, ParamKind::kLogNormal);
  EXPECT_EQ(qlog.q, 1);
  EXPECT_THAT(ErrorOf(std::string(kHead) + "  x: {distribution: beta, a: 1}\n"),
              HasSubstr("the distribution 'beta' has no counterpart here"));
  EXPECT_THAT(ErrorOf(std::string(kHead) + "  x: {distribution: unifrom, min: 0, max: 1}\n"),
              HasSubstr("unknown distribution 'unifrom'; did you mean 'uniform'?"));
  // W&B's inference from bare min/max: integers -> int_uniform, else uniform.
  EXPECT_EQ(ParamOf("  x: {min: 0, max: 1}\n").kind, ParamKind::kInt);
  EXPECT_EQ(ParamOf("  x: {min: 0, max: 1.5}\n").kind, ParamKind::kUniform);
  EXPECT_THAT(ErrorOf(std::string(kHead) + "  x: {low: 0, high: 1}\n"),
              HasSubstr("missing required key 'type'; add type: uniform (floats)"));
}

// log: next to a W&B distribution is honoured or refused, never silently ignored.
TEST(VocabularyTest, WandbDistributionHonoursLog) {
  ParamSpec n = ParamOf("  n: {distribution: int_uniform, min: 1, max: 1000, log: true}\n");
  EXPECT_EQ(n.kind, ParamKind::kInt);
  EXPECT_TRUE(n.int_log);
  EXPECT_FALSE(ParamOf("  n: {distribution: int_uniform, min: 1, max: 9, log: false}\n").int_log);
  EXPECT_EQ(ParamOf("  x: {distribution: uniform, min: 1.0e-4, max: 1, log: true}\n").kind,
            ParamKind::kLogUniform);
  ParamSpec q = ParamOf("  b: {distribution: q_uniform, min: 1, max: 64, q: 4, log: true}\n");
  EXPECT_EQ(q.kind, ParamKind::kLogUniform);
  EXPECT_EQ(q.q, 4);
  EXPECT_THAT(
      ErrorOf(std::string(kHead) +
              "  lr: {distribution: log_uniform_values, min: 1.0e-5, max: 0.1, log: false}\n"),
      StartsWith("exp.yaml:6:70: search_space.lr.log: log_uniform_values is always on a log "
                 "scale; remove log: false, or use distribution: uniform"));
}

// W&B's q_log_uniform_values is round(X / q) * q with X log-uniform over the values.
TEST(VocabularyTest, WandbQLogUniformValuesRoundsALogUniform) {
  ParamSpec n = ParamOf("  n: {distribution: q_log_uniform_values, min: 1, max: 1024}\n");
  EXPECT_EQ(n.kind, ParamKind::kLogUniform);
  EXPECT_EQ(n.q, 1);
  EXPECT_EQ(n.low, 1);
  EXPECT_EQ(n.high, 1024);
  EXPECT_THAT(ErrorOf(std::string(kHead) +
                      "  n: {distribution: q_log_uniform_values, min: 0, max: 8, q: 1}\n"),
              HasSubstr("loguniform needs low > 0"));
  EXPECT_EQ(ParamOf("  x: {distribution: q_log_uniform_values, min: 0.001, max: 1, q: 0.001}\n").q,
            0.001);
  EXPECT_THAT(ErrorOf(std::string(kHead) +
                      "  x: {distribution: q_log_uniform, min: 0, max: 2, q: 2}\n"),
              HasSubstr("write {type: loguniform, low: 1, high: 7.38906, q: 2}"));
}

TEST(VocabularyTest, ForeignSamplerAndTopLevelNamesNameOurs) {
  EXPECT_THAT(ErrorOf("name: e\ncommand: [a]\nmetric: {name: m, mode: max}\n"
                      "sampler: {type: bayes, trials: 3}\n"),
              StartsWith("exp.yaml:4:17: sampler.type: unknown sampler 'bayes'; gpusweep's "
                         "counterpart is type: tpe"));
  EXPECT_THAT(ErrorOf("name: e\ncommand: [a]\nmetric: {name: m, mode: max}\n"
                      "parameters: {x: {values: [1, 2]}}\n"),
              StartsWith("exp.yaml:4:1: parameters: 'parameters' is W&B's key, not gpusweep's; "
                         "gpusweep writes search_space:"));
}

TEST(VocabularyTest, BareListWarnsUnderSamplersThatDrawTrials) {
  auto random = Parse(std::string(kHead) + "  x: [1, 2, 3]\n  y: {type: uniform, low: 0, high: 1}\n");
  ASSERT_TRUE(random) << random.error().message;
  EXPECT_EQ(random->search_space.params[0].kind, ParamKind::kConstant);
  ASSERT_EQ(random->warnings.size(), 1u);
  EXPECT_THAT(random->warnings[0],
              AllOf(StartsWith("exp.yaml:6:6: search_space.x: a bare list is a constant: every "
                               "trial gets [1,2,3]"),
                    HasSubstr("write x: {type: choice, values: [1,2,3]}")));
  auto quiet = Parse(std::string(kHead) + "  x: {type: constant, value: [1, 2]}\n  y: {type: uniform, low: 0, high: 1}\n");
  ASSERT_TRUE(quiet);
  EXPECT_TRUE(quiet->warnings.empty());
  auto grid = Parse("name: e\ncommand: [a]\nmetric: {name: m, mode: max}\nsampler: {type: grid}\n"
                    "search_space:\n  layers: [64, 32]\n");
  ASSERT_TRUE(grid);
  EXPECT_TRUE(grid->warnings.empty());
}

// Found by fuzz_smoke: a YAML string may hold bytes that are not UTF-8, and quoting the
// list in the warning threw (nlohmann's dump) instead of warning.
TEST(VocabularyTest, BareListWithBytesThatAreNotUtf8StillWarns) {
  auto parsed = Parse(std::string(kHead) + "  x: [a\x92" "b, 2]\n  y: {type: uniform, low: 0, high: 1}\n");
  ASSERT_TRUE(parsed) << parsed.error().message;
  ASSERT_EQ(parsed->warnings.size(), 1u);
  EXPECT_THAT(parsed->warnings[0], HasSubstr("every trial gets [\"a\xEF\xBF\xBD" "b\",2]"));
}

}  // namespace
}  // namespace gpusweep
