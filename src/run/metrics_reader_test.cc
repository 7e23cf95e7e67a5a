#include "run/metrics_reader.h"

#include <fstream>

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
