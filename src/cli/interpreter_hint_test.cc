#include "cli/interpreter_hint.h"

#include <gtest/gtest.h>

#include "run/test_util.h"

namespace gpusweep {
namespace {

constexpr std::string_view kMissing =
    "exit code 1: ModuleNotFoundError: No module named 'numpy'";

// A PATH holding one executable `python3`, as a pyenv shim directory does.
class InterpreterHintTest : public ::testing::Test {
 protected:
  void SetUp() override {
    shim_ = dir_.path() / "shims" / "python3";
    WriteFile(shim_, "#!/bin/sh\n");
    std::filesystem::permissions(shim_, std::filesystem::perms::owner_all);
    env_ = {"PATH=" + shim_.parent_path().string()};
  }
  ExperimentConfig Config(std::vector<std::string> command) {
    ExperimentConfig config;
    config.command = std::move(command);
    return config;
  }
  TempDir dir_;
  std::filesystem::path shim_;
  std::vector<std::string> env_;
};

TEST_F(InterpreterHintTest, NamesWhereABarePythonResolvedAndHowToPinIt) {
  auto hint = InterpreterHint(Config({"python3", "{{config_dir}}/train.py"}), kMissing, env_);
  ASSERT_TRUE(hint);
  EXPECT_NE(hint->find("python3, which PATH resolves to " + shim_.string()), std::string::npos)
      << *hint;
  EXPECT_NE(hint->find("absolute path in command:"), std::string::npos) << *hint;
  EXPECT_NE(hint->find("Which python3 a trial runs"), std::string::npos) << *hint;
}

TEST_F(InterpreterHintTest, SaysSoWhenThePythonIsNotOnPath) {
  auto hint = InterpreterHint(Config({"python3.11", "train.py"}), kMissing, {"PATH=/nowhere"});
  ASSERT_TRUE(hint);
  EXPECT_NE(hint->find("python3.11, looked up on PATH"), std::string::npos) << *hint;
}

TEST_F(InterpreterHintTest, ReadsTheFirstWordOfAShellCommand) {
  ExperimentConfig config;
  config.shell = true;
  config.shell_command = "  python train.py --lr {{lr}} | tee log";
  EXPECT_TRUE(InterpreterHint(config, "No module named torch", env_));
}

TEST_F(InterpreterHintTest, SilentForOtherFailuresAndChosenInterpreters) {
  EXPECT_FALSE(InterpreterHint(Config({"python3", "t.py"}), "exit code 1: ValueError: x", env_));
  EXPECT_FALSE(InterpreterHint(Config({"/usr/bin/python3", "t.py"}), kMissing, env_));
  EXPECT_FALSE(InterpreterHint(Config({"pytest", "t.py"}), kMissing, env_));
  EXPECT_FALSE(InterpreterHint(Config({"python3-config"}), kMissing, env_));
  EXPECT_FALSE(InterpreterHint(Config({"{{python}}", "t.py"}), kMissing, env_));
}

TEST_F(InterpreterHintTest, LooksAtFailedTrialsOnly) {
  TrialRecord completed;
  completed.state = TrialState::kCompleted;
  completed.failure_reason = std::string(kMissing);  // never set so; must not count
  TrialRecord failed;
  failed.state = TrialState::kFailed;
  failed.failure_reason = "exit code 1: ValueError: x";
  const ExperimentConfig config = Config({"python3", "t.py"});
  EXPECT_FALSE(InterpreterHint(config, std::vector<TrialRecord>{completed, failed}, env_));
  failed.failure_reason = std::string(kMissing);
  EXPECT_TRUE(InterpreterHint(config, std::vector<TrialRecord>{completed, failed}, env_));
}

}  // namespace
}  // namespace gpusweep
