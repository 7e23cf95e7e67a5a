// scheduler: {type: pbt}: parsed, part of the identity only when used, and bad values
// or combinations refused at their line with what to write.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "config/config_test_util.h"
#include "gpusweep/config.h"

namespace gpusweep {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

std::string Head(int trials = 4, std::string_view sampler = "random") {
  return "name: e\n"
         "command: [a, '{{budget}}']\n"
         "metric: {name: m, mode: max}\n"
         "sampler: {type: " + std::string(sampler) + ", trials: " + std::to_string(trials) + "}\n"
         "search_space:\n"
         "  lr: {type: loguniform, low: 1.0e-4, high: 0.1}\n"
         "  depth: {type: int, low: 1, high: 8}\n"
         "  act: {type: choice, values: [relu, tanh, gelu]}\n"
         "  seed: 7\n";  // line 9
}

constexpr std::string_view kPbt =
    "scheduler: {type: pbt, max_resource: 20, perturbation_interval: 2, population: 4";

Expected<ExperimentConfig> Parse(std::string_view rest, const std::string& head = Head()) {
  return config_test::ParseAfter(head, rest);
}
std::string ErrorOf(std::string_view rest, const std::string& head = Head()) {
  return config_test::ParseErrorAfter(head, rest);
}
std::string Pbt(std::string_view extra) { return std::string(kPbt) + std::string(extra) + "}\n"; }

TEST(PbtConfigTest, DefaultsAreRaysAndEveryKeyIsRead) {
  auto plain = Parse(Pbt(""));
  ASSERT_TRUE(plain) << plain.error().message;
  EXPECT_EQ(plain->scheduler.kind, SchedulerKind::kPbt);
  const PbtConfig& d = plain->scheduler.pbt;
  EXPECT_EQ(plain->scheduler.max_resource, 20);
  EXPECT_EQ(plain->scheduler.resource, "epoch");
  EXPECT_EQ(d.perturbation_interval, 2);
  EXPECT_EQ(d.population, 4);
  EXPECT_EQ(d.quantile, 0.25);
  EXPECT_FALSE(d.synchronous);
  EXPECT_EQ(d.resample_probability, 0.25);
  EXPECT_EQ(d.factors, (std::vector<double>{0.8, 1.2}));
  EXPECT_TRUE(d.mutations.empty());

  auto full = Parse(Pbt(", resource: step, quantile: 0.5, synchronous: true, "
                        "explore: {resample_probability: 0, factors: [0.5, 2, 1.5]}, "
                        "mutations: [lr, act]"));
  ASSERT_TRUE(full) << full.error().message;
  const PbtConfig& f = full->scheduler.pbt;
  EXPECT_EQ(full->scheduler.resource, "step");
  EXPECT_EQ(f.quantile, 0.5);
  EXPECT_TRUE(f.synchronous);
  EXPECT_EQ(f.resample_probability, 0);
  EXPECT_EQ(f.factors, (std::vector<double>{0.5, 2, 1.5}));
  EXPECT_EQ(f.mutations, (std::vector<std::string>{"lr", "act"}));
}

TEST(PbtConfigTest, BadValuesAreLocatedAndSayWhatToWrite) {
  EXPECT_THAT(ErrorOf("scheduler: pbt\n"), HasSubstr("perturbation_interval: 2, population: 8"));
  EXPECT_THAT(ErrorOf("scheduler: {type: pbt, max_resource: 20, population: 4}\n"),
              HasSubstr("perturbation_interval"));
  EXPECT_THAT(ErrorOf("scheduler: {type: pbt, max_resource: 20, perturbation_interval: 2}\n"),
              HasSubstr("population: 8"));
  EXPECT_THAT(ErrorOf("scheduler: {type: pbt, max_resource: 4, perturbation_interval: 5, "
                      "population: 4}\n"),
              AllOf(StartsWith("exp.yaml:10:"), HasSubstr("above max_resource 4")));
  EXPECT_THAT(ErrorOf(Pbt(", quantile: 0.75")), HasSubstr("at most 0.5"));
  EXPECT_THAT(ErrorOf(Pbt(", quantile: 0")), HasSubstr("quantile"));
  EXPECT_THAT(ErrorOf(Pbt(", explore: {resample_probability: 1.5}")), HasSubstr("between 0 and 1"));
  EXPECT_THAT(ErrorOf(Pbt(", explore: {factors: []}")), HasSubstr("factors: [0.8, 1.2]"));
  EXPECT_THAT(ErrorOf(Pbt(", explore: {factors: [0.8, -1]}")), HasSubstr("positive number"));
  EXPECT_THAT(ErrorOf(Pbt(", explore: {factor: [0.8]}")), HasSubstr("factors"));  // did you mean
  EXPECT_THAT(ErrorOf(Pbt(", min_resource: 1")), HasSubstr("no rungs"));
  EXPECT_THAT(ErrorOf(Pbt(", mutations: [lr, lr]")), HasSubstr("listed twice"));
  EXPECT_THAT(ErrorOf(Pbt(", mutations: []")), HasSubstr("remove the key"));
  EXPECT_THAT(ErrorOf(Pbt(", reduction_factor: 3")), HasSubstr("reduction_factor"));
}

TEST(PbtConfigTest, MutationsMustNameVaryingParameters) {
  EXPECT_THAT(ErrorOf(Pbt(", mutations: [lr, momentum]")),
              AllOf(StartsWith("exp.yaml:10:"), HasSubstr("'momentum' is not a search_space parameter"),
                    HasSubstr("lr, depth, act, seed")));
  EXPECT_THAT(ErrorOf(Pbt(", mutations: [seed]")), HasSubstr("'seed' is a constant"));
  const std::string constants_only =
      "name: e\ncommand: [a, '{{budget}}']\nmetric: {name: m, mode: max}\n"
      "sampler: {type: random, trials: 4}\nsearch_space:\n  seed: 7\n";
  EXPECT_THAT(ErrorOf(Pbt(""), constants_only), HasSubstr("every parameter is a constant"));
}

TEST(PbtConfigTest, CombinationsThatMakeNoSenseAreRefusedAtTheirLine) {
  EXPECT_THAT(ErrorOf(Pbt("") + "cv: {folds: 3}\n"),
              AllOf(StartsWith("exp.yaml:11:"), HasSubstr("cross-validation"), HasSubstr("remove cv:")));
  EXPECT_THAT(ErrorOf(Pbt(""), Head(4, "tpe")),
              AllOf(StartsWith("exp.yaml:4:"), HasSubstr("learns from finished trials"),
                    HasSubstr("sampler: {type: random, trials: 4}")));
  EXPECT_TRUE(Parse(Pbt(""), Head(4, "sobol")));
  EXPECT_THAT(ErrorOf(Pbt(""), Head(6)),
              AllOf(StartsWith("exp.yaml:4:"), HasSubstr("population is 4"), HasSubstr("write trials: 4")));
  EXPECT_THAT(ErrorOf(Pbt("") + "resources: {gpus_per_trial: [1, 1, 1, 1]}\n"),
              HasSubstr("per-trial list"));
  const std::string two_metrics =
      "name: e\ncommand: [a, '{{budget}}']\nmetrics: [{name: m, mode: max}, {name: n, mode: min}]\n"
      "sampler: {type: random, trials: 4}\nsearch_space:\n  lr: {type: uniform, low: 0, high: 1}\n";
  EXPECT_THAT(ErrorOf(Pbt(""), two_metrics), HasSubstr("ranks members by one metric"));
}

TEST(PbtConfigTest, OnlyAPbtExperimentsIdentityNamesPbt) {
  auto asha = Parse("scheduler: {type: asha, max_resource: 9}\n");
  ASSERT_TRUE(asha);
  EXPECT_FALSE(ConfigIdentity(*asha)["scheduler"].contains("pbt"));
  auto pbt = Parse(Pbt(""));
  auto other = Parse(Pbt(", quantile: 0.5"));
  ASSERT_TRUE(pbt && other);
  EXPECT_EQ(ConfigIdentity(*pbt)["scheduler"]["type"], "pbt");
  EXPECT_EQ(ConfigIdentity(*pbt)["scheduler"]["pbt"]["population"], 4);
  EXPECT_FALSE(DiffConfigIdentity(ConfigIdentity(*pbt), ConfigIdentity(*other)).empty());
}

constexpr std::string_view kReplay =
    "scheduler:\n"  // line 10
    "  type: pbt\n"
    "  max_resource: 5\n"
    "  perturbation_interval: 2\n"
    "  replay:\n"
    "    - {lr: 0.01, depth: 2, act: relu, seed: 7}\n"
    "    - {lr: 0.02, depth: 2, act: tanh, seed: 7}\n"
    "    - {lr: 0.005, depth: 3, act: tanh, seed: 7}\n";

TEST(PbtReplayConfigTest, OneMemberWithTheScheduleOfEachSegment) {
  auto config = Parse(kReplay, Head(1));
  ASSERT_TRUE(config) << config.error().message;
  const PbtConfig& pbt = config->scheduler.pbt;
  EXPECT_EQ(pbt.population, 1);
  ASSERT_EQ(pbt.replay.size(), 3u);
  EXPECT_EQ(pbt.replay[1]["act"], "tanh");
  EXPECT_EQ(pbt.replay[2]["lr"], 0.005);
  EXPECT_EQ(ConfigIdentity(*config)["scheduler"]["pbt"]["replay"][2]["depth"], 3);
}

TEST(PbtReplayConfigTest, AScheduleThatDoesNotFitIsRefusedAtItsLine) {
  const std::string two = std::string(kReplay).substr(0, std::string(kReplay).rfind("    - {"));
  EXPECT_THAT(ErrorOf(two, Head(1)), HasSubstr("exp.yaml:15:5: scheduler.replay: replay lists 2 "
                                               "segments, but max_resource 5 in segments of "
                                               "perturbation_interval 2 makes 3"));
  EXPECT_THAT(ErrorOf(std::string(kReplay) + "  quantile: 0.25\n", Head(1)),
              HasSubstr("a replay does not rank or explore, so quantile has no effect"));
  EXPECT_THAT(ErrorOf(std::string(kReplay) + "  population: 4\n", Head(1)),
              HasSubstr("a replay trains one member"));
  std::string unknown = std::string(kReplay);
  unknown.replace(unknown.find("act: relu"), 9, "activation: relu");
  EXPECT_THAT(ErrorOf(unknown, Head(1)),
              HasSubstr("replay segment 0 sets 'activation', which is not a search_space parameter"));
  std::string missing = std::string(kReplay);
  missing.replace(missing.find(", depth: 3"), 10, "");
  EXPECT_THAT(ErrorOf(missing, Head(1)), HasSubstr("replay segment 2 does not set 'depth'"));
  EXPECT_THAT(ErrorOf(kReplay, Head(4)), HasSubstr("write trials: 1"));
}

TEST(PbtReplayConfigTest, ReplayYamlKeepsTheRestOfTheTextAndParsesBack) {
  const std::string original = "# my sweep\n"
                               "name: e\n"
                               "command: [a, '{{budget}}', \"1\"]  # keep quotes\n"
                               "metric: {name: m, mode: max}\n"
                               "sampler: {type: random, trials: 4, seed: 3}\n"
                               "enqueue:\n  - {lr: 0.001}\n"
                               "\n# the space\n"
                               "search_space:\n"
                               "  lr: {type: loguniform, low: 1.0e-4, high: 0.1}\n"
                               "scheduler:\n  type: pbt\n  max_resource: 4\n"
                               "  perturbation_interval: 2\n  population: 4\n";
  auto yaml = PbtReplayYaml(original, {Json{{"lr", 0.1 / 3}}, Json{{"lr", 0.002}}}, 4, "why");
  ASSERT_TRUE(yaml) << yaml.error().message;
  EXPECT_THAT(*yaml, StartsWith("# my sweep\nname: \"e-replay\"\n"
                                "command: [a, '{{budget}}', \"1\"]  # keep quotes\n"));
  EXPECT_THAT(*yaml, HasSubstr("sampler: {type: random, trials: 1}\n\n# the space\nsearch_space:"));
  EXPECT_EQ(yaml->find("enqueue"), std::string::npos);
  auto config = ParseConfig(*yaml, "replay.yaml");
  ASSERT_TRUE(config) << config.error().message << "\n" << *yaml;
  ASSERT_EQ(config->scheduler.pbt.replay.size(), 2u);
  EXPECT_EQ(config->scheduler.pbt.replay[0]["lr"], 0.1 / 3);  // every digit
  EXPECT_EQ(config->name, "e-replay");
  EXPECT_FALSE(PbtReplayYaml("name: e\nscheduler: {type: asha, max_resource: 3}\n", {Json::object()}, 1, ""));
}

}  // namespace
}  // namespace gpusweep
