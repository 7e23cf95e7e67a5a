#include "report/text.h"

#include <csignal>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "gpusweep/report.h"
#include "report/report_test_util.h"

namespace gpusweep {
namespace {

TEST(ReportDurationTest, Table) {
  EXPECT_EQ(FormatDuration(0), "0s");
  EXPECT_EQ(FormatDuration(45), "45s");
  EXPECT_EQ(FormatDuration(59.4), "59s");
  EXPECT_EQ(FormatDuration(59.6), "1m00s");
  EXPECT_EQ(FormatDuration(83), "1m23s");
  EXPECT_EQ(FormatDuration(125), "2m05s");
  EXPECT_EQ(FormatDuration(3599), "59m59s");
  EXPECT_EQ(FormatDuration(3600 + 120), "1h02m");
  EXPECT_EQ(FormatDuration(27 * 3600), "27h00m");
  EXPECT_EQ(FormatDuration(-5), "0s");
  EXPECT_EQ(FormatDuration(std::nan("")), "-");
}

TEST(ReportSignalNameTest, KnownAndUnknown) {
  EXPECT_EQ(SignalName(SIGKILL), "SIGKILL");
  EXPECT_EQ(SignalName(SIGTERM), "SIGTERM");
  EXPECT_EQ(SignalName(SIGSEGV), "SIGSEGV");
  EXPECT_EQ(SignalName(SIGINT), "SIGINT");
  EXPECT_EQ(SignalName(99), "signal 99");
}

TEST(ReportTextTest, DisplayWidthCountsCodePoints) {
  EXPECT_EQ(report::DisplayWidth("abc"), 3);
  EXPECT_EQ(report::DisplayWidth("…"), 1);
  EXPECT_EQ(report::DisplayWidth("héllo"), 5);
}

TEST(ReportTextTest, ElideCutsAtTheEndWithEllipsis) {
  EXPECT_EQ(report::Elide("abcdef", 6), "abcdef");
  EXPECT_EQ(report::Elide("abcdef", 4), "abc…");
  EXPECT_EQ(report::Elide("abcdef", 1), "…");
  EXPECT_EQ(report::Elide("abcdef", 0), "abcdef");  // unlimited
  // Never splits a multi-byte character.
  EXPECT_EQ(report::Elide("ééééé", 3), "éé…");
}

TEST(ReportTextTest, StyledLineFitKeepsColourAndCountsOnlyVisibleText) {
  report::StyledLine line("ab");
  line.Add("completed", report::Color::kGreen).Add("  tail");
  const std::string fitted = line.Fit(6).Render(ColorMode::kAlways);
  EXPECT_EQ(fitted, "ab\x1b[32mcom\x1b[0m…");
  EXPECT_EQ(line.Fit(6).Render(ColorMode::kNever), "abcom…");
  EXPECT_EQ(line.Render(ColorMode::kNever), "abcompleted  tail");
}

TEST(ReportTextTest, FormatValue) {
  EXPECT_EQ(report::FormatValue(Json("adam"), report::Precision::kShort), "adam");
  EXPECT_EQ(report::FormatValue(Json(0.0031622776601683794), report::Precision::kShort),
            "0.00316228");
  EXPECT_EQ(report::FormatValue(Json(0.1), report::Precision::kFull), "0.1");
  EXPECT_EQ(report::FormatValue(Json(64), report::Precision::kShort), "64");
  EXPECT_EQ(report::FormatValue(Json::parse(R"([1,"a"])"), report::Precision::kShort),
            R"([1,"a"])");
}

TEST(ReportTextTest, FormatNumberSixSignificantDigits) {
  EXPECT_EQ(report::FormatNumber(0.87123456), "0.871235");
  EXPECT_EQ(report::FormatNumber(1234567.0), "1.23457e+06");
  EXPECT_EQ(report::FormatNumber(2.0), "2");
}

TEST(ReportTextTest, ParamsSummaryFlattens) {
  const Json params = Json::parse(R"({"lr":0.001,"net":{"bn":true},"opt":"adam"})");
  EXPECT_EQ(report::ParamsSummary(params), "lr=0.001, net.bn=true, opt=adam");
}

}  // namespace
}  // namespace gpusweep

namespace gpusweep {
namespace {

TEST(ReportTextTest, WrapWords) {
  EXPECT_THAT(report::WrapWords("16 planned: 2 completed, 1 running", 12),
              ::testing::ElementsAre("16 planned:", "2 completed,", "1 running"));
  EXPECT_THAT(report::WrapWords("16 planned: 2 completed, 1 running", 24, ", "),
              ::testing::ElementsAre("16 planned: 2 completed,", "1 running"));
  EXPECT_THAT(report::WrapWords("a b c", 0), ::testing::ElementsAre("a b c"));
  EXPECT_THAT(report::WrapWords("averyveryverylongword x", 5),
              ::testing::ElementsAre("averyveryverylongword", "x"));
  EXPECT_THAT(report::WrapWords("", 5), ::testing::ElementsAre(""));
}

TEST(ReportTextTest, WrapWholeContinuesALongPieceInsteadOfCuttingIt) {
  EXPECT_THAT(report::WrapWhole("averyveryverylongword x", 5),
              ::testing::ElementsAre("avery", "veryv", "erylo", "ngwor", "d", "x"));
  EXPECT_THAT(report::WrapWhole("é-long-ü, b", 4, ", "),
              ::testing::ElementsAre("é-lo", "ng-ü", ",", "b"));
  EXPECT_THAT(report::WrapWhole("a b", 0), ::testing::ElementsAre("a b"));
}

}  // namespace
}  // namespace gpusweep
