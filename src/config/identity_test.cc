// ConfigIdentity / DiffConfigIdentity: what counts as a different experiment.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "config/config_test_util.h"
#include "gpusweep/config.h"

namespace gpusweep {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::UnorderedElementsAre;

constexpr std::string_view kBase = R"(name: base
command: [python3, train.py, --lr, "{{lr}}"]
metric: {name: val_acc, mode: max}
sampler: {type: random, trials: 16, seed: 7}
search_space:
  lr: {type: loguniform, low: 1.0e-4, high: 1.0e-1}
  channels: {type: choice, values: [8, 16]}
templates:
  - {src: setup.mustache, dst: setup.py}
)";

class IdentityTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_.Write("setup.mustache", "LR = {{lr}}\n"); }

  Json IdentityOf(std::string_view yaml) {
    auto config = ParseConfig(yaml, dir_.path() / "exp.yaml");
    EXPECT_TRUE(config.has_value()) << config.error().message;
    return config ? ConfigIdentity(*config) : Json();
  }

  std::vector<std::string> DiffAgainstBase(std::string_view from, std::string_view to) {
    std::string changed(kBase);
    changed.replace(changed.find(from), from.size(), to);
    return DiffConfigIdentity(IdentityOf(kBase), IdentityOf(changed));
  }

  config_test::TempDir dir_;
};

TEST_F(IdentityTest, HoldsTheResultDefiningFields) {
  const Json identity = IdentityOf(kBase);
  EXPECT_EQ(identity["command"], Json::parse(R"(["python3", "train.py", "--lr", "{{lr}}"])"));
  EXPECT_EQ(identity["shell"], false);
  EXPECT_EQ(identity["metric"], Json::parse(R"({"name": "val_acc", "mode": "max"})"));
  EXPECT_EQ(identity["sampler"], Json::parse(R"({"type": "random", "trials": 16, "seed": 7})"));
  EXPECT_EQ(identity["search_space"]["channels"],
            Json::parse(R"({"type": "choice", "values": [8, 16]})"));
  EXPECT_EQ(identity["templates"],
            Json::parse(R"([{"dst": "setup.py", "content": "LR = {{lr}}\n"}])"));
  for (const char* excluded : {"name", "resources", "timeout", "kill_grace", "output_dir"})
    EXPECT_FALSE(identity.contains(excluded)) << excluded;
}

TEST_F(IdentityTest, SurvivesAJsonRoundTrip) {
  const Json identity = IdentityOf(kBase);
  EXPECT_THAT(DiffConfigIdentity(Json::parse(identity.dump()), identity), IsEmpty());
}

TEST_F(IdentityTest, IgnoresRunSettings) {
  std::string changed(kBase);
  changed.replace(0, std::string_view("name: base").size(), "name: renamed");
  changed +=
      "resources: {gpus: [0], max_concurrent: 1}\ntimeout: 5m\nkill_grace: 1s\n"
      "output_dir: elsewhere\n";
  EXPECT_THAT(DiffConfigIdentity(IdentityOf(kBase), IdentityOf(changed)), IsEmpty());
}

TEST_F(IdentityTest, NamesPreciseChangedPaths) {
  EXPECT_THAT(DiffAgainstBase("trials: 16", "trials: 32"), ElementsAre("sampler.trials"));
  EXPECT_THAT(DiffAgainstBase("high: 1.0e-1", "high: 0.2"), ElementsAre("search_space.lr.high"));
  EXPECT_THAT(DiffAgainstBase("values: [8, 16]", "values: [8, 32]"),
              ElementsAre("search_space.channels.values[1]"));
  EXPECT_THAT(DiffAgainstBase("values: [8, 16]", "values: [8, 16, 32]"),
              ElementsAre("search_space.channels.values"));
  EXPECT_THAT(DiffAgainstBase("mode: max", "mode: min"), ElementsAre("metric.mode"));
  EXPECT_THAT(DiffAgainstBase("\"{{lr}}\"", "\"{{lr}}\", --fast"), ElementsAre("command"));
  EXPECT_THAT(DiffAgainstBase("--lr", "--learning-rate"), ElementsAre("command[2]"));
  EXPECT_THAT(DiffAgainstBase("seed: 7}", "seed: 7}\nshell: false"), IsEmpty());
}

TEST_F(IdentityTest, ReportsAddedRemovedAndReorderedParameters) {
  EXPECT_THAT(DiffAgainstBase("  channels:", "  depth: {type: int, low: 1, high: 3}\n  channels:"),
              ElementsAre("search_space.depth (added)"));
  EXPECT_THAT(DiffAgainstBase("  channels: {type: choice, values: [8, 16]}\n", ""),
              ElementsAre("search_space.channels (removed)"));
  EXPECT_THAT(DiffAgainstBase("  lr: {type: loguniform, low: 1.0e-4, high: 1.0e-1}\n"
                              "  channels: {type: choice, values: [8, 16]}\n",
                              "  channels: {type: choice, values: [8, 16]}\n"
                              "  lr: {type: loguniform, low: 1.0e-4, high: 1.0e-1}\n"),
              ElementsAre("search_space (order changed)"));
}

TEST_F(IdentityTest, EditingATemplateFileIsAChange) {
  const Json before = IdentityOf(kBase);
  dir_.Write("setup.mustache", "LR = {{lr}}  # tuned\n");
  EXPECT_THAT(DiffConfigIdentity(before, IdentityOf(kBase)), ElementsAre("templates[0].content"));
}

TEST_F(IdentityTest, ParameterKindChangeIsReportedPerField) {
  EXPECT_THAT(DiffAgainstBase("{type: choice, values: [8, 16]}", "{type: int, low: 8, high: 16}"),
              UnorderedElementsAre(
                  "search_space.channels.type", "search_space.channels.values (removed)",
                  "search_space.channels.low (added)", "search_space.channels.high (added)",
                  "search_space.channels.step (added)"));
}

TEST(DiffConfigIdentityTest, NonObjectsDifferAsAWhole) {
  EXPECT_THAT(DiffConfigIdentity(Json(), Json::object()), ElementsAre("(all)"));
  EXPECT_THAT(DiffConfigIdentity(Json::object(), Json::object()), IsEmpty());
}

}  // namespace
}  // namespace gpusweep
