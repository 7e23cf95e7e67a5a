#include "search/mustache_tags.h"

#include <gtest/gtest.h>

#include "search/template_names.h"

namespace gpusweep::search {
namespace {

TEST(ScanMustacheTagsTest, ClassifiesTagsAndRecordsOffsets) {
  const std::string text = "a {{ x }}{{{y}}}{{&z}}{{#s}}{{^i}}{{/i}}{{/s}}{{! note }}";
  auto tags = ScanMustacheTags(text, "t");
  ASSERT_TRUE(tags.has_value()) << tags.error().message;
  ASSERT_EQ(tags->size(), 8u);
  const std::vector<std::pair<TagKind, std::string>> expected{
      {TagKind::kVariable, "x"},       {TagKind::kVariable, "y"},
      {TagKind::kVariable, "z"},       {TagKind::kSectionBegin, "s"},
      {TagKind::kInvertedBegin, "i"},  {TagKind::kSectionEnd, "i"},
      {TagKind::kSectionEnd, "s"},     {TagKind::kComment, ""}};
  for (std::size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ((*tags)[i].kind, expected[i].first) << i;
    EXPECT_EQ((*tags)[i].name, expected[i].second) << i;
  }
  EXPECT_EQ(text.substr((*tags)[0].begin, (*tags)[0].end - (*tags)[0].begin), "{{ x }}");
  EXPECT_EQ(text.substr((*tags)[1].begin, (*tags)[1].end - (*tags)[1].begin), "{{{y}}}");
}

TEST(ScanMustacheTagsTest, FollowsDelimiterChanges) {
  auto tags = ScanMustacheTags("{{=| |=}}|a| {{b}} |={{ }}=|{{c}}", "t");
  ASSERT_TRUE(tags.has_value()) << tags.error().message;
  ASSERT_EQ(tags->size(), 4u);
  EXPECT_EQ((*tags)[1].name, "a");
  EXPECT_EQ((*tags)[1].open, "|");
  EXPECT_EQ((*tags)[2].kind, TagKind::kSetDelimiter);
  EXPECT_EQ((*tags)[3].name, "c");
  EXPECT_EQ((*tags)[3].open, "{{");
}

TEST(ScanMustacheTagsTest, CommentsMaySpanLinesAndContainBraces) {
  auto tags = ScanMustacheTags("{{! a {b}\n c }}{{x}}", "t");
  ASSERT_TRUE(tags.has_value()) << tags.error().message;
  ASSERT_EQ(tags->size(), 2u);
  EXPECT_EQ((*tags)[1].name, "x");
}

TEST(TextLocationTest, CountsLinesAndColumnsFromOne) {
  EXPECT_EQ(TextLocation("f", "ab\ncd", 0), "f:1:1");
  EXPECT_EQ(TextLocation("f", "ab\ncd", 4), "f:2:2");
}

}  // namespace
}  // namespace gpusweep::search
