// test_util.h — helpers shared by the process module's tests (real processes, temp dirs).
#pragma once

#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>

#include "common/temp_dir_for_tests.h"
#include "process/process_runner.h"

namespace gpusweep::testing {

using test_support::ReadFile;
using test_support::TempDir;

// Whether this machine must give each trial a cgroup v2: GPUSWEEP_EXPECT_CGROUP=1, set
// by scripts/test.sh when scripts/cgroup-probe.sh finds cgroups usable (and by .ci/run
// as root on a cgroup v2 machine). Then a fallback to process groups is a test failure,
// never a skip; without it the cgroup-only tests skip and say so.
bool CgroupExpected();

// Polls `condition` every 10 ms; true once it holds, false after `seconds`.
bool WaitUntil(const std::function<bool()>& condition, double seconds);

// /bin/sh -c `script`, PATH=/usr/bin:/bin only, cwd `dir`, log dir/"log".
SpawnRequest ShellRequest(const std::string& script, const std::filesystem::path& dir);

// Waits (repeatedly, up to `seconds`) until `pid` is reaped by `runner`.
std::optional<ProcessExit> WaitForExit(ProcessRunner& runner, ProcessId pid, double seconds);

// Waits until `runner` has no running child (up to `seconds`); every exit seen, by pid.
std::map<ProcessId, ProcessExit> WaitForAll(ProcessRunner& runner, double seconds);

}  // namespace gpusweep::testing
