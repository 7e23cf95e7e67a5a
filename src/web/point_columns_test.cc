#include "web/point_columns.h"

#include <gtest/gtest.h>

#include "gpusweep/json.h"

namespace gpusweep::web {
namespace {

MetricPoint Point(std::int64_t cursor, int trial, int attempt, std::int64_t step, double value) {
  return MetricPoint{cursor, trial, attempt, step, value};
}

TEST(PointColumnsTest, NoPointsGiveEmptyColumnsAndTheCursorAsked) {
  PointColumns columns;
  EXPECT_EQ(Json::parse(columns.JsonAfter(0, 0)),
            (Json{{"cursor", 0}, {"trial", Json::array()}, {"attempt", Json::array()},
                  {"step", Json::array()}, {"value", Json::array()}}));
  EXPECT_EQ(Json::parse(columns.JsonAfter(7, 0))["cursor"], 7);
  EXPECT_EQ(Json::parse(columns.JsonAfter(0, 4))["cursor"], 4);  // read past points without a value
}

TEST(PointColumnsTest, AnswersThePointsPastACursorColumnByColumn) {
  PointColumns columns;
  columns.Append(Point(3, 0, 1, 1, 0.5));
  columns.Append(Point(5, 1, 1, 1, -1e-7));
  columns.Append(Point(9, 0, 2, 20, 0.1 + 0.2));  // shortest round-trip form
  const Json all = Json::parse(columns.JsonAfter(0, 9));
  EXPECT_EQ(all["cursor"], 9);
  EXPECT_EQ(all["trial"], (Json{0, 1, 0}));
  EXPECT_EQ(all["attempt"], (Json{1, 1, 2}));
  EXPECT_EQ(all["step"], (Json{1, 1, 20}));
  EXPECT_EQ(all["value"], (Json{0.5, -1e-7, 0.1 + 0.2}));
  // Past a cursor between points, on a point, and past the last.
  EXPECT_EQ(Json::parse(columns.JsonAfter(4, 9))["trial"], (Json{1, 0}));
  const Json last = Json::parse(columns.JsonAfter(5, 9));
  EXPECT_EQ(last["value"], (Json{0.1 + 0.2}));
  EXPECT_EQ(last["step"], (Json{20}));
  const Json none = Json::parse(columns.JsonAfter(9, 9));
  EXPECT_TRUE(none["trial"].empty());
  EXPECT_TRUE(none["value"].empty());
  EXPECT_EQ(none["cursor"], 9);
  EXPECT_EQ(Json::parse(columns.JsonAfter(12, 9))["cursor"], 12);  // a client ahead keeps its own
}

// A page of a large experiment holds some of its trials (ChartedTrials): only their
// points travel, past the cursor as before, in append order.
TEST(PointColumnsTest, AKeepPredicateSendsOnlyTheTrialsItKeeps) {
  PointColumns columns;
  columns.Append(Point(1, 10, 1, 1, 0.5));
  columns.Append(Point(2, 11, 1, 1, 0.25));
  columns.Append(Point(3, 10, 1, 2, 0.75));
  columns.Append(Point(4, 12, 2, 1, 1.5));
  const auto even = [](int trial) { return trial % 2 == 0; };
  const Json kept = Json::parse(columns.JsonAfter(0, 4, even));
  EXPECT_EQ(kept["trial"], (Json{10, 10, 12}));
  EXPECT_EQ(kept["attempt"], (Json{1, 1, 2}));
  EXPECT_EQ(kept["step"], (Json{1, 2, 1}));
  EXPECT_EQ(kept["value"], (Json{0.5, 0.75, 1.5}));
  EXPECT_EQ(kept["cursor"], 4);
  EXPECT_EQ(Json::parse(columns.JsonAfter(2, 4, even))["value"], (Json{0.75, 1.5}));
  const Json none = Json::parse(columns.JsonAfter(0, 4, [](int) { return false; }));
  EXPECT_TRUE(none["trial"].empty());
  EXPECT_TRUE(none["value"].empty());
}

}  // namespace
}  // namespace gpusweep::web
