// test_util.cc — see test_util.h.
#include "process/test_util.h"

#include <stdlib.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string_view>
#include <thread>

namespace gpusweep::testing {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

bool CgroupExpected() {
  const char* expect = std::getenv("GPUSWEEP_EXPECT_CGROUP");
  return expect != nullptr && std::string_view(expect) == "1";
}

bool WaitUntil(const std::function<bool()>& condition, double seconds) {
  const auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                           std::chrono::duration<double>(seconds));
  for (;;) {
    if (condition()) return true;
    if (Clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

SpawnRequest ShellRequest(const std::string& script, const fs::path& dir) {
  SpawnRequest request;
  request.argv = {"/bin/sh", "-c", script};
  request.env = {"PATH=/usr/bin:/bin"};
  request.cwd = dir;
  request.log_path = dir / "log";
  return request;
}

std::optional<ProcessExit> WaitForExit(ProcessRunner& runner, ProcessId pid, double seconds) {
  const auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                           std::chrono::duration<double>(seconds));
  while (Clock::now() < deadline) {
    WaitOutcome outcome = runner.Wait(0.5);
    for (const ProcessEvent& event : outcome.exited) {
      if (event.pid == pid) return event.exit;
    }
  }
  return std::nullopt;
}

std::map<ProcessId, ProcessExit> WaitForAll(ProcessRunner& runner, double seconds) {
  std::map<ProcessId, ProcessExit> exits;
  const auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                           std::chrono::duration<double>(seconds));
  while (runner.running() > 0 && Clock::now() < deadline) {
    for (const ProcessEvent& event : runner.Wait(0.5).exited) exits[event.pid] = event.exit;
  }
  return exits;
}

}  // namespace gpusweep::testing
