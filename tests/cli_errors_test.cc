// End-to-end: config mistakes found at run time still exit 2 with the YAML location
// and the key (GPU demand against the GPUs actually allowed; template names).
#include <stdlib.h>

#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "cli_harness.h"
#include "run/test_util.h"

namespace gpusweep {
namespace {

constexpr std::string_view kSweep = R"(name: e2e
command: [/bin/true]
metric: {name: acc, mode: max}
sampler: {type: grid}
search_space:
  a: {type: choice, values: [1, 2]}
)";

// The fake libnvidia-ml (two GPUs) found by the binary's dlopen through
// LD_LIBRARY_PATH, as the real driver library would be.
class CliErrorsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::filesystem::create_directory(dir_.path() / "lib");
    std::filesystem::create_symlink(GS_FAKE_NVML_PATH, dir_.path() / "lib" / "libnvidia-ml.so.1");
    setenv("LD_LIBRARY_PATH", (dir_.path() / "lib").c_str(), 1);
    unsetenv("CUDA_VISIBLE_DEVICES");
  }
  void TearDown() override {
    unsetenv("LD_LIBRARY_PATH");
    unsetenv("CUDA_VISIBLE_DEVICES");
  }
  testing::CommandResult Run(const std::string& yaml, std::vector<std::string> extra = {}) {
    WriteFile(dir_.path() / "sweep.yaml", yaml);
    std::vector<std::string> args{"run", "sweep.yaml"};
    args.insert(args.end(), extra.begin(), extra.end());
    return testing::RunGpusweep(args, dir_.path());
  }
  TempDir dir_;
};

TEST_F(CliErrorsTest, TooManyGpusPerTrialExitsTwoNamingTheKeyWhereverGpusComeFrom) {
  const std::string written = std::string(kSweep).append("resources: {gpus_per_trial: 2}\n");
  const std::string at_key = "sweep.yaml:7:29: resources.gpus_per_trial: trial 0 needs 2 GPUs "
                             "but only 1 is available";
  auto by_flag = Run(written, {"--gpus", "1"});
  EXPECT_EQ(by_flag.exit_code, 2) << by_flag.out;
  EXPECT_NE(by_flag.out.find(at_key), std::string::npos) << by_flag.out;
  EXPECT_NE(by_flag.out.find("(GPUs allowed by --gpus)"), std::string::npos) << by_flag.out;

  setenv("CUDA_VISIBLE_DEVICES", "0", 1);
  auto by_env = Run(written);
  EXPECT_EQ(by_env.exit_code, 2) << by_env.out;
  EXPECT_NE(by_env.out.find(at_key), std::string::npos) << by_env.out;
  EXPECT_NE(by_env.out.find("(GPUs allowed by CUDA_VISIBLE_DEVICES)"), std::string::npos)
      << by_env.out;
  unsetenv("CUDA_VISIBLE_DEVICES");

  auto detected = Run(std::string(kSweep).append("resources:\n  gpus_per_trial: [1, 3]\n"));
  EXPECT_EQ(detected.exit_code, 2) << detected.out;
  EXPECT_NE(detected.out.find("sweep.yaml:8:19: resources.gpus_per_trial: trial 1 needs 3 GPUs "
                              "but only 2 are available"),
            std::string::npos)
      << detected.out;
  EXPECT_NE(detected.out.find("(GPUs allowed by NVML detection)"), std::string::npos)
      << detected.out;

  auto listed = Run(std::string(kSweep).append("resources: {gpus: [0], gpus_per_trial: 2}\n"));
  EXPECT_EQ(listed.exit_code, 2) << listed.out;
  EXPECT_NE(listed.out.find("sweep.yaml:7:40: resources.gpus_per_trial:"), std::string::npos)
      << listed.out;
  EXPECT_FALSE(std::filesystem::exists(dir_.path() / "runs"));
}

// The YAML file:line:column of the string, then the position inside it; for a template
// file its own line:column and where the YAML names it.
TEST_F(CliErrorsTest, UnknownTemplateNameGivesTheYamlPositionInEveryForm) {
  constexpr std::string_view kRest = R"(metric: {name: acc, mode: max}
sampler: {type: grid}
search_space:
  lr: {type: choice, values: [1]}
)";
  auto argv = Run("name: e2e\ncommand: [/bin/echo, --lr, \"x {{lr2}}\"]\n" + std::string(kRest));
  EXPECT_EQ(argv.exit_code, 2) << argv.out;
  EXPECT_NE(argv.out.find("sweep.yaml:2:28: command[2]:1:3: unknown name 'lr2' in {{lr2}}"),
            std::string::npos)
      << argv.out;
  auto shell = Run("name: e2e\nshell: true\ncommand: \"echo {{lr}} {{lr2}}\"\n" +
                   std::string(kRest));
  EXPECT_EQ(shell.exit_code, 2) << shell.out;
  EXPECT_NE(shell.out.find("sweep.yaml:3:10: command:1:13: unknown name 'lr2'"), std::string::npos)
      << shell.out;
  WriteFile(dir_.path() / "setup.mustache", "lr = {{lr}}\nm = {{mom}}\n");
  auto file = Run("name: e2e\ncommand: [/bin/true]\n" + std::string(kRest) +
                  "templates:\n  - {src: setup.mustache, dst: setup.py}\n");
  EXPECT_EQ(file.exit_code, 2) << file.out;
  EXPECT_NE(file.out.find("setup.mustache:2:5: unknown name 'mom' in {{mom}}"), std::string::npos)
      << file.out;
  EXPECT_NE(file.out.find("(the template of templates[0] at "), std::string::npos) << file.out;
  EXPECT_NE(file.out.find("sweep.yaml:8:5)"), std::string::npos) << file.out;
  WriteFile(dir_.path() / "setup.mustache", "x\n  {{#a}}\n");
  auto syntax = Run("name: e2e\ncommand: [/bin/true]\n" + std::string(kRest) +
                    "templates:\n  - {src: setup.mustache, dst: setup.py}\n");
  EXPECT_EQ(syntax.exit_code, 2) << syntax.out;
  EXPECT_NE(syntax.out.find("sweep.yaml:8:11: templates[0].src: "), std::string::npos)
      << syntax.out;
  EXPECT_NE(syntax.out.find("Unclosed section \"a\" at line 2, column 3"), std::string::npos)
      << syntax.out;
}

// Population-based training needs a command that reads {{budget}}: the refusal names
// where the command is, as every other config error does.
TEST_F(CliErrorsTest, APbtCommandWithoutBudgetIsRefusedAtTheCommandsPlace) {
  auto result = Run(R"(name: e2e
command: [/bin/true, --lr, "{{lr}}"]
metric: {name: acc, mode: max}
sampler: {type: random, trials: 4, seed: 1}
search_space:
  lr: {type: float, low: 0.1, high: 1}
scheduler: {type: pbt, resource: epoch, population: 4, perturbation_interval: 1, max_resource: 4}
resources: {gpus: none}
)");
  EXPECT_EQ(result.exit_code, 2) << result.out;
  EXPECT_NE(result.out.find("sweep.yaml:2:11: command: population-based training runs each member in "
                            "segments, and the command does not read {{budget}}"),
            std::string::npos)
      << result.out;
  EXPECT_FALSE(std::filesystem::exists(dir_.path() / "runs" / "e2e")) << "nothing written";
}

}  // namespace
}  // namespace gpusweep
