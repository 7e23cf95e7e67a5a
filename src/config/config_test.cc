// Valid configurations: every field lands where it should, with the right JSON types.
#include "gpusweep/config.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "config/config_test_util.h"

namespace gpusweep {
namespace {

using config_test::TempDir;
using ::testing::ElementsAre;

constexpr std::string_view kFullConfig = R"(name: fmnist-cnn
command: [python3, train.py, --lr, "{{lr}}", --epochs, 3]
metric: {name: val_acc, mode: max}
sampler: {type: random, trials: 16, seed: 7}
search_space:
  lr:       {type: loguniform, low: 1.0e-4, high: 1.0e-1}
  dropout:  {type: uniform, low: 0, high: 0.5}
  channels: {type: choice, values: [8, "16", 32.5, true, null, [1, 2]]}
  arch:
    type: choice
    values:
      - {activation: [{type: relu}], bn: true}
      - {activation: [{type: gelu}], bn: false}
  depth:    {type: int, low: 1, high: 7, step: 2}
  epochs: 3
  layers: [64, 32]
  optimizer: {type: constant, value: {name: adam, beta1: 0.9}}
resources:
  gpus: [0, 1, 3]
  gpus_per_trial: 2
  cpu_slots: 4
  max_concurrent: 2
timeout: 1h30m
kill_grace: 5s
templates:
  - {src: setup.py.mustache, dst: sub/./dir/x.py}
output_dir: runs/x
)";

class ConfigTest : public ::testing::Test {
 protected:
  Expected<ExperimentConfig> Load(std::string_view yaml) {
    return LoadConfig(dir_.Write("exp.yaml", yaml));
  }
  TempDir dir_;
};

const ParamSpec& Param(const ExperimentConfig& config, std::string_view name) {
  for (const ParamSpec& param : config.search_space.params)
    if (param.name == name) return param;
  throw std::runtime_error("no parameter " + std::string(name));
}

TEST_F(ConfigTest, FullConfigParsesEveryField) {
  dir_.Write("setup.py.mustache", "LR = {{lr}}\n");
  auto config = Load(kFullConfig);
  ASSERT_TRUE(config.has_value()) << config.error().message;
  EXPECT_EQ(config->config_path, dir_.path() / "exp.yaml");
  EXPECT_EQ(config->yaml_text, kFullConfig);
  EXPECT_EQ(config->name, "fmnist-cnn");
  EXPECT_THAT(config->command,
              ElementsAre("python3", "train.py", "--lr", "{{lr}}", "--epochs", "3"));
  EXPECT_FALSE(config->shell);
  EXPECT_EQ(config->metric.name, "val_acc");
  EXPECT_EQ(config->metric.mode, Mode::kMax);
  EXPECT_EQ(config->sampler.kind, SamplerKind::kRandom);
  EXPECT_EQ(config->sampler.trials, 16);
  EXPECT_EQ(config->sampler.seed, 7u);

  const ResourcesConfig& resources = config->resources;
  EXPECT_EQ(resources.gpus, GpuMode::kList);
  EXPECT_THAT(resources.gpu_list, ElementsAre(0, 1, 3));
  EXPECT_THAT(resources.gpus_per_trial, ElementsAre(2));
  EXPECT_EQ(resources.cpu_slots, 4);
  EXPECT_EQ(resources.max_concurrent, 2);
  EXPECT_EQ(config->timeout_seconds, 5400.0);
  EXPECT_EQ(config->kill_grace_seconds, 5.0);
  ASSERT_EQ(config->templates.size(), 1u);
  EXPECT_EQ(config->templates[0].src, dir_.path() / "setup.py.mustache");
  EXPECT_EQ(config->templates[0].dst, "sub/dir/x.py");
  EXPECT_EQ(config->output_dir, dir_.path() / "runs/x");
}

TEST_F(ConfigTest, SearchSpaceKeepsOrderKindsAndJsonTypes) {
  dir_.Write("setup.py.mustache", "");
  auto config = Load(kFullConfig);
  ASSERT_TRUE(config.has_value()) << config.error().message;
  std::vector<std::string> names;
  for (const ParamSpec& param : config->search_space.params) names.push_back(param.name);
  EXPECT_THAT(names, ElementsAre("lr", "dropout", "channels", "arch", "depth", "epochs", "layers",
                                 "optimizer"));

  const ParamSpec& lr = Param(*config, "lr");
  EXPECT_EQ(lr.kind, ParamKind::kLogUniform);
  EXPECT_DOUBLE_EQ(lr.low, 1.0e-4);
  EXPECT_DOUBLE_EQ(lr.high, 0.1);
  EXPECT_EQ(lr.line, 6);
  const ParamSpec& dropout = Param(*config, "dropout");
  EXPECT_EQ(dropout.kind, ParamKind::kUniform);
  EXPECT_EQ(dropout.low, 0.0);
  EXPECT_EQ(dropout.high, 0.5);

  const ParamSpec& channels = Param(*config, "channels");
  EXPECT_EQ(channels.kind, ParamKind::kChoice);
  ASSERT_EQ(channels.values.size(), 6u);
  EXPECT_TRUE(channels.values[0].is_number_integer());
  EXPECT_EQ(channels.values[0], 8);
  EXPECT_TRUE(channels.values[1].is_string());  // quoted "16" stays a string
  EXPECT_EQ(channels.values[1], "16");
  EXPECT_TRUE(channels.values[2].is_number_float());
  EXPECT_TRUE(channels.values[3].is_boolean());
  EXPECT_TRUE(channels.values[4].is_null());
  EXPECT_EQ(channels.values[5], Json::parse("[1, 2]"));

  const ParamSpec& arch = Param(*config, "arch");
  ASSERT_EQ(arch.values.size(), 2u);
  EXPECT_EQ(arch.values[0], Json::parse(R"({"activation": [{"type": "relu"}], "bn": true})"));
  EXPECT_EQ(arch.values[1].dump(), R"({"activation":[{"type":"gelu"}],"bn":false})");

  const ParamSpec& depth = Param(*config, "depth");
  EXPECT_EQ(depth.kind, ParamKind::kInt);
  EXPECT_EQ(depth.int_low, 1);
  EXPECT_EQ(depth.int_high, 7);
  EXPECT_EQ(depth.int_step, 2);

  EXPECT_EQ(Param(*config, "epochs").kind, ParamKind::kConstant);
  EXPECT_EQ(Param(*config, "epochs").constant, 3);
  EXPECT_EQ(Param(*config, "layers").constant, Json::parse("[64, 32]"));
  EXPECT_EQ(Param(*config, "optimizer").constant.dump(), R"({"name":"adam","beta1":0.9})");
}

TEST_F(ConfigTest, GridDefaultsAndEmptySearchSpace) {
  auto config = Load(R"(name: smoke
command: [./run.sh]
metric: {name: loss, mode: min}
sampler: {type: grid}
)");
  ASSERT_TRUE(config.has_value()) << config.error().message;
  EXPECT_EQ(config->sampler.kind, SamplerKind::kGrid);
  EXPECT_EQ(config->sampler.repeats, 1);
  EXPECT_EQ(config->metric.mode, Mode::kMin);
  EXPECT_TRUE(config->search_space.params.empty());
  EXPECT_EQ(config->resources.gpus, GpuMode::kAuto);
  EXPECT_THAT(config->resources.gpus_per_trial, ElementsAre(1));
  EXPECT_EQ(config->resources.cpu_slots, std::nullopt);
  EXPECT_EQ(config->resources.max_concurrent, std::nullopt);
  EXPECT_EQ(config->timeout_seconds, std::nullopt);
  EXPECT_EQ(config->kill_grace_seconds, 10.0);
  EXPECT_TRUE(config->templates.empty());
  EXPECT_EQ(config->output_dir, std::nullopt);
}

TEST_F(ConfigTest, ShellCommandString) {
  auto config = Load(R"(name: sh
command: "python3 train.py --lr {{lr}} > out.txt"
shell: true
metric: {name: acc, mode: max}
sampler: {type: grid, repeats: 3}
search_space:
  lr: {type: choice, values: [0.1, 0.01]}
)");
  ASSERT_TRUE(config.has_value()) << config.error().message;
  EXPECT_TRUE(config->shell);
  EXPECT_EQ(config->shell_command, "python3 train.py --lr {{lr}} > out.txt");
  EXPECT_TRUE(config->command.empty());
  EXPECT_EQ(config->sampler.repeats, 3);
}

TEST_F(ConfigTest, PerTrialGpuListMatchingTheTrialCount) {
  // Grid: 2 choices x 3 ints (1, 3, 5) x 2 repeats = 12 trials.
  auto grid = Load(R"(name: g
command: [a]
metric: {name: m, mode: max}
sampler: {type: grid, repeats: 2}
search_space:
  a: {type: choice, values: [x, y]}
  b: {type: int, low: 1, high: 6, step: 2}
  c: 5
resources: {gpus_per_trial: [1, 1, 2, 2, 0, 0, 1, 1, 2, 2, 0, 0]}
)");
  ASSERT_TRUE(grid.has_value()) << grid.error().message;
  EXPECT_EQ(grid->resources.gpus_per_trial.size(), 12u);
  EXPECT_EQ(grid->resources.gpus_per_trial[2], 2);

  auto random = Load(R"(name: r
command: [a]
metric: {name: m, mode: max}
sampler: {type: random, trials: 3}
search_space: {x: {type: uniform, low: 0, high: 1}}
resources: {gpus: none, gpus_per_trial: [0, 0, 0], cpu_slots: auto, max_concurrent: null}
)");
  ASSERT_TRUE(random.has_value()) << random.error().message;
  EXPECT_EQ(random->resources.gpus, GpuMode::kNone);
  EXPECT_THAT(random->resources.gpus_per_trial, ElementsAre(0, 0, 0));
  EXPECT_EQ(random->resources.cpu_slots, std::nullopt);
}

TEST_F(ConfigTest, CpuOnlyExperimentsDefaultToZeroGpusPerTrial) {
  auto config = Load(R"(name: cpu
command: [a]
metric: {name: m, mode: max}
sampler: {type: grid}
resources: {gpus: none}
timeout: 90
kill_grace: 0
)");
  ASSERT_TRUE(config.has_value()) << config.error().message;
  EXPECT_THAT(config->resources.gpus_per_trial, ElementsAre(0));
  EXPECT_EQ(config->timeout_seconds, 90.0);
  EXPECT_EQ(config->kill_grace_seconds, 0.0);
}

TEST_F(ConfigTest, AbsoluteOutputDirStaysAsGiven) {
  auto config = Load(R"(name: abs
command: [a]
metric: {name: m, mode: max}
sampler: {type: grid}
output_dir: /var/tmp/sweeps/abs
)");
  ASSERT_TRUE(config.has_value()) << config.error().message;
  EXPECT_EQ(config->output_dir, std::filesystem::path("/var/tmp/sweeps/abs"));
}

TEST(ParseConfigTest, RelativePathsResolveAgainstTheConfigDirectory) {
  auto config = ParseConfig(R"(name: rel
command: [a]
metric: {name: m, mode: max}
sampler: {type: grid}
output_dir: ../runs/rel
)",
                            "experiments/rel.yaml");
  ASSERT_TRUE(config.has_value()) << config.error().message;
  const std::filesystem::path cwd = std::filesystem::current_path();
  EXPECT_EQ(config->config_path, cwd / "experiments/rel.yaml");
  EXPECT_EQ(config->output_dir, cwd / "runs/rel");
}

TEST(LoadConfigTest, MissingFileIsNotFound) {
  auto config = LoadConfig("/nonexistent/gpusweep/exp.yaml");
  ASSERT_FALSE(config.has_value());
  EXPECT_EQ(config.error().code, ErrorCode::kNotFound);
  EXPECT_EQ(ExitCodeFor(config.error().code), 2);
  EXPECT_THAT(config.error().message, ::testing::HasSubstr("/nonexistent/gpusweep/exp.yaml"));
}

}  // namespace
}  // namespace gpusweep
