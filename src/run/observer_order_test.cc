// The observer hears of trial events in the order they happened: a trial that starts in
// the slot another one freed is announced after that one's finish.
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "run/runner_test_fixture.h"

namespace gpusweep {
namespace {

using ::testing::ElementsAre;

TEST_F(RunnerTest, FinishIsHeardBeforeTheStartItMadeRoomFor) {
  // One slot: each trial starts in the loop iteration after the previous one ended.
  auto config = Config(R"(
name: t
metric: {name: score, mode: max}
resources: {gpus: none, cpu_slots: 1}
shell: true
command: 'echo "{\"score\": {{x}}}" >> "$GPUSWEEP_METRICS"'
sampler: {type: grid}
search_space:
  x: {type: choice, values: [1, 2, 3]}
)");
  auto outcome = Run(config);
  ASSERT_TRUE(outcome) << outcome.error().message;
  EXPECT_THAT(observer_.events, ElementsAre("started 0", "finished 0", "started 1", "finished 1",
                                            "started 2", "finished 2"));
}

}  // namespace
}  // namespace gpusweep
