#include "cli/experiment_locator.h"

#include <thread>

#include <gtest/gtest.h>

#include "run/experiment_meta.h"
#include "run/test_util.h"

namespace gpusweep {
namespace {

TEST(LocateExperimentTest, GivenDirectoryMustHoldAJournal) {
  TempDir dir;
  auto missing = LocateExperiment(std::string("nope"), dir.path());
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().code, ErrorCode::kNotFound);
  EXPECT_NE(missing.error().message.find("nope"), std::string::npos);
  WriteFile(dir.path() / "exp/gpusweep.db", "");
  auto found = LocateExperiment(std::string("exp"), dir.path());
  ASSERT_TRUE(found);
  EXPECT_EQ(*found, dir.path() / "exp");
}

TEST(LocateExperimentTest, DefaultsToCwdThenNewestUnderRuns) {
  TempDir dir;
  EXPECT_FALSE(LocateExperiment(std::nullopt, dir.path()));
  WriteFile(dir.path() / "runs/old/gpusweep.db", "");
  auto old_time = std::filesystem::file_time_type::clock::now() - std::chrono::hours(1);
  std::filesystem::last_write_time(dir.path() / "runs/old/gpusweep.db", old_time);
  WriteFile(dir.path() / "runs/new/gpusweep.db", "");
  WriteFile(dir.path() / "runs/not-an-experiment/readme", "");
  EXPECT_EQ(LocateExperiment(std::nullopt, dir.path()).value(), dir.path() / "runs/new");
  EXPECT_EQ(LocateExperiment(std::nullopt, dir.path() / "runs/old").value(),
            dir.path() / "runs/old");
}

TEST(ExperimentMetaTest, RoundTrip) {
  TempDir dir;
  ExperimentMeta meta{"fmnist", MetricSpec{"val_loss", Mode::kMin}, 12, "/x/sweep.yaml",
                      SchedulerSummary{"asha", "epoch", 27}, CvConfig{5, 1, 0}};
  ASSERT_TRUE(WriteExperimentMeta(dir.path(), meta));
  auto read = ReadExperimentMeta(dir.path());
  ASSERT_TRUE(read) << read.error().message;
  EXPECT_EQ(read->name, "fmnist");
  EXPECT_EQ(read->metric.name, "val_loss");
  EXPECT_EQ(read->metric.mode, Mode::kMin);
  EXPECT_EQ(read->total_trials, 12);
  ASSERT_TRUE(read->scheduler);
  EXPECT_EQ(read->scheduler->type, "asha");
  EXPECT_EQ(read->scheduler->max_resource, 27);
  EXPECT_EQ(read->config_path, "/x/sweep.yaml");
  EXPECT_EQ(read->cv.folds, 5);
  EXPECT_EQ(read->cv.allow_failed_folds, 1);
  TempDir empty;
  EXPECT_EQ(ReadExperimentMeta(empty.path()).error().code, ErrorCode::kNotFound);
}

}  // namespace
}  // namespace gpusweep
