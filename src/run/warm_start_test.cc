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
  EXPECT_EQ(WarmStartListing(history, Objective(metric), 2),
            "warm start: 3 trials of runs/a seed the sampler (not rerun); assumed from "
            "warm_start.defaults: opt=sgd for 2 trials\n"
            "  its trial  state      score  lr      opt\n"
            "          4  completed   0.93  0.01    adam\n"
            "         12  completed    0.5  0.0001  sgd*\n"
            "  * assumed from warm_start.defaults\n"
            "  ... and 1 more\n");
}

// Several objectives: a column each, the front first (then the next front), and with a
// constraint whether each trial is feasible; an infeasible trial ranks after them all.
TEST(WarmStartListingTest, SeveralObjectivesAreColumnsInParetoOrder) {
  const auto trial = [](double acc, double size, double ms, double lr) {
    TrialRecord t = Completed(acc, {{"lr", lr}});
    t.last_metrics = {{"acc", acc}, {"size", size}, {"ms", ms}};
    return t;
  };
  WarmStartHistory history;
  history.from = "runs/a";
  history.trials = {trial(0.75, 4, 1, 0.05), trial(0.8, 3, 1, 0.1), trial(0.9, 5, 1, 0.2),
                    trial(0.95, 1, 20, 0.3), trial(0.7, 2, 1, 0.4)};
  history.source_numbers = {0, 1, 2, 3, 4};
  history.assumed = {{}, {}, {}, {}, {}};
  const Objective objective({{"acc", Mode::kMax}, {"size", Mode::kMin}}, {{"ms", std::nullopt, 10.0}});
  EXPECT_EQ(WarmStartListing(history, objective, 5),
            "warm start: 5 trials of runs/a seed the sampler (not rerun)\n"
            "  its trial  state       acc  size  feasible  lr\n"
            "          1  completed   0.8     3  yes       0.1\n"
            "          2  completed   0.9     5  yes       0.2\n"
            "          4  completed   0.7     2  yes       0.4\n"
            "          0  completed  0.75     4  yes       0.05\n"
            "          3  completed  0.95     1  no        0.3\n");
}

}  // namespace
}  // namespace gpusweep
