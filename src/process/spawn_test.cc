// spawn_test.cc — argv[0] lookup: PATH from the request's env, relative names from cwd.
#include "process/spawn.h"

#include <sys/stat.h>

#include <fstream>

#include <gtest/gtest.h>

#include "process/test_util.h"

namespace gpusweep {
namespace {

namespace fs = std::filesystem;
using testing::TempDir;

void WriteScript(const fs::path& path, mode_t mode) {
  std::ofstream(path) << "#!/bin/sh\necho from-script\n";
  ASSERT_EQ(::chmod(path.c_str(), mode), 0);
}

TEST(ResolveExecutableTest, SearchesPathFromRequestEnvNotOurs) {
  TempDir dir;
  WriteScript(dir.path() / "mytool", 0755);
  Expected<fs::path> found =
      ResolveExecutable("mytool", {"HOME=/x", "PATH=/nonexistent:" + dir.path().string()}, "/");
  ASSERT_TRUE(found) << found.error().message;
  EXPECT_EQ(*found, dir.path() / "mytool");
  // gpusweep's own PATH surely has sh, but the request's PATH does not.
  Expected<fs::path> missing = ResolveExecutable("sh", {"PATH=" + dir.path().string()}, "/");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().code, ErrorCode::kProcess);
  EXPECT_NE(missing.error().message.find("command not found: sh"), std::string::npos);
}

TEST(ResolveExecutableTest, NoPathInEnvUsesDefault) {
  Expected<fs::path> found = ResolveExecutable("sh", {"FOO=1"}, "/");
  ASSERT_TRUE(found) << found.error().message;
  EXPECT_EQ(found->filename(), "sh");
  EXPECT_TRUE(found->is_absolute());
}

TEST(ResolveExecutableTest, RelativeNamesResolveAgainstCwd) {
  TempDir dir;
  fs::create_directory(dir.path() / "bin");
  WriteScript(dir.path() / "train.sh", 0755);
  WriteScript(dir.path() / "bin" / "helper", 0755);
  Expected<fs::path> script = ResolveExecutable("./train.sh", {}, dir.path());
  ASSERT_TRUE(script) << script.error().message;
  EXPECT_EQ(*script, dir.path() / "./train.sh");
  Expected<fs::path> helper = ResolveExecutable("helper", {"PATH=bin"}, dir.path());
  ASSERT_TRUE(helper) << helper.error().message;
  EXPECT_EQ(*helper, dir.path() / "bin" / "helper");
}

TEST(ResolveExecutableTest, ExplainsWhyItCannotRun) {
  TempDir dir;
  WriteScript(dir.path() / "not_executable", 0644);
  Expected<fs::path> denied = ResolveExecutable("./not_executable", {}, dir.path());
  ASSERT_FALSE(denied);
  EXPECT_EQ(denied.error().message, "permission denied: ./not_executable");
  Expected<fs::path> on_path =
      ResolveExecutable("not_executable", {"PATH=" + dir.path().string()}, "/");
  ASSERT_FALSE(on_path);
  EXPECT_EQ(on_path.error().message, "permission denied: not_executable");
  Expected<fs::path> directory = ResolveExecutable("/tmp/", {}, "/");
  EXPECT_FALSE(directory);
  Expected<fs::path> empty = ResolveExecutable("", {}, "/");
  ASSERT_FALSE(empty);
  EXPECT_EQ(empty.error().code, ErrorCode::kProcess);
}

}  // namespace
}  // namespace gpusweep
