// The warm-start listing shown when a run starts and by `status`: a table whose columns
// line up, best first, with the values assumed from warm_start.defaults marked.
#include "run/warm_start.h"

#include <gtest/gtest.h>

namespace gpusweep {
namespace {

TrialRecord Completed(double objective, Json params) {
  TrialRecord trial;
  trial.state = TrialState::kCompleted;
  trial.objective = objective;
  trial.params = std::move(params);
  return trial;
}

TEST(WarmStartListingTest, IsATableWithAlignedColumns) {
  WarmStartHistory history;
  history.from = "runs/a";
  history.trials = {Completed(0.5, {{"lr", 0.0001}, {"opt", "sgd"}}),
                    Completed(0.93, {{"lr", 0.01}, {"opt", "adam"}}),
                    Completed(0.125, {{"lr", 0.003}, {"opt", "sgd"}})};
  history.source_numbers = {12, 4, 7};
  history.assumed = {{"opt"}, {}, {"opt"}};
  const MetricSpec metric{"score", Mode::kMax};
  EXPECT_EQ(WarmStartListing(history, metric, 2),
            "warm start: 3 trials of runs/a seed the sampler (not rerun); assumed from "
            "warm_start.defaults: opt=sgd for 2 trials\n"
            "  its trial  state      score  lr      opt\n"
            "          4  completed   0.93  0.01    adam\n"
            "         12  completed    0.5  0.0001  sgd*\n"
            "  * assumed from warm_start.defaults\n"
            "  ... and 1 more\n");
}

}  // namespace
}  // namespace gpusweep
