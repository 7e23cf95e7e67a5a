// trial_stager_test.cc — staged trial directories: made ahead with two empty files,
// taken once, never made over an existing directory, removed when nobody took them;
// and a staged directory a killed run left behind is harmless to the next attempt.
#include "run/trial_stager.h"

#include <fcntl.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>

#include <gtest/gtest.h>

#include "common/temp_dir_for_tests.h"
#include "gpusweep/trial.h"
#include "run/trial_setup.h"

namespace gpusweep {
namespace {

namespace fs = std::filesystem;
using test_support::ReadFile;
using test_support::TempDir;

class TrialStagerTest : public ::testing::Test {
 protected:
  fs::path Trials() const { return root_.path() / "trials"; }
  fs::path Dir(int number) const { return Trials() / TrialDirName(number); }
  RenderedTrial Trial(int number) const {
    RenderedTrial trial;
    trial.dir = Dir(number);
    trial.files.emplace_back(trial.dir / "conf" / "model.yaml", "lr: 1\n");
    return trial;
  }

  TempDir root_;
};

TEST_F(TrialStagerTest, StagesTheFrontOfTheQueueWithTwoEmptyFiles) {
  TrialStager stager(Trials());
  stager.StageNext({3, 1, 7}, 2);
  std::optional<UniqueFd> three = stager.Take(3);
  ASSERT_TRUE(three);
  EXPECT_EQ(fs::file_size(Dir(3) / "params.json"), 0u);
  EXPECT_EQ(fs::file_size(Dir(3) / "output.log"), 0u);
  EXPECT_TRUE(stager.Take(1));
  EXPECT_FALSE(stager.Take(7));  // beyond the count
  EXPECT_FALSE(fs::exists(Dir(7)));
  EXPECT_FALSE(stager.Take(3));  // taken once
}

TEST_F(TrialStagerTest, ATakenDirectoryIsWrittenInPlaceAndKeptAtTheEnd) {
  {
    TrialStager stager(Trials());
    stager.StageNext({0}, 1);
    ASSERT_TRUE(WriteTrialFiles(Trial(0), Json{{"lr", 1}}, 1, stager.Take(0)));
  }
  EXPECT_EQ(ReadFile(Dir(0) / "params.json"), "{\n  \"lr\": 1\n}\n");
  EXPECT_EQ(ReadFile(Dir(0) / "conf" / "model.yaml"), "lr: 1\n");
  EXPECT_TRUE(fs::exists(Dir(0) / "output.log"));
}

TEST_F(TrialStagerTest, AnExistingDirectoryIsNeverStagedNorTouched) {
  fs::create_directories(Dir(2));
  { std::ofstream(Dir(2) / "output.log") << "attempt 1 said this\n"; }
  TrialStager stager(Trials());
  stager.StageNext({2}, 1);
  EXPECT_FALSE(stager.Take(2));
  EXPECT_EQ(ReadFile(Dir(2) / "output.log"), "attempt 1 said this\n");
  EXPECT_FALSE(fs::exists(Dir(2) / "params.json"));
}

TEST_F(TrialStagerTest, UntakenDirectoriesAreRemovedUnlessSomethingWasPutThere) {
  {
    TrialStager stager(Trials());
    stager.StageNext({5, 4}, 2);
    stager.StageNext({5, 4}, 2);  // asked again: staged once
    ASSERT_TRUE(stager.Take(4));  // staged in order: 5 is ready too
    { std::ofstream(Dir(5) / "notes.txt") << "mine"; }
    stager.StageNext({6}, 1);
  }
  EXPECT_TRUE(fs::exists(Dir(4)));
  EXPECT_FALSE(fs::exists(Dir(6)));
  EXPECT_EQ(ReadFile(Dir(5) / "notes.txt"), "mine");  // not ours alone any more
}

// A kill -9 between staging and launch leaves a staged directory with no journaled
// attempt: the next run's first attempt overwrites params.json and keeps nothing aside.
TEST_F(TrialStagerTest, AStagedDirectoryLeftByAKilledRunIsUsedAsIs) {
  ASSERT_TRUE(StageTrialDirectory((fs::create_directories(Trials()), Dir(1))));
  ASSERT_TRUE(WriteTrialFiles(Trial(1), Json{{"lr", 2}}, 1));
  EXPECT_EQ(ReadFile(Dir(1) / "params.json"), "{\n  \"lr\": 2\n}\n");
  EXPECT_TRUE(fs::exists(Dir(1) / "output.log"));
  EXPECT_FALSE(fs::exists(Dir(1) / "output.unrecorded.log"));
}

TEST_F(TrialStagerTest, AStagedParamsFileReplacedByAFifoIsRefusedWithoutBlocking) {
  fs::create_directories(Trials());
  Expected<UniqueFd> dir = StageTrialDirectory(Dir(0));
  ASSERT_TRUE(dir);
  fs::remove(Dir(0) / "params.json");
  ASSERT_EQ(::mkfifo((Dir(0) / "params.json").c_str(), 0644), 0);
  Status written = WriteTrialFiles(Trial(0), Json::object(), 1, std::move(*dir));
  EXPECT_FALSE(written);
}

// The trials directory gets the "spread my subdirectories" hint where the file system
// has it (ext2/3/4); elsewhere the test has nothing to check.
TEST_F(TrialStagerTest, TheTrialsDirectorySpreadsItsSubdirectories) {
  fs::create_directories(Trials());
  const auto topdir_flag = [this]() -> std::optional<bool> {
    UniqueFd fd(::open(Trials().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    int flags = 0;
    if (!fd.valid() || ::ioctl(fd.get(), FS_IOC_GETFLAGS, &flags) != 0) return std::nullopt;
    return (flags & FS_TOPDIR_FL) != 0;
  };
  if (!topdir_flag()) GTEST_SKIP() << "no inode flags on this file system";
  ASSERT_FALSE(*topdir_flag());
  {
    TrialStager stager(Trials());
    stager.StageNext({0}, 1);
    ASSERT_TRUE(stager.Take(0));  // after the hint: one worker, jobs in order
  }
  EXPECT_TRUE(*topdir_flag());
}

}  // namespace
}  // namespace gpusweep
