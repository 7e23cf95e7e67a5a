// SuggestedProgram: the name the summary's suggested commands use for gpusweep.
#include "cli/install_paths.h"

#include <stdlib.h>

#include <filesystem>
#include <optional>
#include <string>

#include <gtest/gtest.h>

#include "run/test_util.h"

namespace gpusweep {
namespace {

// Sets PATH for one test and puts it back.
class PathFor {
 public:
  explicit PathFor(const std::string& value) {
    if (const char* old = std::getenv("PATH")) old_ = old;
    ::setenv("PATH", value.c_str(), 1);
  }
  ~PathFor() {
    if (old_) ::setenv("PATH", old_->c_str(), 1);
    else ::unsetenv("PATH");
  }

 private:
  std::optional<std::string> old_;
};

TEST(SuggestedProgramTest, PlainNameOnlyWhenPathFindsThisBinary) {
  TempDir dir;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe");
  std::filesystem::create_directories(dir.path() / "this");
  std::filesystem::create_directories(dir.path() / "other");
  std::filesystem::create_symlink(self, dir.path() / "this" / "gpusweep");
  WriteFile(dir.path() / "other" / "gpusweep", "#!/bin/sh\n");
  {
    PathFor path((dir.path() / "this").string() + ":/usr/bin");
    EXPECT_EQ(SuggestedProgram(), "gpusweep");
  }
  {  // another gpusweep first on PATH: the shell would run that one
    PathFor path((dir.path() / "other").string() + ":" + (dir.path() / "this").string());
    EXPECT_EQ(SuggestedProgram(), self.string());
  }
  {  // none on PATH (build/gpusweep run from a checkout)
    PathFor path("/nonexistent-dir");
    EXPECT_EQ(SuggestedProgram(), self.string());
  }
}

}  // namespace
}  // namespace gpusweep
