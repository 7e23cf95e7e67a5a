// Ray Tune's, Hyperopt's and Optuna's parameter types: true synonyms are accepted,
// every other known word or call is answered with the gpusweep mapping to write.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "config/config_test_util.h"
#include "gpusweep/config.h"

namespace gpusweep {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::StartsWith;
using config_test::FirstParamOf;
using config_test::SpaceErrorOf;

TEST(ForeignParamTest, TrueSynonymsAreAccepted) {
  EXPECT_EQ(FirstParamOf("  lr: {type: tune.loguniform, low: 1.0e-4, high: 0.1}\n").kind,
            ParamKind::kLogUniform);
  EXPECT_EQ(FirstParamOf("  x: {type: hp.uniform, low: 0, high: 1}\n").kind, ParamKind::kUniform);
  ParamSpec opt = FirstParamOf("  opt: {type: hp.choice, values: [sgd, adam]}\n");
  EXPECT_EQ(opt.kind, ParamKind::kChoice);
  EXPECT_EQ(opt.values, (std::vector<Json>{"sgd", "adam"}));
  EXPECT_EQ(FirstParamOf("  opt: {type: suggest_categorical, choices: [a, b]}\n").kind,
            ParamKind::kChoice);
  // Ray's tune.choice(categories): its argument's name is a synonym of values.
  EXPECT_EQ(FirstParamOf("  opt: {type: tune.choice, categories: [a, b]}\n").values,
            (std::vector<Json>{"a", "b"}));
  EXPECT_EQ(FirstParamOf("  lr: {type: suggest_float, low: 1.0e-5, high: 0.1, log: true}\n").kind,
            ParamKind::kLogUniform);
  EXPECT_EQ(FirstParamOf("  d: {type: FloatDistribution, low: 0, high: 0.5}\n").kind,
            ParamKind::kUniform);
  // Hyperopt's uniformint is scope.int(quniform(low, high, 1)): uniform rounded to 1,
  // both bounds included (with half the mass of the others, as in Hyperopt).
  ParamSpec n = FirstParamOf("  n: {type: hp.uniformint, low: 1, high: 5}\n");
  EXPECT_EQ(n.kind, ParamKind::kUniform);
  EXPECT_EQ(n.high, 5);
  EXPECT_EQ(n.q, 1);
  // quniform with bounds that are multiples of q: Hyperopt, Ray and NNI agree.
  ParamSpec q = FirstParamOf("  k: {type: quniform, low: 0, high: 10, q: 2}\n");
  EXPECT_EQ(q.kind, ParamKind::kUniform);
  EXPECT_EQ(q.q, 2);
  ParamSpec hq = FirstParamOf("  k: {type: hp.quniform, low: 0.5, high: 10.5, q: 1}\n");
  EXPECT_EQ(hq.kind, ParamKind::kUniform);
  EXPECT_EQ(hq.low, 0.5);
  EXPECT_EQ(hq.q, 1);
  ParamSpec normal = FirstParamOf("  x: {type: hp.normal, mu: 0, sigma: 2, low: -1, high: 1}\n");
  EXPECT_EQ(normal.kind, ParamKind::kNormal);
  EXPECT_EQ(normal.sigma, 2);
  EXPECT_EQ(normal.high, 1);
  ParamSpec qlog = FirstParamOf("  x: {type: hp.qlognormal, mu: 0, sigma: 1, q: 1}\n");
  EXPECT_EQ(qlog.kind, ParamKind::kLogNormal);
  EXPECT_EQ(qlog.q, 1);
  EXPECT_EQ(FirstParamOf("  k: {type: suggest_int, low: 1, high: 9}\n").kind, ParamKind::kInt);
}

TEST(ForeignParamTest, WordsThatMeanSomethingElseShowWhatToWrite) {
  EXPECT_THAT(SpaceErrorOf("  n: {type: randint, low: 0, high: 10}\n"),
              StartsWith("exp.yaml:6:13: search_space.n.type: 'randint': Ray Tune's and "
                         "Hyperopt's randint excludes the upper bound; ours includes it; write "
                         "n: {type: int, low: 0, high: 9}"));
  EXPECT_THAT(SpaceErrorOf("  n: {type: tune.lograndint, low: 1, high: 1024}\n"),
              HasSubstr("write n: {type: int, low: 1, high: 1023, log: true}"));
  EXPECT_THAT(SpaceErrorOf("  lr: {type: hp.loguniform, low: -9, high: -2}\n"),
              AllOf(HasSubstr("Hyperopt's loguniform takes natural-log exponents"),
                    HasSubstr("write lr: {type: loguniform, low: 0.00012341, high: 0.135335}")));
  // Ray's qrandint with q = 1 (its default) draws 16..63, as randint: its sampler skips
  // the rounding; the docstring's reading is named too.
  for (std::string_view spec : {"  batch: {type: tune.qrandint, low: 16, high: 64}\n",
                                "  batch: {type: tune.qrandint, low: 16, high: 64, q: 1}\n"})
    EXPECT_THAT(SpaceErrorOf(spec), AllOf(HasSubstr("write batch: {type: int, low: 16, high: 63}"),
                                          HasSubstr("docstring says included: then write high: 64")));
  // Ray's qrandint gives the multiples of q between the bounds: {3, 6, 9} here.
  EXPECT_THAT(SpaceErrorOf("  n: {type: tune.qrandint, low: 1, high: 10, q: 3}\n"),
              HasSubstr("write n: {type: int, low: 3, high: 9, step: 3}"));
  EXPECT_THAT(SpaceErrorOf("  x: {type: tune.quniform, low: 0.1, high: 1, q: 0.25}\n"),
              HasSubstr("write x: {type: uniform, low: 0.25, high: 1, q: 0.25}"));
  EXPECT_THAT(SpaceErrorOf("  x: {type: quniform, low: 1, high: 10, q: 3}\n"),
              AllOf(HasSubstr("read differently by Hyperopt"),
                    HasSubstr("write x: {type: uniform, low: 1, high: 10, q: 3}")));
  EXPECT_THAT(SpaceErrorOf("  x: {type: hp.qloguniform, low: 0, high: 2, q: 1}\n"),
              HasSubstr("write x: {type: loguniform, low: 1, high: 7.38906, q: 1}"));
  EXPECT_THAT(SpaceErrorOf("  x: {type: suggest_discrete_uniform, low: 1, high: 10, q: 3}\n"),
              HasSubstr("write x: {type: int, low: 1, high: 10, step: 3}"));
  EXPECT_THAT(SpaceErrorOf("  x: {type: tune.qrandn, mean: 0, sd: 1, q: 1}\n"),
              HasSubstr("write x: {type: normal, mu: 0, sigma: 1, q: 1}"));
  EXPECT_THAT(SpaceErrorOf("  x: {type: grid_search, values: [1, 2]}\n"),
              HasSubstr("write x: {type: choice, values: [1,2]} with sampler: {type: grid}"));
  // A typo of ours is still answered with our word.
  EXPECT_THAT(SpaceErrorOf("  x: {type: unifrom, low: 0, high: 1}\n"),
              HasSubstr("unknown value 'unifrom'; did you mean 'uniform'?"));
}

// Ray Tune names the bounds lower and upper (tune.randint(lower, upper)): they are low
// and high, and the mapping shown keeps them (tune.randint(1, 4) is 1..3).
TEST(ForeignParamTest, RayTunesLowerAndUpperAreLowAndHigh) {
  EXPECT_THAT(SpaceErrorOf("  n: {type: tune.randint, lower: 1, upper: 4}\n"),
              HasSubstr("write n: {type: int, low: 1, high: 3}"));
  EXPECT_THAT(SpaceErrorOf("  n: tune.randint(lower=1, upper=4)\n"),
              HasSubstr("write n: {type: int, low: 1, high: 3}"));
  ParamSpec x = FirstParamOf("  x: {type: uniform, lower: 0.1, upper: 0.5}\n");
  EXPECT_EQ(x.kind, ParamKind::kUniform);
  EXPECT_EQ(x.low, 0.1);
  EXPECT_EQ(x.high, 0.5);
  EXPECT_THAT(SpaceErrorOf("  batch: {type: tune.qrandint, lower: 16, upper: 64, q: 16}\n"),
              HasSubstr("write batch: {type: int, low: 16, high: 64, step: 16}"));
  EXPECT_THAT(SpaceErrorOf("  x: {type: uniform, low: 0, lower: 0, high: 1}\n"),
              HasSubstr("'lower' and 'low' mean the same; give only low"));
  EXPECT_THAT(SpaceErrorOf("  x: {type: uniform, min: 0, lower: 0, high: 1}\n"),
              HasSubstr("'lower' and 'min' mean the same; give only low"));
  // Without a lower bound the mapping does not invent one.
  EXPECT_THAT(SpaceErrorOf("  n: {type: randint, upper: 4}\n"),
              HasSubstr("write n: {type: int, low: <low>, high: 3}"));
}

TEST(ForeignParamTest, CallsAreTranslated) {
  EXPECT_THAT(SpaceErrorOf("  lr: tune.loguniform(1e-4, 1e-1)\n"),
              StartsWith("exp.yaml:6:7: search_space.lr: 'tune.loguniform(1e-4, 1e-1)' is Ray "
                         "Tune's syntax, not gpusweep's (as a value it would be a constant "
                         "string); write lr: {type: loguniform, low: 1e-4, high: 1e-1}"));
  EXPECT_THAT(SpaceErrorOf("  lr: trial.suggest_float(\"lr\", 1e-5, 1e-1, log=True)\n"),
              HasSubstr("write lr: {type: loguniform, low: 1e-5, high: 1e-1}"));
  EXPECT_THAT(SpaceErrorOf("  opt: hp.choice('opt', ['sgd', 'adam'])\n"),
              HasSubstr("write opt: {type: choice, values: ['sgd', 'adam']}"));
  EXPECT_THAT(SpaceErrorOf("  n: hp.randint('n', 10)\n"),
              AllOf(HasSubstr("randint excludes the upper bound"),
                    HasSubstr("write n: {type: int, low: 0, high: 9}")));
  EXPECT_THAT(SpaceErrorOf("  n: tune.randint(1, 10)\n"),
              HasSubstr("write n: {type: int, low: 1, high: 9}"));
  EXPECT_THAT(SpaceErrorOf("  n:\n    type: suggest_int('n', 8, 256, step=8)\n"),
              HasSubstr("write n: {type: int, low: 8, high: 256, step: 8}"));
  EXPECT_THAT(SpaceErrorOf("  x: hp.quniform('x', 0.5, 10.5, 1)\n"),
              HasSubstr("write x: {type: uniform, low: 0.5, high: 10.5, q: 1}"));
  EXPECT_THAT(SpaceErrorOf("  n: tune.qrandint(1, 10, 3)\n"),
              HasSubstr("write n: {type: int, low: 3, high: 9, step: 3}"));
  EXPECT_THAT(SpaceErrorOf("  x: tune.randn(1, 2)\n"),
              HasSubstr("write x: {type: normal, mu: 1, sigma: 2}"));
  EXPECT_THAT(SpaceErrorOf("  x: tune.qrandn(0, 1, 0.5)\n"),
              HasSubstr("write x: {type: normal, mu: 0, sigma: 1, q: 0.5}"));
  EXPECT_THAT(SpaceErrorOf("  x: hp.lognormal('x', 0, 1)\n"),
              HasSubstr("write x: {type: lognormal, mu: 0, sigma: 1}"));
  EXPECT_THAT(SpaceErrorOf("  opt: hp.pchoice('opt', [(0.1, 'sgd'), (0.9, 'adam')])\n"),
              HasSubstr("write opt: {type: choice, values: ['sgd', 'adam'], weights: [0.1, 0.9]}"));
  EXPECT_THAT(SpaceErrorOf("  n: hp.randint('n', 5, 10)\n"),
              HasSubstr("write n: {type: int, low: 5, high: 9}"));
  EXPECT_THAT(SpaceErrorOf("  x: trial.suggest_float('x', 0, 1, step=0.25)\n"),
              HasSubstr("write x: {type: choice, values: [0, 0.25, 0.5, 0.75, 1]}"));
  EXPECT_THAT(SpaceErrorOf("  n: tune.qlograndint(1, 100, 4)\n"),
              HasSubstr("write n: {type: int, low: 4, high: 100, log: true, q: 4}"));
  EXPECT_THAT(SpaceErrorOf("  lr: {distribution: log_uniform, min: -9, max: -2}\n"),
              HasSubstr("write {type: loguniform, low: 0.00012341, high: 0.135335}"));
  // Not another tool's word: a string constant like any other.
  EXPECT_EQ(FirstParamOf("  cmd: echo(1)\n").constant, "echo(1)");
}

}  // namespace
}  // namespace gpusweep
