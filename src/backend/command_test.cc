#include "backend/command.h"

#include <csignal>

#include <gtest/gtest.h>

#include "process/signal_catcher.h"

namespace gpusweep {
namespace {

const std::vector<std::string> kEnv{"PATH=/usr/bin:/bin"};

TEST(CommandTest, CapturesOutputErrorsAndExitCode) {
  auto result = RunCommand({"sh", "-c", "echo out; echo err >&2; exit 3"}, kEnv, 30);
  ASSERT_TRUE(result) << result.error().message;
  EXPECT_EQ(result->exit_code, 3);
  EXPECT_EQ(result->out, "out\n");
  EXPECT_EQ(result->err, "err\n");
  EXPECT_EQ(LastLine(*result), "err");
}

TEST(CommandTest, AMissingProgramIsAnErrorNamingIt) {
  auto result = RunCommand({"no-such-sbatch-here"}, kEnv, 30);
  ASSERT_FALSE(result);
  EXPECT_NE(result.error().message.find("no-such-sbatch-here"), std::string::npos)
      << result.error().message;
}

TEST(CommandTest, AHangingCommandIsKilledAtItsTimeout) {
  auto result = RunCommand({"sleep", "30"}, kEnv, 0.3);
  ASSERT_TRUE(result);
  EXPECT_TRUE(result->timed_out);
  EXPECT_EQ(result->exit_code, -1);
}

// gpusweep blocks SIGTERM while it supervises; the client must not inherit that.
TEST(CommandTest, TheChildStartsWithNoBlockedSignals) {
  SignalCatcher catcher;
  auto result = RunCommand({"sh", "-c", "grep SigBlk /proc/self/status"}, kEnv, 30);
  ASSERT_TRUE(result);
  EXPECT_EQ(result->out, "SigBlk:\t0000000000000000\n");
}

}  // namespace
}  // namespace gpusweep
