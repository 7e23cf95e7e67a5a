#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "gpusweep/config.h"

namespace gpusweep {
namespace {

using ::testing::HasSubstr;

struct DurationCase {
  std::string_view text;
  double seconds;
};

TEST(ParseDurationTest, AcceptsNumbersAndUnits) {
  constexpr DurationCase kCases[] = {
      {"90", 90},           {"90s", 90},    {"20m", 1200}, {"1.5h", 5400}, {"1h30m", 5400},
      {"250ms", 0.25},      {"2d", 172800}, {"0", 0},      {"0.5", 0.5},   {"1d2h3m4s", 93784},
      {"1m30s500ms", 90.5}, {".5s", 0.5},   {"+10s", 10},
  };
  for (const auto& c : kCases) {
    auto seconds = ParseDuration(c.text);
    ASSERT_TRUE(seconds.has_value()) << c.text << ": " << seconds.error().message;
    EXPECT_DOUBLE_EQ(*seconds, c.seconds) << c.text;
  }
}

TEST(ParseDurationTest, RejectsGarbageWithAHint) {
  constexpr std::string_view kBad[] = {"",     "abc",   "10x",  "1h30", "s",  "1.2.3s",
                                       "10 s", "30m1h", "1m1m", "1e3",  "h1", "1hh"};
  for (std::string_view text : kBad) {
    auto seconds = ParseDuration(text);
    ASSERT_FALSE(seconds.has_value()) << "accepted '" << text << "' as " << *seconds;
    EXPECT_EQ(seconds.error().code, ErrorCode::kInvalidConfig);
    EXPECT_THAT(seconds.error().message, HasSubstr("is not a duration")) << text;
    EXPECT_THAT(seconds.error().message, HasSubstr("e.g. 90, 90s, 20m, 1.5h")) << text;
  }
}

TEST(ParseDurationTest, RejectsNegativeDurations) {
  for (std::string_view text : {"-1", "-5s", "-1h30m"}) {
    auto seconds = ParseDuration(text);
    ASSERT_FALSE(seconds.has_value()) << text;
    EXPECT_THAT(seconds.error().message, HasSubstr("negative")) << text;
  }
}

}  // namespace
}  // namespace gpusweep
