// End-to-end: what the terminal and `status` say about a warm start, a bare-list
// warning, and a sweep stopped by max_failures (exit code 1, the failures named).
#include <cstdlib>

#include <gtest/gtest.h>

#include "cli_fixture.h"
#include "cli_harness.h"

namespace gpusweep {
namespace {

using testing::RunGpusweep;

TEST_F(CliTest, WarmStartIsListedAndMaxFailuresStopsTheSweep) {
  WriteFile(dir_.path() / "first.yaml", R"(
name: first
command: [/bin/sh, -c, 'echo "{\"score\": {{x}}}" >> "$GPUSWEEP_METRICS"']
metric: {name: score, mode: max}
sampler: {type: random, trials: 3, seed: 1}
search_space:
  x: {type: uniform, low: 0, high: 1}
)");
  ASSERT_EQ(RunGpusweep({"run", "first.yaml"}, dir_.path()).exit_code, 0);

  Write(R"(
name: e2e
command: [/bin/sh, -c, 'echo "{\"score\": {{x}}}" >> "$GPUSWEEP_METRICS"']
metric: {name: score, goal: maximize}
sampler: {type: tpe, trials: 1, n_startup_trials: 2}
search_space:
  x: {type: float, min: 0, max: 2}
warm_start: {from: runs/first}
)");
  auto seeded = RunGpusweep({"run", "sweep.yaml"}, dir_.path());
  EXPECT_EQ(seeded.exit_code, 0) << seeded.out;
  EXPECT_NE(seeded.out.find("warm start: 3 trials of " + (dir_.path() / "runs/first").string() +
                            " seed the sampler (not rerun)"),
            std::string::npos)
      << seeded.out;
  auto status = RunGpusweep({"status"}, dir_.path());
  EXPECT_NE(status.out.find("warm start: 3 trials of"), std::string::npos) << status.out;
  EXPECT_NE(status.out.find("  its trial "), std::string::npos) << status.out;

  WriteFile(dir_.path() / "failing.yaml", R"(
name: failing
command: [/bin/sh, -c, 'echo "ModuleNotFoundError: No module named torch" >&2; exit 1']
metric: {name: score, mode: max}
sampler: {type: random, trials: 20}
search_space:
  x: {type: uniform, low: 0, high: 1}
  tags: [a, b]
resources: {cpu_slots: 1}
max_failures: 2
)");
  auto failing = RunGpusweep({"run", "failing.yaml"}, dir_.path());
  EXPECT_EQ(failing.exit_code, 1) << failing.out;
  EXPECT_NE(failing.out.find("search_space.tags: a bare list is a constant"), std::string::npos)
      << failing.out;
  EXPECT_NE(failing.out.find("2 of 2 trials finished in this run failed (max_failures: 2), so no "
                             "further trial was started; failed: trials 0, 1; the last, trial 1: "
                             "exit code 1"),
            std::string::npos)
      << failing.out;
}

// A `python3` on PATH that lacks the trial's packages (a pyenv shim picking another
// interpreter): the end of the run, and the max_failures message, say where it resolved
// and how to pin one.
TEST_F(CliTest, MissingModuleFromAPathPythonPointsAtPinningTheInterpreter) {
  const auto shim = dir_.path() / "shims" / "python3";
  WriteFile(shim, "#!/bin/sh\necho \"ModuleNotFoundError: No module named 'numpy'\" >&2\nexit 1\n");
  std::filesystem::permissions(shim, std::filesystem::perms::owner_all);
  const std::string old_path = std::getenv("PATH") ? std::getenv("PATH") : "";
  setenv("PATH", (shim.parent_path().string() + ":" + old_path).c_str(), 1);
  const std::string config = R"(
name: e2e
command: [python3, train.py]
metric: {name: score, mode: max}
sampler: {type: random, trials: 3}
search_space:
  x: {type: uniform, low: 0, high: 1}
resources: {cpu_slots: 1}
)";
  Write(config);
  auto all_failed = RunGpusweep({"run", "sweep.yaml"}, dir_.path());
  Write(config + "max_failures: 1\n");
  auto stopped = RunGpusweep({"run", "sweep.yaml", "--dir", "runs/stopped"}, dir_.path());
  setenv("PATH", old_path.c_str(), 1);

  const std::string hint = "hint: a module is missing and the trials run python3, which PATH "
                           "resolves to " + shim.string();
  EXPECT_EQ(all_failed.exit_code, 1) << all_failed.out;
  EXPECT_NE(all_failed.out.find(hint), std::string::npos) << all_failed.out;
  EXPECT_EQ(stopped.exit_code, 1) << stopped.out;
  EXPECT_NE(stopped.out.find("(max_failures: 1)"), std::string::npos) << stopped.out;
  EXPECT_NE(stopped.out.find(hint), std::string::npos) << stopped.out;
}

}  // namespace
}  // namespace gpusweep
