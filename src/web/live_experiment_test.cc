#include "web/live_experiment.h"

#include <gtest/gtest.h>

#include "common/temp_dir_for_tests.h"
#include "web/web_test_util.h"

namespace gpusweep::web {
namespace {

using test_support::TempDir;
using testing::FakeExperiment;

std::unique_ptr<LiveExperiment> MustOpen(const std::filesystem::path& dir) {
  auto opened = LiveExperiment::Open(dir, nullptr);
  EXPECT_TRUE(opened) << opened.error().message;
  return opened ? std::move(*opened) : nullptr;
}

TEST(LiveExperimentTest, SummaryCountsStatesAndNamesTheBest) {
  TempDir tmp;
  FakeExperiment fake(tmp.path(), "exp", 4);
  auto live = MustOpen(fake.dir());
  auto summary = live->Summary();
  ASSERT_TRUE(summary) << summary.error().message;
  EXPECT_EQ((*summary)["counts"]["completed"], 4);
  EXPECT_EQ((*summary)["best"]["trial"], 3);  // mode max: the largest objective
  EXPECT_EQ((*summary)["params"], (Json{"lr", "opt"}));
  EXPECT_EQ((*summary)["total"], 6);
  EXPECT_EQ((*summary)["running"], false);
}

TEST(LiveExperimentTest, OnlyChangedTrialsAndNewPointsTravel) {
  TempDir tmp;
  FakeExperiment fake(tmp.path(), "exp", 3, 2);
  auto live = MustOpen(fake.dir());
  auto first = live->TrialsSince(0);
  ASSERT_TRUE(first);
  EXPECT_EQ((*first)["trials"].size(), 3u);
  auto points = live->PointsAfter(0);
  ASSERT_TRUE(points);
  EXPECT_EQ((*points)["trial"].size(), 6u);
  const auto revision = (*first)["revision"].get<std::int64_t>();
  const auto cursor = (*points)["cursor"].get<std::int64_t>();

  auto same = live->TrialsSince(revision);
  ASSERT_TRUE(same);
  EXPECT_TRUE((*same)["trials"].empty());  // nothing changed: nothing travels

  fake.AddTrial(3, 2);  // a run finishes another trial meanwhile
  auto next = live->TrialsSince(revision);
  ASSERT_TRUE(next);
  ASSERT_EQ((*next)["trials"].size(), 1u);
  EXPECT_EQ((*next)["trials"][0]["number"], 3);
  auto new_points = live->PointsAfter(cursor);
  ASSERT_TRUE(new_points);
  EXPECT_EQ((*new_points)["trial"], (Json{3, 3}));
  EXPECT_EQ((*new_points)["step"], (Json{0, 1}));
}

TEST(LiveExperimentTest, TrialDetailHasResultsAndTheLogTail) {
  TempDir tmp;
  FakeExperiment fake(tmp.path(), "exp", 2);
  tmp.Write("exp/trials/0001/output.log", "epoch 1\nepoch 2\ndone <b>bold</b>\n");
  auto live = MustOpen(fake.dir());
  auto detail = live->TrialDetail(1);
  ASSERT_TRUE(detail) << detail.error().message;
  EXPECT_EQ((*detail)["results"].size(), 3u);
  EXPECT_EQ((*detail)["log_tail"], "epoch 1\nepoch 2\ndone <b>bold</b>\n");
  EXPECT_EQ((*detail)["trial"]["params"]["opt"], "adam");
  auto missing = live->TrialDetail(7);
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().code, ErrorCode::kNotFound);
}

TEST(LiveExperimentTest, LogTailNeverFollowsASymlinkOutOfTheExperiment) {
  TempDir tmp, outside;
  FakeExperiment fake(tmp.path(), "exp", 3);
  const auto secret = outside.Write("secret.txt", "top secret\n");
  std::filesystem::create_directories(fake.dir() / "trials" / "0000");
  std::filesystem::create_symlink(secret, fake.dir() / "trials" / "0000" / "output.log");
  std::filesystem::create_directory_symlink(outside.path(), fake.dir() / "trials" / "0001");
  outside.Write("output.log", "also secret\n");
  auto live = MustOpen(fake.dir());
  EXPECT_EQ((*live->TrialDetail(0))["log_tail"], "");
  EXPECT_EQ((*live->TrialDetail(1))["log_tail"], "");
}

TEST(LiveExperimentTest, ConfinedTailKeepsTheLastBytesFromALineStart) {
  TempDir tmp;
  const auto log = tmp.Write("output.log", "first line\nsecond line\nthird\n");
  EXPECT_EQ(ConfinedTail(log, std::filesystem::canonical(tmp.path()), 14), "third\n");
  EXPECT_EQ(ConfinedTail(tmp.path() / "missing.log", tmp.path(), 100), "");
}

}  // namespace
}  // namespace gpusweep::web
