// Extending a finished sweep: every sampler with a trial count may grow, a grid may
// gain repeats, and the recorded trials stay exactly as they were.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "gpusweep/sampler.h"
#include "run/runner_test_fixture.h"

namespace gpusweep {
namespace {

constexpr std::string_view kHead = R"(
name: t
metric: {name: score, mode: max}
resources: {gpus: auto, cpu_slots: 2}
shell: true
)";

// A sweep whose trials report score = x (so TPE has something to learn from).
std::string Sweep(const std::string& sampler) {
  return std::string(kHead) + fmt::format(R"(
command: 'echo "{{\"score\": "{{{{x}}}}"}}" >> "$GPUSWEEP_METRICS"'
sampler: {}
search_space:
  x: {{type: uniform, low: 0, high: 1}}
  k: {{type: choice, values: [1, 2, 3]}}
)",
                                          sampler);
}

using SweepGrowthTest = RunnerTest;

TEST_F(SweepGrowthTest, TpeContinuesFromTheRecordedHistory) {
  const std::string options = "type: tpe, seed: 4, n_startup_trials: 3";
  // One trial at a time, so each suggestion saw every earlier trial finished.
  auto sequential = [&](int trials) {
    std::string yaml = Sweep(fmt::format("{{{}, trials: {}}}", options, trials));
    yaml.replace(yaml.find("cpu_slots: 2"), 12, "cpu_slots: 1");
    return Config(yaml);
  };
  auto first = Run(sequential(4));
  ASSERT_TRUE(first) << first.error().message;
  const ExperimentConfig grown = sequential(7);
  auto extended = Run(grown);
  ASSERT_TRUE(extended) << extended.error().message;
  EXPECT_EQ(observer_.info.to_run, 3);
  ASSERT_EQ(extended->trials.size(), 7u);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(extended->trials[i].params, first->trials[i].params);
  // Each new trial is what TPE suggests from the trials before it (the model, not the
  // random start-up: 4 scored trials > n_startup_trials).
  auto sampler = MakeSampler(grown.sampler, grown.search_space, grown.metric.mode);
  ASSERT_TRUE(sampler);
  for (int number = 4; number < 7; ++number)
    EXPECT_EQ(extended->trials[number].params,
              (*sampler)->Suggest(number, extended->trials).params)
        << "trial " << number;
  // Other sampler settings still make a different experiment.
  auto reseeded = Run(Config(Sweep("{type: tpe, seed: 5, n_startup_trials: 3, trials: 7}")));
  ASSERT_FALSE(reseeded);
  EXPECT_EQ(reseeded.error().code, ErrorCode::kConfigChanged);
  EXPECT_NE(reseeded.error().message.find("sampler.seed (4 -> 5)"), std::string::npos)
      << reseeded.error().message;
  EXPECT_EQ(reseeded.error().message.find("sampler.trials"), std::string::npos)
      << reseeded.error().message;
}

TEST_F(SweepGrowthTest, SobolContinuesItsSequence) {
  auto first = Run(Config(Sweep("{type: sobol, seed: 2, trials: 4}")));
  ASSERT_TRUE(first) << first.error().message;
  auto extended = Run(Config(Sweep("{type: sobol, seed: 2, trials: 8}")));
  ASSERT_TRUE(extended) << extended.error().message;
  ASSERT_EQ(extended->trials.size(), 8u);
  // The same points as an 8-trial sweep from the start: the sequence went on.
  const ExperimentConfig eight = Config(Sweep("{type: sobol, seed: 2, trials: 8}"));
  auto sampler = MakeSampler(eight.sampler, eight.search_space, eight.metric.mode);
  ASSERT_TRUE(sampler);
  for (int number = 0; number < 8; ++number)
    EXPECT_EQ(extended->trials[number].params, (*sampler)->Suggest(number, {}).params);
  auto shrunk = Run(Config(Sweep("{type: sobol, seed: 2, trials: 6}")));
  ASSERT_FALSE(shrunk);
  EXPECT_NE(shrunk.error().message.find("sampler.trials (8 -> 6)"), std::string::npos)
      << shrunk.error().message;
}

TEST_F(SweepGrowthTest, GridMayGainRepeatsButNotLoseThem) {
  const std::string grid = std::string(kHead) + R"(
command: 'echo "{\"score\": "{{k}}"}" >> "$GPUSWEEP_METRICS"'
search_space:
  k: {type: choice, values: [1, 2, 3]}
)";
  ASSERT_TRUE(Run(Config(grid + "sampler: {type: grid}\n")));
  auto extended = Run(Config(grid + "sampler: {type: grid, repeats: 3}\n"));
  ASSERT_TRUE(extended) << extended.error().message;
  EXPECT_EQ(observer_.info.to_run, 6);
  ASSERT_EQ(extended->trials.size(), 9u);
  for (const TrialRecord& trial : extended->trials) {
    EXPECT_EQ(trial.repeat, trial.number / 3);
    EXPECT_EQ(trial.params["k"], trial.number % 3 + 1);
    EXPECT_EQ(trial.attempt, 1);  // nothing ran twice
  }
  auto fewer = Run(Config(grid + "sampler: {type: grid, repeats: 2}\n"));
  ASSERT_FALSE(fewer);
  EXPECT_EQ(fewer.error().code, ErrorCode::kConfigChanged);
  EXPECT_NE(fewer.error().message.find("sampler.repeats (-> 2) [a sweep may only grow: it has 9 "
                                       "trials planned or recorded, this config plans 6]"),
            std::string::npos)
      << fewer.error().message;
}

TEST_F(SweepGrowthTest, SuccessiveHalvingCannotGrow) {
  const std::string sweep = std::string(kHead) + R"(
command: 'echo "{\"epoch\": "{{budget}}", \"score\": "{{x}}"}" >> "$GPUSWEEP_METRICS"'
scheduler: {type: successive_halving, min_resource: 1, max_resource: 2}
search_space:
  x: {type: uniform, low: 0, high: 1}
)";
  ASSERT_TRUE(Run(Config(sweep + "sampler: {type: tpe, trials: 2}\n")));
  auto grown = Run(Config(sweep + "sampler: {type: tpe, trials: 4}\n"));
  ASSERT_FALSE(grown);
  EXPECT_NE(grown.error().message.find("sampler.trials (2 -> 4)"), std::string::npos)
      << grown.error().message;
}

}  // namespace
}  // namespace gpusweep
