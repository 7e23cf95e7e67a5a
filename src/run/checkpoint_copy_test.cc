// Copying a parent's checkpoint into a trial, and whether a trial left one of its own.
#include "run/checkpoint_copy.h"

#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "common/temp_dir_for_tests.h"
#include "gpusweep/experiment_files.h"

namespace gpusweep {
namespace {

namespace fs = std::filesystem;

void Put(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path) << text;
}

std::string Get(const fs::path& path) {
  std::stringstream text;
  text << std::ifstream(path).rdbuf();
  return text.str();
}

TEST(CheckpointCopyTest, TheParentsCheckpointReplacesTheTrialsWholeAndAsFiles) {
  test_support::TempDir dir;
  const TrialFiles parent{dir.path() / "0002"}, trial{dir.path() / "0006"};
  Put(parent.checkpoint() / "model.bin", "weights");
  Put(parent.checkpoint() / "sub" / "opt.bin", "moments");
  Put(parent.checkpoint_marker(), R"({"trial": 2, "resource": 4})");
  Put(trial.checkpoint() / "stale.bin", "an earlier attempt's");
  Put(trial.checkpoint_incoming() / "half.bin", "a copy a kill -9 cut short");
  ASSERT_TRUE(CopyParentCheckpoint(parent.dir, trial.dir));
  EXPECT_EQ(Get(trial.checkpoint() / "model.bin"), "weights");
  EXPECT_EQ(Get(trial.checkpoint() / "sub" / "opt.bin"), "moments");
  EXPECT_FALSE(fs::exists(trial.checkpoint() / "stale.bin"));
  EXPECT_FALSE(fs::exists(trial.checkpoint() / "half.bin"));
  EXPECT_FALSE(fs::exists(trial.checkpoint_incoming()));
  EXPECT_EQ(fs::hard_link_count(trial.checkpoint() / "model.bin"), 1u) << "a copy, not a link";
  // The copy is the parent's, not the trial's own: it cannot make the trial a donor.
  EXPECT_TRUE(HasOwnCheckpoint(parent.dir, 2));
  EXPECT_FALSE(HasOwnCheckpoint(trial.dir, 6));
  Put(trial.checkpoint_marker(), R"({"trial": 6, "resource": 5})");
  EXPECT_TRUE(HasOwnCheckpoint(trial.dir, 6));
}

TEST(CheckpointCopyTest, AParentWithoutACheckpointLeavesTheTrialNone) {
  test_support::TempDir dir;
  const TrialFiles parent{dir.path() / "0001"}, trial{dir.path() / "0005"};
  fs::create_directories(parent.dir);
  Put(trial.checkpoint() / "stale.bin", "x");
  ASSERT_TRUE(CopyParentCheckpoint(parent.dir, trial.dir));
  EXPECT_FALSE(fs::exists(trial.checkpoint()));
  EXPECT_FALSE(HasOwnCheckpoint(trial.dir, 5));
  // A first segment's rerun: its earlier attempt's (even complete) checkpoint goes.
  Put(trial.checkpoint_marker(), R"({"trial": 5, "resource": 1})");
  Put(trial.checkpoint_incoming() / "x", "x");
  ASSERT_TRUE(ClearCheckpoint(trial.dir));
  EXPECT_FALSE(fs::exists(trial.checkpoint()));
  EXPECT_FALSE(fs::exists(trial.checkpoint_incoming()));
}

TEST(CheckpointCopyTest, LinksAreCopiedAsLinksAndABadMarkerIsNoCheckpoint) {
  test_support::TempDir dir;
  const TrialFiles parent{dir.path() / "0000"}, trial{dir.path() / "0004"};
  Put(dir.path() / "outside.txt", "secret");
  fs::create_directories(parent.checkpoint());
  fs::create_symlink(dir.path() / "outside.txt", parent.checkpoint() / "link");
  fs::create_directories(trial.dir);
  const Status copied = CopyParentCheckpoint(parent.dir, trial.dir);
  ASSERT_TRUE(copied) << copied.error().message;
  EXPECT_TRUE(fs::is_symlink(trial.checkpoint() / "link"));
  for (const char* marker : {"", "[", R"({"trial": "4"})", R"({"trial": 4.5})", R"([4])"}) {
    Put(trial.checkpoint_marker(), marker);
    EXPECT_FALSE(HasOwnCheckpoint(trial.dir, 4)) << marker;
  }
  fs::remove(trial.checkpoint_marker());
  fs::create_symlink(dir.path() / "outside.txt", trial.checkpoint_marker());
  EXPECT_FALSE(HasOwnCheckpoint(trial.dir, 4)) << "a link is not the trial's marker";
}

}  // namespace
}  // namespace gpusweep
