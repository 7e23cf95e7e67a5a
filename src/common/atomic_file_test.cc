#include "common/atomic_file.h"

#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "common/temp_dir_for_tests.h"

namespace gpusweep {
namespace {

int Entries(const std::filesystem::path& dir) {
  int n = 0;
  for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator(dir)) ++n;
  return n;
}

TEST(AtomicFileTest, AppearsWholeOnlyAtCommit) {
  test_support::TempDir dir;
  const auto path = dir.path() / "out.csv";
  test_support::WriteFile(path, "old");
  auto file = AtomicFile::Create(path);
  ASSERT_TRUE(file) << file.error().message;
  ASSERT_TRUE(file->Write("a,b\r\n"));
  ASSERT_TRUE(file->Write("1,2\r\n"));
  EXPECT_EQ(test_support::ReadFile(path), "old");  // readers still see the old file whole
  EXPECT_EQ(Entries(dir.path()), 2);
  ASSERT_TRUE(file->Commit());
  EXPECT_EQ(test_support::ReadFile(path), "a,b\r\n1,2\r\n");
  EXPECT_EQ(Entries(dir.path()), 1);  // the temporary name is gone
}

TEST(AtomicFileTest, AnUncommittedFileLeavesNothingBehind) {
  test_support::TempDir dir;
  const auto path = dir.path() / "out.json";
  {
    auto file = AtomicFile::Create(path);
    ASSERT_TRUE(file);
    ASSERT_TRUE(file->Write("[\n"));
  }  // an error on the way: never committed
  EXPECT_EQ(Entries(dir.path()), 0);
}

TEST(AtomicFileTest, ErrorsNameThePathAsked) {
  test_support::TempDir dir;
  const auto path = dir.path() / "missing" / "out.csv";
  auto file = AtomicFile::Create(path);
  ASSERT_FALSE(file);
  EXPECT_EQ(file.error().code, ErrorCode::kIo);
  EXPECT_EQ(file.error().message, path.string() + ": cannot create: No such file or directory");
}

TEST(AtomicFileTest, WriteFileAtomicallyReplacesTheFile) {
  test_support::TempDir dir;
  const auto path = dir.path() / "experiment.json";
  ASSERT_TRUE(WriteFileAtomically(path, "{}\n"));
  ASSERT_TRUE(WriteFileAtomically(path, std::string("a\0b", 3)));  // an explicit length
  EXPECT_EQ(test_support::ReadFile(path), std::string("a\0b", 3));
  EXPECT_EQ(Entries(dir.path()), 1);
}

}  // namespace
}  // namespace gpusweep
