// trial_setup_test.cc — WriteTrialFiles never follows a symbolic link out of the trial
// directory, and each attempt starts with a metrics.jsonl of its own.
#include "run/trial_setup.h"

#include <fstream>

#include <gtest/gtest.h>

#include "common/temp_dir_for_tests.h"

namespace gpusweep {
namespace {

namespace fs = std::filesystem;
using test_support::ReadFile;
using test_support::TempDir;

class WriteTrialFilesTest : public ::testing::Test {
 protected:
  RenderedTrial Trial(std::vector<std::pair<fs::path, std::string>> files = {}) {
    RenderedTrial trial;
    trial.dir = root_.path() / "exp" / "trials" / "0000";
    for (auto& [relative, text] : files) trial.files.emplace_back(trial.dir / relative, text);
    return trial;
  }
  fs::path Outside() const { return outside_.path(); }

  TempDir root_;
  TempDir outside_;
};

TEST_F(WriteTrialFilesTest, ALinkedDirectoryLeadingOutIsRefusedAndNothingLandsOutside) {
  RenderedTrial trial = Trial({{"conf/model.yaml", "lr: 1\n"}});
  fs::create_directories(trial.dir);
  fs::create_directory_symlink(Outside(), trial.dir / "conf");
  Status written = WriteTrialFiles(trial, Json::object(), 1);
  ASSERT_FALSE(written);
  EXPECT_NE(written.error().message.find("symbolic link leads out of the trial directory"),
            std::string::npos)
      << written.error().message;
  EXPECT_TRUE(fs::is_empty(Outside()));
}

TEST_F(WriteTrialFilesTest, AnAbsoluteLinkIsRefusedEvenWhenItPointsBackInside) {
  RenderedTrial trial = Trial({{"conf/model.yaml", "lr: 1\n"}});
  fs::create_directories(trial.dir / "real");
  fs::create_directory_symlink(trial.dir / "real", trial.dir / "conf");
  EXPECT_FALSE(WriteTrialFiles(trial, Json::object(), 1));
}

TEST_F(WriteTrialFilesTest, ALinkInsideTheTrialDirIsFollowed) {
  RenderedTrial trial = Trial({{"conf/model.yaml", "lr: 1\n"}});
  fs::create_directories(trial.dir / "real");
  fs::create_directory_symlink("real", trial.dir / "conf");
  ASSERT_TRUE(WriteTrialFiles(trial, Json::object(), 1));
  EXPECT_EQ(ReadFile(trial.dir / "real" / "model.yaml"), "lr: 1\n");
}

TEST_F(WriteTrialFilesTest, ALinkInPlaceOfAFileIsReplacedNotFollowed) {
  RenderedTrial trial = Trial({{"model.yaml", "lr: 1\n"}});
  fs::create_directories(trial.dir);
  const fs::path victim = Outside() / "victim";
  { std::ofstream(victim) << "keep me"; }
  fs::create_symlink(victim, trial.dir / "model.yaml");
  fs::create_symlink(victim, trial.dir / "params.json");
  ASSERT_TRUE(WriteTrialFiles(trial, Json{{"lr", 1}}, 1));
  EXPECT_EQ(ReadFile(victim), "keep me");
  EXPECT_FALSE(fs::is_symlink(trial.dir / "model.yaml"));
  EXPECT_EQ(ReadFile(trial.dir / "model.yaml"), "lr: 1\n");
}

TEST_F(WriteTrialFilesTest, ATrialDirThatIsALinkIsRefused) {
  RenderedTrial trial = Trial();
  fs::create_directories(trial.dir.parent_path());
  fs::create_directory_symlink(Outside(), trial.dir);
  EXPECT_FALSE(WriteTrialFiles(trial, Json::object(), 1));
  EXPECT_TRUE(fs::is_empty(Outside()));
}

TEST_F(WriteTrialFilesTest, EachAttemptStartsWithItsOwnMetricsFile) {
  RenderedTrial trial = Trial();
  ASSERT_TRUE(WriteTrialFiles(trial, Json::object(), 1));
  { std::ofstream(trial.dir / "metrics.jsonl") << "{\"acc\": 1}\n"; }
  ASSERT_TRUE(WriteTrialFiles(trial, Json::object(), 2));
  EXPECT_FALSE(fs::exists(trial.dir / "metrics.jsonl"));
  EXPECT_EQ(ReadFile(trial.dir / "metrics.attempt1.jsonl"), "{\"acc\": 1}\n");
  // A file no journaled attempt wrote (an older gpusweep's unrecorded launch) is kept
  // aside too, never read as this attempt's.
  { std::ofstream(trial.dir / "metrics.jsonl") << "{\"acc\": 9}\n"; }
  ASSERT_TRUE(WriteTrialFiles(trial, Json::object(), 1));
  EXPECT_FALSE(fs::exists(trial.dir / "metrics.jsonl"));
  EXPECT_EQ(ReadFile(trial.dir / "metrics.unrecorded.jsonl"), "{\"acc\": 9}\n");
}

}  // namespace
}  // namespace gpusweep
