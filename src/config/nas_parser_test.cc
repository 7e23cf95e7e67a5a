// The `nas:` section: defaults, every key, and located errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "config/config_test_util.h"
#include "gpusweep/config.h"

namespace gpusweep {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;
using config_test::ParseError;

constexpr std::string_view kHead =
    "name: e\n"
    "command: [a]\n"
    "metric: {name: val_acc, mode: max}\n";

std::string Nas(std::string_view rest) { return std::string(kHead) + "nas:\n" + std::string(rest); }

constexpr std::string_view kOps = "  operations: {conv: {filters: [16, 32]}}\n";

TEST(NasConfigTest, MinimalConfigGetsTheSeedDefaults) {
  auto config = ParseConfig(Nas(kOps), "exp.yaml");
  ASSERT_TRUE(config) << config.error().message;
  ASSERT_TRUE(config->nas);
  const NasConfig& nas = *config->nas;
  EXPECT_EQ(nas.blocks, 1);
  EXPECT_EQ(nas.depth, 4);
  EXPECT_EQ(nas.width, 2);
  EXPECT_EQ(nas.max_depth, 3);
  EXPECT_EQ(nas.operations.conv.filters, (std::vector<std::vector<int>>{{16, 32}}));
  EXPECT_EQ(nas.operations.conv.kernel, (std::vector<int>{1, 3, 5}));
  EXPECT_FALSE(nas.operations.sep_conv.enabled);
  EXPECT_EQ(nas.elimination, NasElimination::kHistoryBest);
  EXPECT_EQ(nas.racos.sample_size, 3);
  EXPECT_EQ(nas.search, NasSearch::kTournament);
  EXPECT_FALSE(nas.failed_score);
  EXPECT_EQ(config->name, "e");
}

TEST(NasConfigTest, EveryKey) {
  auto config = ParseConfig(Nas("  blocks: 2\n"
                                "  depth: 5\n"
                                "  width: 1\n"
                                "  max_depth: 2\n"
                                "  operations:\n"
                                "    conv: {filters: [[16, 32], [32, 64]], kernel: [3], activation: relu6}\n"
                                "    sep_conv: {filters: [8], kernel: [1, 5], activation: [relu]}\n"
                                "    pooling: {pool: [max], kernel: [2, 3]}\n"
                                "  skip: {max_distance: 3, max_count: 2}\n"
                                "  racos: {sample_size: 4, positive_num: 1, uncertain_bit: 2, rand_probability: 0.5}\n"
                                "  samples_per_round: 3\n"
                                "  elimination: current_average\n"
                                "  winner_samples: 0\n"
                                "  data_size: {schedule: geometric, init: 100, scale: 3, max: 1000}\n"
                                "  confirm: {data_size: 5000}\n"
                                "  retrain: {data_size: 60000}\n"
                                "  epochs: {search: 2, confirm: 4, retrain: 8}\n"
                                "  failed_score: -1\n"
                                "  search: random\n"
                                "  seed: 7\n"
                                "  dry_run: true\n"),
                            "exp.yaml");
  ASSERT_TRUE(config) << config.error().message;
  const NasConfig& nas = *config->nas;
  EXPECT_EQ(nas.operations.conv.filters.size(), 2u);
  EXPECT_EQ(nas.operations.conv.activation, (std::vector<std::string>{"relu6"}));
  EXPECT_EQ(nas.operations.pooling.kernel, (std::vector<int>{2, 3}));
  EXPECT_EQ(nas.skip_max_distance, 3);
  EXPECT_EQ(nas.skip_max_count, 2);
  EXPECT_DOUBLE_EQ(nas.racos.rand_probability, 0.5);
  EXPECT_EQ(nas.elimination, NasElimination::kCurrentAverage);
  EXPECT_EQ(nas.data_size.schedule, DataSchedule::kGeometric);
  EXPECT_EQ(nas.data_size.max, 1000);
  EXPECT_EQ(nas.confirm_data_size, 5000);
  EXPECT_EQ(nas.retrain_data_size, 60000);
  EXPECT_EQ(nas.epochs.retrain, 8);
  EXPECT_EQ(nas.failed_score, -1.0);
  EXPECT_EQ(nas.search, NasSearch::kRandom);
  EXPECT_EQ(nas.seed, 7u);
  // Dry run: its own experiment, and the built-in scorer instead of the command.
  EXPECT_EQ(config->name, "e-dry-run");
  EXPECT_EQ(config->command.front(), "/bin/sh");
  EXPECT_EQ(config->command.back(), "{{nas_dry_score}}");
  // The identity holds the normalized config, so a changed NAS config refuses to resume.
  EXPECT_EQ(ConfigIdentity(*config)["nas"]["seed"], 7);
}

TEST(NasConfigTest, LocatedErrors) {
  EXPECT_THAT(ParseError(Nas("  operations: {conv: {filters: [16]}}\n  elimination: best\n")),
              StartsWith("exp.yaml:6:16: nas.elimination:"));
  EXPECT_THAT(ParseError(Nas("  operations: {conv: {filters: [16]}}\n  elimination: best\n")),
              HasSubstr("history_best"));
  EXPECT_THAT(ParseError(Nas("  operations: {conv: {filters: [16]}}\n  wdth: 2\n")),
              AllOf(StartsWith("exp.yaml:6:3: nas.wdth: unknown key"), HasSubstr("width")));
  EXPECT_THAT(ParseError(Nas("  depth: 1\n" + std::string(kOps))), StartsWith("exp.yaml:5:10: nas.depth"));
  EXPECT_THAT(ParseError(Nas("  blocks: 2\n  operations: {conv: {filters: [[1], [2], [3]]}}\n")),
              HasSubstr("has 3 per-block lists but nas.blocks is 2"));
  EXPECT_THAT(ParseError(Nas("  operations: {conv: {filters: [16], kernel: [2]}}\n")),
              HasSubstr("kernel 2 is even"));
  EXPECT_THAT(ParseError(Nas("  operations: {pooling: {}}\n")),
              HasSubstr("only pooling is allowed"));
  EXPECT_THAT(ParseError(Nas("  blocks: 1\n")), HasSubstr("missing required key 'operations'"));
  EXPECT_THAT(ParseError(Nas(std::string(kOps) + "  racos: {rand_probability: 2}\n")),
              HasSubstr("nas.racos.rand_probability: must be in [0, 1]"));
  EXPECT_THAT(ParseError(Nas(std::string(kOps) + "  data_size: {init: 10, scale: 2}\n")),
              HasSubstr("scale is for schedule: geometric"));
  EXPECT_THAT(ParseError(Nas(std::string(kOps) + "  width: 9\n")), HasSubstr("9 is more than 6"));
}

TEST(NasConfigTest, SweepKeysAreRefused) {
  EXPECT_THAT(ParseError(std::string(kHead) + "sampler: {type: random, trials: 3}\nnas:\n" +
                         std::string(kOps)),
              AllOf(StartsWith("exp.yaml:4:10: sampler: 'sampler' has no meaning in a NAS"),
                    HasSubstr("remove sampler")));
  EXPECT_THAT(ParseError(Nas(std::string(kOps)) + "resources: {gpus_per_trial: [1, 2]}\n"),
              HasSubstr("one GPU count for every evaluation"));
}

// NAS takes constraints (docs/nas.md, "Constraints") but one metric; a dry run reports
// no constraint metric, so it drops them.
TEST(NasConfigTest, ConstraintsAreTakenSeveralObjectivesAreNot) {
  const std::string constrained = Nas(kOps) + "constraints: [{metric: params_k, max: 50}]\n";
  auto config = ParseConfig(constrained, "exp.yaml");
  ASSERT_TRUE(config) << config.error().message;
  ASSERT_EQ(config->constraints.size(), 1u);
  EXPECT_EQ(config->constraints[0].metric, "params_k");
  auto dry = ParseConfig(Nas(std::string(kOps) + "  dry_run: true\n") +
                             "constraints: [{metric: params_k, max: 50}]\n",
                         "exp.yaml");
  ASSERT_TRUE(dry) << dry.error().message;
  EXPECT_TRUE(dry->constraints.empty());
  const std::string multi =
      "name: e\ncommand: [a]\nmetrics: [{name: val_acc, mode: max}, {name: params_k, mode: min}]\n"
      "nas:\n" + std::string(kOps);
  EXPECT_THAT(ParseError(multi),
              AllOf(StartsWith("exp.yaml:3:"), HasSubstr("does not take several objectives"),
                    HasSubstr("constraints: [...]")));
}

}  // namespace
}  // namespace gpusweep
