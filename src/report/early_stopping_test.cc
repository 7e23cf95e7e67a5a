#include <gtest/gtest.h>

#include "report/report_test_util.h"

namespace gpusweep {
namespace {

using testing::MakeContext;

TrialRecord Ended(int number, TrialState state, double seconds, std::optional<double> epoch,
                  std::vector<int> gpus = {}) {
  TrialRecord t;
  t.number = number;
  t.state = state;
  t.start_time = 100;
  t.end_time = state == TrialState::kRunning ? 0 : 100 + seconds;
  if (epoch) t.last_metrics["epoch"] = *epoch;
  t.gpus = std::move(gpus);
  return t;
}

// Trial 2 stopped at epoch 1 of 4 on two GPUs (3 epochs, 6 GPU-epochs); trial 3,
// budgeted, at budget 2 on the CPU (2 epochs); trial 4 reported nothing; trial 5 runs.
TEST(EarlyStoppingTest, SavingsAreTheEpochsPrunedTrialsDidNotTrain) {
  std::vector<TrialRecord> trials{
      Ended(0, TrialState::kCompleted, 40, 4), Ended(1, TrialState::kCompleted, 20, 4),
      Ended(2, TrialState::kPruned, 12, 1, {0, 1}), Ended(3, TrialState::kPruned, 9, std::nullopt),
      Ended(4, TrialState::kPruned, 1, std::nullopt), Ended(5, TrialState::kRunning, 0, 2)};
  trials[3].budget = 2;
  const SchedulerSummary asha{"asha", "epoch", 4};
  const EarlyStoppingSavings s = EstimateEarlyStoppingSavings(trials, asha);
  EXPECT_EQ(s.pruned, 3);
  EXPECT_DOUBLE_EQ(s.resource_saved, 5);
  EXPECT_DOUBLE_EQ(s.gpu_resource_saved, 6);
  EXPECT_DOUBLE_EQ(s.cpu_resource_saved, 2);

  ReportContext ctx = MakeContext();
  EXPECT_EQ(FormatEarlyStopping(trials, ctx), "");  // no scheduler
  ctx.scheduler = asha;
  EXPECT_EQ(FormatEarlyStopping(trials, ctx),
            "3 of 6 trials pruned early by asha; epoch not trained: 5 of 24 (21%)");
}

}  // namespace
}  // namespace gpusweep
