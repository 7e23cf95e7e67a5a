#include "schedule/rung_table.h"

#include <cmath>

#include <gtest/gtest.h>

namespace gpusweep::schedule_detail {
namespace {

std::vector<int> Trials(const RungTable& table) {
  std::vector<int> trials;
  for (const auto& entry : table.ranked()) trials.push_back(entry.trial);
  return trials;
}

TEST(RungTable, MaxModeRanksHighFirst) {
  RungTable table(Mode::kMax);
  table.Record(0, 0.5);
  table.Record(1, 0.9);
  table.Record(2, 0.7);
  EXPECT_EQ(Trials(table), (std::vector<int>{1, 2, 0}));
  EXPECT_EQ(table.RankOf(2), 1);
  EXPECT_EQ(table.RankOf(7), -1);
}

TEST(RungTable, MinModeRanksLowFirst) {
  RungTable table(Mode::kMin);
  table.Record(0, 0.5);
  table.Record(1, 0.9);
  table.Record(2, 0.7);
  EXPECT_EQ(Trials(table), (std::vector<int>{0, 2, 1}));
}

TEST(RungTable, TiesGoToTheLowerTrialWhateverTheRecordOrder) {
  RungTable table(Mode::kMax);
  table.Record(5, 0.8);
  table.Record(2, 0.8);
  table.Record(9, 0.8);
  EXPECT_EQ(Trials(table), (std::vector<int>{2, 5, 9}));
}

TEST(RungTable, MissingAndNanRankWorstInBothModes) {
  for (Mode mode : {Mode::kMin, Mode::kMax}) {
    RungTable table(mode);
    table.Record(0, std::nullopt);
    table.Record(1, std::nan(""));
    table.Record(2, 1e300);
    table.Record(3, -1e300);
    const auto trials = Trials(table);
    EXPECT_EQ(trials[2], 0);
    EXPECT_EQ(trials[3], 1);
    EXPECT_FALSE(table.ranked()[3].value.has_value());  // NaN stored as missing
  }
}

TEST(RungTable, RecordingAgainReplaces) {
  RungTable table(Mode::kMax);
  table.Record(0, 0.1);
  table.Record(1, 0.5);
  table.Record(0, 0.9);
  EXPECT_EQ(table.size(), 2);
  EXPECT_EQ(Trials(table), (std::vector<int>{0, 1}));
}

TEST(TopCount, FloorAndCeilAreExactOnExactQuotients) {
  EXPECT_EQ(TopCount(9, 3, Rounding::kFloor), 3);
  EXPECT_EQ(TopCount(9, 3, Rounding::kCeil), 3);
  EXPECT_EQ(TopCount(10, 3, Rounding::kFloor), 3);
  EXPECT_EQ(TopCount(10, 3, Rounding::kCeil), 4);
  EXPECT_EQ(TopCount(15, 2, Rounding::kCeil), 8);
  EXPECT_EQ(TopCount(2, 3, Rounding::kFloor), 0);
  EXPECT_EQ(TopCount(1, 3, Rounding::kCeil), 1);
}

}  // namespace
}  // namespace gpusweep::schedule_detail
