#include "run/metrics_reader.h"

#include <sys/stat.h>

#include <fstream>
#include <limits>

#include <gtest/gtest.h>

#include "run/test_util.h"

namespace gpusweep {
namespace {

void Append(const std::filesystem::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::app | std::ios::binary);
  out << text;
}

TEST(MetricsReaderTest, MissingFileIsNothingYet) {
  TempDir dir;
  MetricsReader reader(dir.path() / "metrics.jsonl");
  EXPECT_TRUE(reader.Poll().lines.empty());
  EXPECT_TRUE(reader.Finish().lines.empty());
}

TEST(MetricsReaderTest, ReturnsEachLineOnceAcrossPolls) {
  TempDir dir;
  auto path = dir.path() / "metrics.jsonl";
  MetricsReader reader(path);
  Append(path, "{\"epoch\": 1, \"val_acc\": 0.5}\n{\"epoch\": 2, \"val_acc\": 0.6}\n");
  auto first = reader.Poll();
  ASSERT_EQ(first.lines.size(), 2u);
  EXPECT_EQ(first.lines[0].step, 1);
  EXPECT_EQ(first.lines[1].step, 2);
  EXPECT_TRUE(reader.Poll().lines.empty());
  Append(path, "{\"epoch\": 3, \"val_acc\": 0.7}\n");
  auto second = reader.Poll();
  ASSERT_EQ(second.lines.size(), 1u);
  EXPECT_DOUBLE_EQ(second.lines[0].values["val_acc"].get<double>(), 0.7);
}

TEST(MetricsReaderTest, HoldsPartialLineUntilNewlineOrFinish) {
  TempDir dir;
  auto path = dir.path() / "metrics.jsonl";
  MetricsReader reader(path);
  Append(path, "{\"step\": 5, \"lo");
  EXPECT_TRUE(reader.Poll().lines.empty());
  Append(path, "ss\": 0.25}\n{\"step\": 6, \"loss\": 0.2}");
  auto batch = reader.Poll();
  ASSERT_EQ(batch.lines.size(), 1u);
  EXPECT_EQ(batch.lines[0].step, 5);
  EXPECT_DOUBLE_EQ(batch.lines[0].values["loss"].get<double>(), 0.25);
  auto final_batch = reader.Finish();
  ASSERT_EQ(final_batch.lines.size(), 1u);
  EXPECT_EQ(final_batch.lines[0].step, 6);
}

TEST(MetricsReaderTest, SkipsNonObjectLinesWithWarningNamingLine) {
  TempDir dir;
  auto path = dir.path() / "metrics.jsonl";
  Append(path, "{\"loss\": 1}\nnot json at all\n[1, 2]\n\n{\"loss\": 0.5}\n{\"loss\": NaN}\n");
  MetricsReader reader(path);
  auto batch = reader.Poll();
  ASSERT_EQ(batch.lines.size(), 2u);
  ASSERT_EQ(batch.warnings.size(), 3u);
  EXPECT_NE(batch.warnings[0].find("metrics.jsonl:2: not valid JSON"), std::string::npos);
  EXPECT_NE(batch.warnings[1].find("metrics.jsonl:3: not a JSON object"), std::string::npos);
  EXPECT_NE(batch.warnings[2].find("metrics.jsonl:6: NaN and Infinity are not JSON"),
            std::string::npos);
  // Without a step key the step is the ordinal of the object line.
  EXPECT_EQ(batch.lines[0].step, 0);
  EXPECT_EQ(batch.lines[1].step, 1);
}

TEST(MetricsReaderTest, StepKeyPreference) {
  TempDir dir;
  auto path = dir.path() / "metrics.jsonl";
  Append(path, "{\"iteration\": 9, \"epoch\": 4}\n{\"step\": 100, \"epoch\": 4}\n{\"epoch\": 2.0}\n");
  MetricsReader reader(path);
  auto batch = reader.Poll();
  ASSERT_EQ(batch.lines.size(), 3u);
  EXPECT_EQ(batch.lines[0].step, 4);
  EXPECT_EQ(batch.lines[1].step, 100);
  EXPECT_EQ(batch.lines[2].step, 2);
}

TEST(MetricsReaderTest, RefusesAFifoWithoutBlocking) {
  TempDir dir;
  auto path = dir.path() / "metrics.jsonl";
  ASSERT_EQ(mkfifo(path.c_str(), 0600), 0);
  MetricsReader reader(path);
  auto batch = reader.Poll();  // would block forever in a blocking open()
  ASSERT_TRUE(batch.refused);
  EXPECT_NE(batch.refused->find("is a FIFO, not a regular file"), std::string::npos)
      << *batch.refused;
  EXPECT_FALSE(reader.Finish().refused) << "refused once, then never read again";
}

TEST(MetricsReaderTest, RefusesADirectoryAndALinkToAnEndlessDevice) {
  TempDir dir;
  const auto directory = dir.path() / "a" / "metrics.jsonl";
  std::filesystem::create_directories(directory);
  const auto link = dir.path() / "metrics.jsonl";
  std::filesystem::create_symlink("/dev/zero", link);
  for (const auto& [path, kind] : {std::pair{directory, "is a directory"},
                                   std::pair{link, "is a character device"}}) {
    auto batch = MetricsReader(path).Poll();
    ASSERT_TRUE(batch.refused) << kind;
    EXPECT_NE(batch.refused->find(kind), std::string::npos) << *batch.refused;
  }
}

TEST(MetricsReaderTest, SkipsALineOverTheLimitWithoutHoldingIt) {
  TempDir dir;
  auto path = dir.path() / "metrics.jsonl";
  MetricsLimits limits;
  limits.max_line_bytes = 100;
  MetricsReader reader(path, limits);
  Append(path, "{\"loss\": \"" + std::string(150, 'x'));
  EXPECT_TRUE(reader.Poll().lines.empty());
  Append(path, std::string(150, 'y') + "\"}\n{\"loss\": 2}\n");
  auto batch = reader.Poll();
  ASSERT_EQ(batch.lines.size(), 1u);
  EXPECT_EQ(batch.lines[0].values["loss"], 2);
  ASSERT_EQ(batch.warnings.size(), 1u);
  EXPECT_NE(batch.warnings[0].find("metrics.jsonl:1: line of 312 bytes, over the 100-byte limit"),
            std::string::npos)
      << batch.warnings[0];
}

TEST(MetricsReaderTest, ReadsABoundedAmountPerPoll) {
  TempDir dir;
  auto path = dir.path() / "metrics.jsonl";
  const std::string line = "{\"loss\": 1}\n";
  std::string text;
  while (text.size() <= MetricsReader::kPollBytes + line.size()) text += line;
  Append(path, text);
  MetricsReader reader(path);
  const std::size_t first = reader.Poll().lines.size();
  EXPECT_LT(first, text.size() / line.size());
  EXPECT_EQ(first + reader.Finish().lines.size(), text.size() / line.size());
}

TEST(MetricsReaderTest, SkipsADeeplyNestedLine) {
  TempDir dir;
  auto path = dir.path() / "metrics.jsonl";
  Append(path, "{\"a\": " + std::string(50000, '[') + std::string(50000, ']') +
                   "}\n{\"loss\": 1}\n");
  auto batch = MetricsReader(path).Finish();
  ASSERT_EQ(batch.lines.size(), 1u);
  ASSERT_EQ(batch.warnings.size(), 1u);
  EXPECT_NE(batch.warnings[0].find("metrics.jsonl:1: nested more than 64 levels deep, skipped"),
            std::string::npos)
      << batch.warnings[0];
}

TEST(MetricsLineTest, StepsOutsideInt64AreIgnoredWithAReason) {
  for (const char* text : {R"({"step": 1e300, "loss": 1})", R"({"step": 18446744073709551615})",
                           R"({"epoch": -9.3e18})"}) {
    ParsedMetricsLine parsed = ParseMetricsLine(text);
    ASSERT_TRUE(parsed.object) << text;
    EXPECT_FALSE(parsed.step) << text;
    ASSERT_EQ(parsed.problems.size(), 1u) << text;
    EXPECT_NE(parsed.problems[0].find("outside the 64-bit integer range, ignored as a step"),
              std::string::npos)
        << parsed.problems[0];
  }
  // The edges of the range are steps; a later key may still give one.
  EXPECT_EQ(ParseMetricsLine(R"({"step": 9223372036854775807})").step,
            std::numeric_limits<std::int64_t>::max());
  EXPECT_EQ(ParseMetricsLine(R"({"step": -9223372036854775808})").step,
            std::numeric_limits<std::int64_t>::min());
  EXPECT_EQ(ParseMetricsLine(R"({"step": 1e19, "epoch": 3})").step, 3);
}

TEST(MetricsLineTest, OversizedObjectKeepsNumbersAndNamesWhatItDropped) {
  MetricsLimits limits;
  limits.max_stored_bytes = 200;
  const std::string big(300, 'z');
  ParsedMetricsLine parsed =
      ParseMetricsLine(R"({"blob": ")" + big + R"(", "loss": 0.5, "epoch": 3})", limits);
  ASSERT_TRUE(parsed.object);
  EXPECT_EQ(parsed.object->dump(), R"({"loss":0.5,"epoch":3})");
  EXPECT_EQ(parsed.step, 3);
  ASSERT_EQ(parsed.problems.size(), 1u);
  EXPECT_NE(parsed.problems[0].find("over the 200-byte limit per line; dropped blob"),
            std::string::npos)
      << parsed.problems[0];
}

TEST(MetricsLineTest, ControlBytesDoNotReachTheWarning) {
  ParsedMetricsLine parsed = ParseMetricsLine(std::string("nope\0\x1b[2J", 9));
  ASSERT_EQ(parsed.problems.size(), 1u);
  EXPECT_EQ(parsed.problems[0], "not valid JSON, skipped: nope??[2J");
}

TEST(LastMetricValueTest, LastNumericValueWins) {
  std::vector<MetricsLine> lines(4);
  lines[0].values = Json{{"val_acc", 0.9}};
  lines[1].values = Json{{"val_acc", 0.7}};
  lines[2].values = Json{{"val_acc", "oops"}};
  lines[3].values = Json{{"train_loss", 0.1}};
  EXPECT_EQ(LastMetricValue(lines, "val_acc"), 0.7);
  EXPECT_EQ(LastMetricValue(lines, "missing"), std::nullopt);
  EXPECT_EQ(LastMetricValue({}, "val_acc"), std::nullopt);
}

}  // namespace
}  // namespace gpusweep
