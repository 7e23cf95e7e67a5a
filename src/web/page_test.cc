#include "web/page.h"

#include <gtest/gtest.h>

namespace gpusweep::web {
namespace {

std::size_t Count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(PageTest, DataCannotCloseTheScriptElement) {
  const Json data{{"param", "</script><script>alert(1)</script><!--"}};
  const std::string text = JsonForScript(data);
  EXPECT_EQ(text.find('<'), std::string::npos);
  EXPECT_EQ(Json::parse(text), data);  // still the same JSON
}

TEST(PageTest, ReportInlinesEverythingAndOnlyItsOwnScriptsClose) {
  const std::string page = ReportPage(Json{{"evil", "</script><img src=x onerror=alert(1)>"}});
  EXPECT_EQ(Count(page, "<script"), 2u);
  EXPECT_EQ(Count(page, "</script"), 2u);
  EXPECT_EQ(page.find("src=\"app.js\""), std::string::npos);  // nothing to fetch
  EXPECT_EQ(page.find("<img src=x"), std::string::npos);
  EXPECT_NE(page.find("window.GPUSWEEP_REPORT"), std::string::npos);
}

TEST(PageTest, ServedPageRefersToTheBundle) {
  const std::string page = ServedPage();
  EXPECT_NE(page.find("src=\"app.js?v="), std::string::npos);  // versioned: cached for good
  EXPECT_NE(page.find("href=\"app.css?v="), std::string::npos);
  EXPECT_GT(kAppJs.size(), 10000u);  // the real bundle, ECharts included
}

}  // namespace
}  // namespace gpusweep::web
