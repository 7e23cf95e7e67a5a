// Templates over nested and conditional parameters (render.h): dotted names nest,
// sections over absent conditional leaves are skipped, bare reads are refused at plan time.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "gpusweep/render.h"
#include "search/param_specs_for_tests.h"

namespace gpusweep {
namespace {

using namespace test_support;

ParamSpec When(ParamSpec p, std::string param, std::vector<Json> values) {
  p.when.push_back(ParamCondition{std::move(param), std::move(values), 0});
  return p;
}

SearchSpace Space() {
  SearchSpace s;
  s.params = {Choice("classifier", {Json{{"type", "svm"}}, "none"}),
              When(Real("classifier.C", ParamKind::kUniform, 0, 1), "classifier",
                   {Json{{"type", "svm"}}}),
              When(Choice("classifier.kernel", {"rbf", "linear"}), "classifier",
                   {Json{{"type", "svm"}}}),
              When(When(Real("classifier.gamma", ParamKind::kUniform, 0, 1), "classifier",
                        {Json{{"type", "svm"}}}),
                   "classifier.kernel", {"rbf"}),
              Int("model.depth", 1, 3)};
  return s;
}

Json Context(const Params& params) { return MakeTemplateContext(params, TrialContextInfo{}); }

TEST(ConditionalTemplates, DottedNamesNestInTheContext) {
  const Json context = Context(Params{{"classifier", {{"type", "svm"}}},
                                      {"classifier.C", 0.5},
                                      {"model.depth", 2}});
  auto text = RenderTemplate("{{model.depth}} {{classifier.type}} {{classifier.C}} {{classifier}}",
                             context, "t");
  ASSERT_TRUE(text) << text.error().message;
  EXPECT_EQ(*text, R"(2 svm 0.5 {"type":"svm","C":0.5})");
}

TEST(ConditionalTemplates, SectionOverAnAbsentConditionalLeafIsSkipped) {
  const std::vector<std::string> optional = ConditionalNames(Space());
  const std::string text =
      "-d {{model.depth}}{{#classifier.C}} -C {{classifier.C}}{{/classifier.C}}"
      "{{^classifier.C}} no-C{{/classifier.C}}";
  auto none = RenderTemplate(text, Context(Params{{"classifier", "none"}, {"model.depth", 1}}),
                             "t", optional);
  ASSERT_TRUE(none) << none.error().message;
  EXPECT_EQ(*none, "-d 1 no-C");
  auto svm = RenderTemplate(
      text,
      Context(Params{{"classifier", {{"type", "svm"}}}, {"classifier.C", 0.25}, {"model.depth", 3}}),
      "t", optional);
  ASSERT_TRUE(svm) << svm.error().message;
  EXPECT_EQ(*svm, "-d 3 -C 0.25");
  // Without the names of the conditional leaves a missing one is an unknown name.
  EXPECT_FALSE(RenderTemplate(text, Context(Params{{"classifier", "none"}, {"model.depth", 1}}), "t"));
}

TEST(ConditionalTemplates, PlanTimeCheckRefusesReadsOutsideTheirSection) {
  const SearchSpace s = Space();
  EXPECT_TRUE(CheckConditionalUses("{{#classifier.C}}-C {{classifier.C}} -k {{classifier.kernel}}"
                                   "{{/classifier.C}} {{model.depth}} {{classifier}}",
                                   s, "t"));
  EXPECT_TRUE(CheckConditionalUses("{{#classifier.gamma}}{{classifier.C}} {{classifier.gamma}}"
                                   "{{/classifier.gamma}}",
                                   s, "t"));  // gamma is only where C is
  const Status bare = CheckConditionalUses("run\n --C {{classifier.C}}", s, "cmd");
  ASSERT_FALSE(bare);
  EXPECT_EQ(bare.error().message,
            "cmd:2:6: {{classifier.C}} reads 'classifier.C', which only some trials have (when "
            "classifier is {\"type\":\"svm\"}); put it inside a section that renders only where it "
            "is set: {{#classifier.C}}...{{classifier.C}}...{{/classifier.C}}");
  // C's section does not guard gamma, which also needs kernel rbf.
  EXPECT_FALSE(CheckConditionalUses("{{#classifier.C}}{{classifier.gamma}}{{/classifier.C}}", s, "t"));
  // Inside the (always present) choice's own section, {{C}} still means classifier.C.
  EXPECT_FALSE(CheckConditionalUses("{{#classifier}}{{C}}{{/classifier}}", s, "t"));
  EXPECT_FALSE(CheckConditionalUses("{{^classifier.C}}{{classifier.C}}{{/classifier.C}}", s, "t"));
}

}  // namespace
}  // namespace gpusweep
