#include "cli/experiment_locator.h"

#include <thread>

#include <fmt/format.h>
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

// The message says what the path is instead: missing, a file, a folder without
// experiments, or a folder of experiments (runs/), naming them.
TEST(LocateExperimentTest, AnythingElseIsSaidForWhatItIs) {
  TempDir dir;
  const auto message = [&](const std::string& given) {
    auto located = LocateExperiment(given, dir.path());
    return located ? std::string("found") : located.error().message;
  };
  EXPECT_NE(message("nope").find("there is no such directory"), std::string::npos);
  WriteFile(dir.path() / "file.txt", "");
  EXPECT_NE(message("file.txt").find("it is a file"), std::string::npos);
  WriteFile(dir.path() / "runs/notes/readme", "");
  EXPECT_NE(message("runs").find("gpusweep.db does not exist there, nor in a directory inside it"),
            std::string::npos);
  WriteFile(dir.path() / "runs/b/gpusweep.db", "");
  EXPECT_EQ(message("runs"), fmt::format("{} is not an experiment but holds one, b; pass that: {}",
                                         (dir.path() / "runs").string(), (dir.path() / "runs/b").string()));
  WriteFile(dir.path() / "runs/a/gpusweep.db", "");
  std::filesystem::last_write_time(dir.path() / "runs/a/gpusweep.db",
                                   std::filesystem::file_time_type::clock::now() - std::chrono::hours(1));
  EXPECT_NE(message("runs").find("holds 2 (b, a, the newest first); pass one of them, e.g. " +
                                 (dir.path() / "runs/b").string()),
            std::string::npos)
      << message("runs");
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
