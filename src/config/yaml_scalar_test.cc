#include "config/yaml_scalar.h"

#include <gtest/gtest.h>

#include <cmath>

namespace gpusweep::config_detail {
namespace {

TEST(ResolvePlainScalarTest, FollowsTheCoreSchema) {
  EXPECT_EQ(ResolvePlainScalar("8"), Json(8));
  EXPECT_TRUE(ResolvePlainScalar("8").is_number_integer());
  EXPECT_EQ(ResolvePlainScalar("-12"), Json(-12));
  EXPECT_EQ(ResolvePlainScalar("+3"), Json(3));
  EXPECT_EQ(ResolvePlainScalar("0x1F"), Json(31));
  EXPECT_EQ(ResolvePlainScalar("0o17"), Json(15));
  EXPECT_TRUE(ResolvePlainScalar("1.0e-4").is_number_float());
  EXPECT_DOUBLE_EQ(ResolvePlainScalar("1.0e-4").get<double>(), 1.0e-4);
  EXPECT_DOUBLE_EQ(ResolvePlainScalar("1e-4").get<double>(), 1e-4);
  EXPECT_DOUBLE_EQ(ResolvePlainScalar(".5").get<double>(), 0.5);
  EXPECT_DOUBLE_EQ(ResolvePlainScalar("3.").get<double>(), 3.0);
  EXPECT_TRUE(ResolvePlainScalar("0.0").is_number_float());
  EXPECT_TRUE(std::isinf(ResolvePlainScalar("-.inf").get<double>()));
  EXPECT_EQ(ResolvePlainScalar("true"), Json(true));
  EXPECT_EQ(ResolvePlainScalar("False"), Json(false));
  EXPECT_EQ(ResolvePlainScalar("null"), Json(nullptr));
  EXPECT_EQ(ResolvePlainScalar("~"), Json(nullptr));
  EXPECT_EQ(ResolvePlainScalar(""), Json(nullptr));
}

TEST(ResolvePlainScalarTest, LeavesEverythingElseAsStrings) {
  for (std::string_view text : {"yes", "on", "relu", "1.2.3", "0x", "0x-5", "-", "1_000", "inf",
                                "nan", "e5", "{{lr}}", "12abc"})
    EXPECT_EQ(ResolvePlainScalar(text), Json(std::string(text))) << text;
}

TEST(ResolvePlainScalarTest, HugeIntegersBecomeDoubles) {
  const Json value = ResolvePlainScalar("123456789012345678901234567890");
  EXPECT_TRUE(value.is_number_float());
}

TEST(ResolveScalarTest, QuotedAndTaggedScalarsStayStrings) {
  const YAML::Node doc =
      YAML::Load("a: '8'\nb: \"true\"\nc: !!str 9\nd: 8\ne: |\n  7\nf: ~\ng: 'null'\n");
  EXPECT_EQ(ResolveScalar(doc["a"]), Json("8"));
  EXPECT_EQ(ResolveScalar(doc["b"]), Json("true"));
  EXPECT_EQ(ResolveScalar(doc["c"]), Json("9"));
  EXPECT_EQ(ResolveScalar(doc["d"]), Json(8));
  EXPECT_EQ(ResolveScalar(doc["e"]), Json("7\n"));
  EXPECT_EQ(ResolveScalar(doc["f"]), Json(nullptr));
  EXPECT_EQ(ResolveScalar(doc["g"]), Json("null"));
}

}  // namespace
}  // namespace gpusweep::config_detail
