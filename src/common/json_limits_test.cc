#include "common/json_limits.h"

#include <string>

#include <gtest/gtest.h>

namespace gpusweep {
namespace {

std::string Nested(int levels) {
  return std::string(static_cast<std::size_t>(levels), '[') +
         std::string(static_cast<std::size_t>(levels), ']');
}

TEST(JsonLimitsTest, DepthCountsBracketsOutsideStrings) {
  EXPECT_EQ(JsonNestingDepth(R"({"a": 1})", 100), 1);
  EXPECT_EQ(JsonNestingDepth(R"({"a": [1, {"b": []}]})", 100), 4);
  EXPECT_EQ(JsonNestingDepth(R"({"a": "[[[[\"{{{"})", 100), 1);
  EXPECT_EQ(JsonNestingDepth("42", 100), 0);
}

TEST(JsonLimitsTest, DepthStopsCountingAboveTheLimit) {
  EXPECT_EQ(JsonNestingDepth(Nested(50000), 64), 65);
}

TEST(JsonLimitsTest, FiftyThousandLevelsAreRefusedWithoutBuildingAValue) {
  const auto parsed = ParseJsonWithDepthLimit(Nested(50000));
  ASSERT_FALSE(parsed);
  EXPECT_EQ(parsed.error().message, "nested more than 256 levels deep");
}

TEST(JsonLimitsTest, TheLimitItselfIsAllowed) {
  ASSERT_TRUE(ParseJsonWithDepthLimit(Nested(kMaxStoredJsonDepth)));
  EXPECT_FALSE(ParseJsonWithDepthLimit(Nested(kMaxStoredJsonDepth + 1)));
}

TEST(JsonLimitsTest, InvalidJsonIsAnErrorNotAnException) {
  const auto parsed = ParseJsonWithDepthLimit("{\"a\": ");
  ASSERT_FALSE(parsed);
  EXPECT_EQ(parsed.error().message, "not valid JSON");
  EXPECT_EQ(ParseJsonWithDepthLimit(R"({"x": [1, 2]})").value()["x"][1], 2);
}

}  // namespace
}  // namespace gpusweep
