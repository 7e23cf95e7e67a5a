// cv: in the YAML: parsed, part of the identity, and located errors when wrong.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "config/config_test_util.h"
#include "gpusweep/config.h"

namespace gpusweep {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

constexpr std::string_view kHead =
    "name: e\n"
    "command: [a]\n"
    "metric: {name: m, mode: max}\n"
    "sampler: {type: random, trials: 3}\n"
    "search_space:\n"
    "  lr: {type: loguniform, low: 1.0e-4, high: 0.1}\n";

Expected<ExperimentConfig> Parse(std::string_view rest) { return config_test::ParseAfter(kHead, rest); }
std::string ErrorOf(std::string_view rest) { return config_test::ParseErrorAfter(kHead, rest); }

TEST(CvParserTest, FoldsAndAllowedFailuresAreRead) {
  auto config = Parse("cv: {folds: 5, allow_failed_folds: 1}\n");
  ASSERT_TRUE(config) << config.error().message;
  EXPECT_EQ(config->cv.folds, 5);
  EXPECT_EQ(config->cv.allow_failed_folds, 1);
  EXPECT_EQ(config->cv.line, 7);
  EXPECT_TRUE(config->cv.enabled());
  EXPECT_FALSE(Parse("")->cv.enabled());
  EXPECT_FALSE(Parse("cv:\n")->cv.enabled());
  EXPECT_EQ(Parse("cv: {folds: 3}\n")->cv.allow_failed_folds, 0);
}

TEST(CvParserTest, BadValuesAreLocatedAndExplained) {
  EXPECT_THAT(ErrorOf("cv: {folds: 1}\n"), StartsWith("exp.yaml:7:13: cv.folds: "));
  EXPECT_THAT(ErrorOf("cv: {folds: 101}\n"), HasSubstr("at most 100 folds, found 101"));
  EXPECT_THAT(ErrorOf("cv: {folds: 3, allow_failed_folds: 3}\n"),
              HasSubstr("3 of 3 folds may fail, so a configuration could have no fold to "
                        "average; use 0..2"));
  EXPECT_THAT(ErrorOf("cv: {allow_failed_folds: 1}\n"), HasSubstr("add e.g. folds: 5"));
  EXPECT_THAT(ErrorOf("cv: {fold: 5}\n"), HasSubstr("did you mean 'folds'?"));
  EXPECT_THAT(ErrorOf("cv: 5\n"), HasSubstr("e.g. cv: {folds: 5}"));
  auto shadowed = config_test::ParseError(
      std::string(kHead).append("  fold: {type: int, low: 0, high: 4}\ncv: {folds: 5}\n"));
  EXPECT_THAT(shadowed, HasSubstr("the search-space parameter 'fold' (line 7) would be shadowed "
                                  "by cv's {{fold}}; rename the parameter"));
}

TEST(CvParserTest, FoldsBelongToTheIdentity) {
  auto plain = Parse("");
  auto five = Parse("cv: {folds: 5}\n");
  auto lenient = Parse("cv: {folds: 5, allow_failed_folds: 2}\n");
  ASSERT_TRUE(plain && five && lenient);
  EXPECT_FALSE(ConfigIdentity(*plain).contains("cv"));  // older experiments keep theirs
  EXPECT_THAT(DiffConfigIdentity(ConfigIdentity(*plain), ConfigIdentity(*five)),
              ::testing::ElementsAre("cv (added)"));
  EXPECT_THAT(DiffConfigIdentity(ConfigIdentity(*five), ConfigIdentity(*lenient)),
              ::testing::ElementsAre("cv.allow_failed_folds"));
}

}  // namespace
}  // namespace gpusweep
