// ParamText: constants apart, values never printed alike when they differ.
#include "report/param_text.h"

#include <gtest/gtest.h>

#include "report/report_test_util.h"

namespace gpusweep::report {
namespace {

using gpusweep::testing::MakeTrial;

TEST(ParamTextTest, ConstantsAreListedOnceAndLeftOutOfRows) {
  const std::vector<TrialRecord> trials = {
      MakeTrial(0, TrialState::kCompleted, 0.5,
                Json::parse(R"({"lr":0.1,"epochs":4,"net":{"bn":true,"depth":2}})")),
      MakeTrial(1, TrialState::kCompleted, 0.6,
                Json::parse(R"({"lr":0.2,"epochs":4,"net":{"bn":true,"depth":3}})"))};
  const ParamText text(trials);
  EXPECT_EQ(text.Constants(), "epochs=4, net.bn=true");
  EXPECT_EQ(text.Varying(trials[0].params), "lr=0.1, net.depth=2");
  EXPECT_EQ(text.Varying(trials[1].params), "lr=0.2, net.depth=3");
}

TEST(ParamTextTest, OneTrialHasNoConstants) {
  const std::vector<TrialRecord> trials = {
      MakeTrial(0, TrialState::kCompleted, 0.5, Json::parse(R"({"lr":0.1})"))};
  const ParamText text(trials);
  EXPECT_EQ(text.Constants(), "");
  EXPECT_EQ(text.Varying(trials[0].params), "lr=0.1");
}

TEST(ParamTextTest, ValuesThatDifferNeverLookAlike) {
  const std::vector<TrialRecord> trials = {
      MakeTrial(0, TrialState::kCompleted, 0.5, Json::parse(R"({"lr":0.0010000001,"m":0.9})")),
      MakeTrial(1, TrialState::kCompleted, 0.5, Json::parse(R"({"lr":0.0010000002,"m":0.95})")),
      MakeTrial(2, TrialState::kCompleted, 0.5, Json::parse(R"({"lr":0.001,"m":0.9})"))};
  const ParamText text(trials);
  EXPECT_EQ(text.Varying(trials[0].params), "lr=0.0010000001, m=0.9");
  EXPECT_EQ(text.Varying(trials[1].params), "lr=0.0010000002, m=0.95");
  EXPECT_EQ(text.Varying(trials[2].params), "lr=0.001, m=0.9");  // no needless digits
}

TEST(ParamTextTest, AParamMissingFromSomeTrialsIsNoConstant) {
  const std::vector<TrialRecord> trials = {
      MakeTrial(0, TrialState::kCompleted, 0.5, Json::parse(R"({"a":1,"b":2})")),
      MakeTrial(1, TrialState::kCompleted, 0.5, Json::parse(R"({"a":1})"))};
  const ParamText text(trials);
  EXPECT_EQ(text.Constants(), "a=1");
  EXPECT_EQ(text.Varying(trials[0].params), "b=2");
  EXPECT_EQ(text.Varying(trials[1].params), "");
}

}  // namespace
}  // namespace gpusweep::report
