// NNI's {_type, _value} entries, read as NNI means them.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

#include "config/config_test_util.h"
#include "gpusweep/config.h"

namespace gpusweep {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::StartsWith;
using config_test::FirstParamOf;
using config_test::SpaceErrorOf;

TEST(NniParamTest, EveryFlatTypeAsNniMeansIt) {
  ParamSpec c = FirstParamOf("  opt: {_type: choice, _value: [sgd, adam]}\n");
  EXPECT_EQ(c.kind, ParamKind::kChoice);
  EXPECT_EQ(c.values, (std::vector<Json>{"sgd", "adam"}));
  ParamSpec r = FirstParamOf("  n: {_type: randint, _value: [1, 10]}\n");  // NNI excludes upper
  EXPECT_EQ(r.kind, ParamKind::kInt);
  EXPECT_EQ(r.int_low, 1);
  EXPECT_EQ(r.int_high, 9);
  ParamSpec u = FirstParamOf("  x: {_type: uniform, _value: [0.1, 0.5]}\n");
  EXPECT_EQ(u.kind, ParamKind::kUniform);
  EXPECT_EQ(u.low, 0.1);
  ParamSpec qu = FirstParamOf("  x: {_type: quniform, _value: [1, 10, 3]}\n");
  EXPECT_EQ(qu.kind, ParamKind::kUniform);
  EXPECT_EQ(qu.q, 3);
  EXPECT_TRUE(qu.q_clip);  // clip(round(x / q) * q, low, high)
  ParamSpec l = FirstParamOf("  lr: {_type: loguniform, _value: [1.0e-5, 0.1]}\n");
  EXPECT_EQ(l.kind, ParamKind::kLogUniform);
  ParamSpec ql = FirstParamOf("  b: {_type: qloguniform, _value: [8, 512, 8]}\n");
  EXPECT_EQ(ql.kind, ParamKind::kLogUniform);
  EXPECT_TRUE(ql.q_clip);
  ParamSpec n = FirstParamOf("  x: {_type: normal, _value: [0, 2]}\n");
  EXPECT_EQ(n.kind, ParamKind::kNormal);
  EXPECT_EQ(n.sigma, 2);
  EXPECT_TRUE(std::isinf(n.low));
  ParamSpec qn = FirstParamOf("  x: {_type: qnormal, _value: [0, 2, 0.5]}\n");
  EXPECT_EQ(qn.q, 0.5);
  EXPECT_FALSE(qn.q_clip);
  EXPECT_EQ(FirstParamOf("  x: {_type: lognormal, _value: [0, 1]}\n").kind, ParamKind::kLogNormal);
  ParamSpec qln = FirstParamOf("  x: {_type: qlognormal, _value: [0, 1, 1]}\n");
  EXPECT_EQ(qln.kind, ParamKind::kLogNormal);
  EXPECT_EQ(qln.q, 1);
}

TEST(NniParamTest, ErrorsNameTheKeyAndTheShape) {
  EXPECT_THAT(SpaceErrorOf("  x: {_type: quniform, _value: [1, 10]}\n"),
              StartsWith("exp.yaml:6:32: search_space.x._value: NNI's _value here is 3 numbers, "
                         "found 2; write _value: [low, high, q]"));
  EXPECT_THAT(SpaceErrorOf("  x: {_type: unifrom, _value: [1, 10]}\n"),
              HasSubstr("did you mean 'uniform'?"));
  EXPECT_THAT(SpaceErrorOf("  x: {_type: randint, _value: [3, 3]}\n"),
              HasSubstr("randint [3, 3) holds no integer"));
  EXPECT_THAT(config_test::ParseError("name: e\ncommand: [a]\nmetric: {name: m, mode: max}\n"
                                      "sampler: {type: grid}\nsearch_space:\n"
                                      "  x: {_type: uniform, _value: [0, 1]}\n"),
              HasSubstr("search_space.x._type: the grid sampler cannot enumerate"));
}

// Another tool's top-level keys are answered with ours, never a plain "unknown key".
TEST(ForeignTopKeysTest, WandbNniRayAndOptunaKeysNameOurs) {
  const std::string head = "name: e\ncommand: [a]\nmetric: {name: m, mode: max}\n";
  const std::pair<std::string_view, std::string_view> cases[] = {
      {"program: train.py\n", "'program' is W&B's key, not gpusweep's; gpusweep writes command:"},
      {"run_cap: 20\n", "gpusweep writes sampler: {type: ..., trials: N}"},
      {"early_terminate: {type: hyperband, min_iter: 3, eta: 3}\n",
       "scheduler: {type: hyperband, min_resource: <min_iter>, max_resource: <max_iter>, "
       "reduction_factor: <eta>}"},
      {"project: p\n", "'project' is W&B's key"},
      {"trialCommand: python3 train.py\n", "'trialCommand' is NNI's key, not gpusweep's; "
                                            "gpusweep writes command:"},
      {"maxTrialNumber: 10\n", "'maxTrialNumber' is NNI's key"},
      {"tuner: {name: TPE}\n", "'tuner' is NNI's key, not gpusweep's; gpusweep writes sampler:"},
      {"optimize_mode: maximize\n", "metric: {name: <metric>, mode: min or max}"},
      {"searchSpace: {}\n", "search_space:"},
      {"trialConcurrency: 2\n", "resources: {max_concurrent: N}"},
      {"num_samples: 5\n", "'num_samples' is Ray Tune's key"},
      {"direction: maximize\n", "'direction' is Optuna's key"},
  };
  for (const auto& [line, expected] : cases)
    EXPECT_THAT(config_test::ParseError(head + std::string(line)), HasSubstr(expected)) << line;
  EXPECT_THAT(config_test::ParseError("name: e\ncommand: [\"${env}\", python3, \"${program}\", "
                                      "\"${args}\"]\nmetric: {name: m, mode: max}\n"),
              AllOf(StartsWith("exp.yaml:2:11: command[0]: '${env}' is W&B's command macro"),
                    HasSubstr("--lr={{lr}}")));
}

}  // namespace
}  // namespace gpusweep
