// End-to-end: what the terminal and `status` say about a warm start, a bare-list
// warning, and a sweep stopped by max_failures (exit code 1, the failures named).
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

}  // namespace
}  // namespace gpusweep
