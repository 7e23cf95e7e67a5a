// End-to-end: what `gpusweep serve` and `gpusweep report` tell a user who asks for
// something they cannot have (a short token, a port in use, a report path that is a
// directory), through the real binary.
#include <signal.h>
#include <sys/wait.h>

#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "cli_harness.h"
#include "run/test_util.h"
#include "web/web_test_util.h"

namespace gpusweep {
namespace {

using web::testing::FakeExperiment;

struct Outcome {
  bool exited = false;  // false: still running after the wait, then stopped
  int exit_code = -1;
  std::string out;
};

// Runs gpusweep for at most `seconds`; a server still running then is stopped. So a
// check that is missing makes the test fail instead of hanging on a server.
Outcome RunBriefly(const std::vector<std::string>& args, const std::filesystem::path& cwd,
                   double seconds = 20) {
  const std::filesystem::path log = cwd / "brief.log";
  const pid_t pid = testing::StartGpusweep(args, cwd, log);
  Outcome outcome;
  int status = 0;
  outcome.exited =
      testing::WaitUntil(seconds, [&] { return ::waitpid(pid, &status, WNOHANG) == pid; });
  if (!outcome.exited) {
    ::kill(-pid, SIGTERM);
    ::waitpid(pid, &status, 0);
  }
  outcome.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  outcome.out = ReadFile(log);
  return outcome;
}

class WebCliTest : public ::testing::Test {
 protected:
  WebCliTest() : exp_(dir_.path() / "runs", "lr-sweep", 2) {}
  TempDir dir_;
  FakeExperiment exp_;
};

TEST_F(WebCliTest, ServeRefusesATokenShorterThanSixteenCharactersWithExitTwo) {
  Outcome short_token = RunBriefly({"serve", "--port", "0", "--token", "ab"}, dir_.path());
  ASSERT_TRUE(short_token.exited) << short_token.out;
  EXPECT_EQ(short_token.exit_code, 2) << short_token.out;
  EXPECT_NE(short_token.out.find("--token"), std::string::npos) << short_token.out;
  EXPECT_NE(short_token.out.find("at least 16"), std::string::npos) << short_token.out;
  EXPECT_EQ(short_token.out.find("http://"), std::string::npos) << short_token.out;

  // Sixteen characters serve.
  Outcome enough = RunBriefly({"serve", "--port", "0", "--token", "0123456789abcdef"},
                              dir_.path(), 3);
  EXPECT_FALSE(enough.exited) << enough.out;
  EXPECT_NE(enough.out.find("?token=0123456789abcdef"), std::string::npos) << enough.out;
}

TEST_F(WebCliTest, ASecondServeOnAPortInUseExitsNamingIt) {
  const std::filesystem::path first_log = dir_.path() / "first.log";
  const pid_t first = testing::StartGpusweep({"serve", "--port", "0"}, dir_.path(), first_log);
  std::string url;
  ASSERT_TRUE(testing::WaitUntil(20, [&] {
    url = ReadFile(first_log);
    return url.find("/  (Ctrl-C") != std::string::npos;
  })) << url;
  const std::string prefix = "http://127.0.0.1:";
  const std::string port = url.substr(url.find(prefix) + prefix.size(),
                                      url.find("/  (Ctrl-C") - url.find(prefix) - prefix.size());

  Outcome second = RunBriefly({"serve", "--port", port}, dir_.path());
  ::kill(-first, SIGTERM);
  EXPECT_EQ(testing::WaitExit(first), 0);
  ASSERT_TRUE(second.exited) << second.out;
  EXPECT_EQ(second.exit_code, 1) << second.out;
  EXPECT_NE(second.out.find("cannot listen on 127.0.0.1:" + port + " (in use"), std::string::npos)
      << second.out;
  EXPECT_NE(second.out.find("--port"), std::string::npos) << second.out;
}

TEST_F(WebCliTest, AReportIntoADirectoryIsNamedAfterTheExperiment) {
  std::filesystem::create_directory(dir_.path() / "out");
  for (const std::string output : {"out/", "out"}) {
    std::filesystem::remove(dir_.path() / "out" / "lr-sweep.html");
    auto report = testing::RunGpusweep({"report", "runs/lr-sweep", "-o", output}, dir_.path());
    EXPECT_EQ(report.exit_code, 0) << report.out;
    EXPECT_NE(report.out.find("wrote out/lr-sweep.html"), std::string::npos) << report.out;
    EXPECT_NE(ReadFile(dir_.path() / "out" / "lr-sweep.html").find("<html"), std::string::npos)
        << output;
  }
  // The experiment given as "." from inside it, with a trailing slash: still its name.
  auto from_inside = testing::RunGpusweep({"report", "./", "-o", "../../out"}, exp_.dir());
  EXPECT_EQ(from_inside.exit_code, 0) << from_inside.out;
  EXPECT_NE(from_inside.out.find("wrote ../../out/lr-sweep.html"), std::string::npos)
      << from_inside.out;
}

TEST_F(WebCliTest, AReportIntoAMissingDirectorySaysSoAndWritesNothing) {
  auto report = testing::RunGpusweep({"report", "runs/lr-sweep", "-o", "missing/"}, dir_.path());
  EXPECT_EQ(report.exit_code, 2) << report.out;
  EXPECT_NE(report.out.find("-o missing/: no such directory; create it first"),
            std::string::npos)
      << report.out;
  EXPECT_FALSE(std::filesystem::exists(dir_.path() / "missing"));
}

}  // namespace
}  // namespace gpusweep
