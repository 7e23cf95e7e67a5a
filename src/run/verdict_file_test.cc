#include "run/verdict_file.h"

#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "run/test_util.h"

namespace gpusweep {
namespace {

std::string ReadAll(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(VerdictLineTest, ContinueWithoutADecisionIsBare) {
  EXPECT_EQ(VerdictLine(2, std::nullopt), R"({"resource":2,"verdict":"continue"})");
  EXPECT_EQ(VerdictLine(0.5, std::nullopt), R"({"resource":0.5,"verdict":"continue"})");
}

TEST(VerdictLineTest, StopNamesRungAndReason) {
  Decision stop;
  stop.rung = 1;
  stop.verdict = Verdict::kStop;
  stop.reason = "rank 4 of 9 at rung 1 (epoch 3): only the top 3 continue";
  EXPECT_EQ(VerdictLine(3, stop),
            R"({"resource":3,"verdict":"stop","rung":1,)"
            R"("reason":"rank 4 of 9 at rung 1 (epoch 3): only the top 3 continue"})");
}

TEST(VerdictFileTest, AppendsOneLinePerAnswerAndStartsEmptyForEachAttempt) {
  TempDir dir;
  const auto path = dir.Write("verdicts.jsonl", "{\"resource\":9,\"verdict\":\"stop\"}\n");
  {
    Expected<VerdictFile> file = VerdictFile::Create(path);
    ASSERT_TRUE(file) << file.error().message;
    EXPECT_EQ(ReadAll(path), "");  // the previous attempt's answers are gone
    ASSERT_TRUE(file->Append(1, std::nullopt));
    Decision stop;
    stop.verdict = Verdict::kStop;
    ASSERT_TRUE(file->Append(3, stop));
  }
  EXPECT_EQ(ReadAll(path),
            "{\"resource\":1,\"verdict\":\"continue\"}\n{\"resource\":3,\"verdict\":\"stop\"}\n");
}

TEST(VerdictFileTest, ReopenKeepsTheAnswersSoFarAndAppendsAfterThem) {
  TempDir dir;
  const auto path = dir.Write("verdicts.jsonl", "{\"resource\":1,\"verdict\":\"continue\"}\n");
  {
    Expected<VerdictFile> file = VerdictFile::Reopen(path);
    ASSERT_TRUE(file) << file.error().message;
    ASSERT_TRUE(file->Append(3, std::nullopt));
  }
  EXPECT_EQ(ReadAll(path),
            "{\"resource\":1,\"verdict\":\"continue\"}\n{\"resource\":3,\"verdict\":\"continue\"}\n");
  // Nothing to reopen, or a symlink there: an error naming the file, nothing created.
  EXPECT_FALSE(VerdictFile::Reopen(dir.path() / "missing.jsonl"));
  EXPECT_FALSE(std::filesystem::exists(dir.path() / "missing.jsonl"));
  std::filesystem::create_symlink(path, dir.path() / "link.jsonl");
  Expected<VerdictFile> link = VerdictFile::Reopen(dir.path() / "link.jsonl");
  ASSERT_FALSE(link);
  EXPECT_NE(link.error().message.find("link.jsonl: cannot open the verdict file"), std::string::npos)
      << link.error().message;
}

TEST(VerdictFileTest, RefusesToFollowASymlink) {
  TempDir dir;
  const auto target = dir.Write("elsewhere.txt", "keep me\n");
  std::filesystem::create_symlink(target, dir.path() / "verdicts.jsonl");
  Expected<VerdictFile> file = VerdictFile::Create(dir.path() / "verdicts.jsonl");
  ASSERT_FALSE(file);
  EXPECT_NE(file.error().message.find("verdicts.jsonl: cannot create the verdict file"),
            std::string::npos)
      << file.error().message;
  EXPECT_EQ(ReadAll(target), "keep me\n");
}

}  // namespace
}  // namespace gpusweep
