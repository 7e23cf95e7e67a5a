#include "common/did_you_mean.h"

#include <gtest/gtest.h>

#include <array>

namespace gpusweep {
namespace {

constexpr std::array<std::string_view, 5> kKeys{"name", "command", "search_space", "sampler",
                                                "shell"};

TEST(EditDistanceTest, CountsInsertionsDeletionsSubstitutionsAndTranspositions) {
  EXPECT_EQ(EditDistance("", ""), 0u);
  EXPECT_EQ(EditDistance("abc", ""), 3u);
  EXPECT_EQ(EditDistance("", "abc"), 3u);
  EXPECT_EQ(EditDistance("search_spce", "search_space"), 1u);  // deletion
  EXPECT_EQ(EditDistance("samplerr", "sampler"), 1u);          // insertion
  EXPECT_EQ(EditDistance("shall", "shell"), 1u);               // substitution
  EXPECT_EQ(EditDistance("nmae", "name"), 1u);                 // transposition
  EXPECT_EQ(EditDistance("kitten", "sitting"), 3u);
  EXPECT_EQ(EditDistance("ca", "abc"), 3u);  // OSA: no edits inside a transposed pair
}

TEST(ClosestMatchTest, SuggestsTheNearestKey) {
  EXPECT_EQ(ClosestMatch("search_spce", kKeys), "search_space");
  EXPECT_EQ(ClosestMatch("nmae", kKeys), "name");
  EXPECT_EQ(ClosestMatch("comand", kKeys), "command");
  EXPECT_EQ(ClosestMatch("Sampler", kKeys), "sampler");
}

TEST(ClosestMatchTest, StaysQuietWhenNothingIsClose) {
  EXPECT_EQ(ClosestMatch("zzzzzz", kKeys), std::nullopt);
  EXPECT_EQ(ClosestMatch("x", kKeys), std::nullopt);  // one letter is no evidence
  EXPECT_EQ(ClosestMatch("anything", std::span<const std::string_view>{}), std::nullopt);
}

TEST(ClosestMatchTest, PrefersTheSmallerDistanceThenTheEarlierCandidate) {
  constexpr std::array<std::string_view, 3> keys{"low", "high", "lot"};
  EXPECT_EQ(ClosestMatch("lo", keys), "low");
  EXPECT_EQ(ClosestMatch("hihg", keys), "high");
}

TEST(JoinNamesTest, JoinsWithCommas) {
  constexpr std::array<std::string_view, 3> names{"a", "b", "c"};
  EXPECT_EQ(JoinNames(names), "a, b, c");
  EXPECT_EQ(JoinNames(std::span<const std::string_view>{}), "");
}

}  // namespace
}  // namespace gpusweep
