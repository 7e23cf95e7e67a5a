// Groups, dotted names, choices over sub-spaces and when: (nested_space.h).
#include <gtest/gtest.h>

#include <string>

#include "config/config_test_util.h"
#include "config/search_space_parser.h"

namespace gpusweep {
namespace {

using config_test::ParseAfter;
using config_test::ParseErrorAfter;

constexpr std::string_view kHead =
    "name: e\n"
    "command: [a]\n"
    "metric: {name: m, mode: max}\n"
    "sampler: {type: random, trials: 2}\n"
    "search_space:\n";

constexpr std::string_view kGridHead =
    "name: e\n"
    "command: [a]\n"
    "metric: {name: m, mode: max}\n"
    "sampler: {type: grid}\n"
    "search_space:\n";

std::vector<std::string> Names(const SearchSpace& space) {
  std::vector<std::string> names;
  for (const ParamSpec& p : space.params) names.push_back(p.name);
  return names;
}

TEST(NestedSpace, GroupsDottedNamesAndWandbParametersAreTheSameLeaves) {
  for (std::string_view space :
       {"  model:\n    encoder:\n      depth: {type: int, low: 1, high: 4}\n"
        "    width: {values: [64, 128]}\n  lr: 0.1\n",
        "  model.encoder.depth: {type: int, low: 1, high: 4}\n"
        "  model.width: {values: [64, 128]}\n  lr: 0.1\n",
        "  model:\n    parameters:\n      encoder:\n        parameters:\n"
        "          depth: {type: int, low: 1, high: 4}\n"
        "      width: {values: [64, 128]}\n  lr: 0.1\n",
        "  model:\n    encoder.depth: {type: int, low: 1, high: 4}\n"
        "    width: {values: [64, 128]}\n  lr: 0.1\n"}) {
    auto config = ParseAfter(kHead, space);
    ASSERT_TRUE(config) << config.error().message;
    EXPECT_EQ(Names(config->search_space),
              (std::vector<std::string>{"model.encoder.depth", "model.width", "lr"}))
        << space;
    EXPECT_EQ(config->search_space.params[0].kind, ParamKind::kInt);
    EXPECT_TRUE(config->search_space.params[0].when.empty());
  }
}

TEST(NestedSpace, MappingOfConstantsIsAGroupAndNestsAsWritten) {
  auto config = ParseAfter(kGridHead,
                           "  optimizer:\n    name: adam\n    betas: [0.9, 0.99]\n"
                           "    lr: {type: choice, values: [0.1, 0.01]}\n");
  ASSERT_TRUE(config) << config.error().message;
  EXPECT_EQ(Names(config->search_space),
            (std::vector<std::string>{"optimizer.name", "optimizer.betas", "optimizer.lr"}));
  const Params flat{{"optimizer.name", "adam"}, {"optimizer.betas", {0.9, 0.99}},
                    {"optimizer.lr", 0.1}};
  EXPECT_EQ(NestParams(flat).dump(),
            R"({"optimizer":{"name":"adam","betas":[0.9,0.99],"lr":0.1}})");
}

TEST(NestedSpace, DottedNameUnderALeafIsAnErrorAtItsLine) {
  EXPECT_EQ(ParseErrorAfter(kHead, "  a: 1\n  a.b: {type: uniform, low: 0, high: 1}\n"),
            "exp.yaml:7:3: search_space.a.b: 'a' is a parameter (line 6), so it cannot also be "
            "a group of parameters; rename one of them, or put the parameter inside the group");
  EXPECT_EQ(ParseErrorAfter(kHead, "  a.b: {type: uniform, low: 0, high: 1}\n  a: 1\n"),
            "exp.yaml:7:3: search_space.a: 'a' is a group of parameters (line 6), so it cannot "
            "also be a parameter; rename one of them, or put the parameter inside the group");
  EXPECT_NE(ParseErrorAfter(kHead, "  a.b: 1\n  a:\n    b: 2\n").find("'a.b' is already a parameter"),
            std::string::npos);
  EXPECT_NE(ParseErrorAfter(kHead, "  trial.x: 1\n").find("'trial' is reserved"), std::string::npos);
  EXPECT_NE(ParseErrorAfter(kHead, "  a..b: 1\n").find("not a valid parameter name"),
            std::string::npos);
}

constexpr std::string_view kHyperoptCash =
    "  classifier:\n"
    "    type: choice\n"
    "    values:\n"
    "      - {type: svm, C: {type: loguniform, low: 0.001, high: 1000}, kernel: linear}\n"
    "      - type: rf\n"
    "        trees: {type: int, low: 10, high: 30, step: 10}\n"
    "        depth:\n"
    "          max: {type: int, low: 2, high: 8}\n"
    "      - none\n";

TEST(NestedSpace, ChoiceOverSubSpacesIsConditional) {
  auto config = ParseAfter(kHead, kHyperoptCash);
  ASSERT_TRUE(config) << config.error().message;
  const SearchSpace& s = config->search_space;
  EXPECT_EQ(Names(s), (std::vector<std::string>{"classifier", "classifier.C", "classifier.trees",
                                                "classifier.depth.max"}));
  EXPECT_EQ(Json(s.params[0].values).dump(),
            R"([{"type":"svm","kernel":"linear"},{"type":"rf"},"none"])");
  ASSERT_EQ(s.params[1].when.size(), 1u);
  EXPECT_EQ(s.params[1].when[0].param, "classifier");
  EXPECT_EQ(Json(s.params[1].when[0].values).dump(), R"([{"type":"svm","kernel":"linear"}])");
  EXPECT_EQ(Json(s.params[3].when[0].values).dump(), R"([{"type":"rf"}])");
  // A trial of the svm branch nests as Hyperopt's space_eval gives it.
  EXPECT_EQ(NestParams(Params{{"classifier", s.params[0].values[0]}, {"classifier.C", 0.5}}).dump(),
            R"({"classifier":{"type":"svm","kernel":"linear","C":0.5}})");
}

// NNI's nested choice ("nested choice" in its search-space docs), in our values: form and
// in NNI's own {_type: choice, _value: [{_name: ..., <param>: {_type: ..., _value: ...}}]}.
TEST(NestedSpace, NniNestedChoiceWithNameIsReadAsNniMeansIt) {
  for (std::string_view space :
       {"  layer0:\n    type: choice\n    values:\n"
        "      - {_name: Empty}\n"
        "      - {_name: Conv, kernel_size: {type: choice, values: [1, 3, 5]}}\n"
        "      - {_name: Max_pool, pooling_size: {type: choice, values: [2, 3]}}\n",
        "  layer0:\n    _type: choice\n    _value:\n"
        "      - {_name: Empty}\n"
        "      - {_name: Conv, kernel_size: {_type: choice, _value: [1, 3, 5]}}\n"
        "      - {_name: Max_pool, pooling_size: {_type: choice, _value: [2, 3]}}\n"}) {
    auto config = ParseAfter(kGridHead, space);
    ASSERT_TRUE(config) << config.error().message;
    const SearchSpace& s = config->search_space;
    EXPECT_EQ(Names(s), (std::vector<std::string>{"layer0", "layer0.kernel_size", "layer0.pooling_size"}));
    EXPECT_EQ(Json(s.params[0].values).dump(), R"([{"_name":"Empty"},{"_name":"Conv"},{"_name":"Max_pool"}])");
    ASSERT_EQ(s.params[1].when.size(), 1u);
    EXPECT_EQ(Json(s.params[1].when[0].values).dump(), R"([{"_name":"Conv"}])");
    EXPECT_EQ(config_detail::TotalTrials(config->sampler, s), 6u);  // 1 + 3 + 2, not 3 x 3 x 2
    // A trial gets what NNI's tuner gives the trial: the value with its drawn parameters.
    EXPECT_EQ(NestParams(Params{{"layer0", s.params[0].values[1]}, {"layer0.kernel_size", 3}}).dump(),
              R"({"layer0":{"_name":"Conv","kernel_size":3}})");
  }
  // Two branches with the same _name are told apart by nothing: refused at the second.
  EXPECT_NE(ParseErrorAfter(kHead, "  l: {_type: choice, _value: [{_name: a, x: {_type: uniform, "
                                   "_value: [0, 1]}}, {_name: a, y: {_type: uniform, _value: [0, 1]}}]}\n")
                .find("duplicates search_space.l._value[0]"),
            std::string::npos);
}

TEST(NestedSpace, SpecAsAChoiceValueNeverReachesTrialsAsData) {
  EXPECT_NE(ParseErrorAfter(kHead, "  x: {type: choice, values: [1, {type: uniform, low: 0, high: 1}]}\n")
                .find("search_space.x.values[1]: this value is a parameter spec, not a value"),
            std::string::npos);
  EXPECT_NE(ParseErrorAfter(kHead, "  x: {type: choice, values: [1, {_type: uniform, _value: [0, 1]}]}\n")
                .find("this value is a parameter spec"),
            std::string::npos);
  // A mistyped spec inside a choice: its own error, not a literal mapping.
  EXPECT_NE(ParseErrorAfter(kHead, "  x: {type: choice, values: [1, {type: choise, values: [2, 3]}]}\n")
                .find("did you mean 'choice'"),
            std::string::npos);
  // Mappings that are data stay data.
  auto config = ParseAfter(kHead, "  act: {type: choice, values: [{type: relu}, {type: gelu, approximate: tanh}]}\n");
  ASSERT_TRUE(config) << config.error().message;
  EXPECT_EQ(Json(config->search_space.params[0].values).dump(),
            R"([{"type":"relu"},{"type":"gelu","approximate":"tanh"}])");
  EXPECT_TRUE(config->search_space.params[0].when.empty());
}

TEST(NestedSpace, SubSpacesWithTheSameFixedPartAreRefused) {
  EXPECT_NE(ParseErrorAfter(kHead,
                            "  opt:\n    type: choice\n    values:\n"
                            "      - {lr: {type: uniform, low: 0, high: 1}}\n"
                            "      - {momentum: {type: uniform, low: 0, high: 1}}\n")
                .find("give each one a key of its own, e.g. name: svm"),
            std::string::npos);
}

TEST(NestedSpace, SameLeafNameInTwoSubSpaces) {
  auto config = ParseAfter(kHead,
                           "  clf:\n    type: choice\n    values:\n"
                           "      - {name: svm, C: {type: loguniform, low: 0.1, high: 10}}\n"
                           "      - {name: logreg, C: {type: loguniform, low: 0.01, high: 1}}\n");
  ASSERT_TRUE(config) << config.error().message;
  EXPECT_EQ(Names(config->search_space), (std::vector<std::string>{"clf", "clf.C", "clf.C"}));
  EXPECT_EQ(config->search_space.params[2].low, 0.01);
}

TEST(NestedSpace, WhenOnLeavesAndGroups) {
  auto config = ParseAfter(kGridHead,
                           "  classifier: {type: choice, values: [svm, rf, knn]}\n"
                           "  C: {type: choice, values: [1, 10], when: {classifier: svm}}\n"
                           "  forest:\n"
                           "    when: {classifier: [rf]}\n"
                           "    trees: {type: int, low: 1, high: 3}\n"
                           "    bootstrap: {values: [true, false], when: {trees: [2, 3]}}\n"
                           "  k: {value: 5, when: {classifier: knn}}\n");
  ASSERT_TRUE(config) << config.error().message;
  const SearchSpace& s = config->search_space;
  EXPECT_EQ(Names(s), (std::vector<std::string>{"classifier", "C", "forest.trees",
                                                "forest.bootstrap", "k"}));
  EXPECT_EQ(s.params[4].kind, ParamKind::kConstant);
  ASSERT_EQ(s.params[3].when.size(), 2u);  // the group's and its own (a sibling's name)
  EXPECT_EQ(s.params[3].when[1].param, "forest.trees");
  EXPECT_EQ(s.params[3].when[1].line, 11);
  // svm: 2; rf: trees 1 + trees 2, 3 with bootstrap 2 each = 5; knn: 1.
  EXPECT_EQ(config_detail::TotalTrials(config->sampler, config->search_space), 8u);
}

// A `when:` finds a sibling by the full name, however the name was written: dotted
// (`model.trees` beside `model.kind`), inside the group, or on a group (its siblings).
TEST(NestedSpace, WhenFindsSiblingsOfDottedNamesAndOfGroups) {
  for (std::string_view space :
       {"  model.kind: {values: [rf, svm]}\n"
        "  model.trees: {type: int, low: 1, high: 3, when: {kind: rf}}\n"
        "  model.opts:\n    when: {kind: svm}\n    c: {values: [1, 2]}\n",
        "  model:\n    kind: {values: [rf, svm]}\n"
        "    trees: {type: int, low: 1, high: 3, when: {kind: rf}}\n"
        "    opts:\n      when: {kind: svm}\n      c: {values: [1, 2]}\n"}) {
    auto config = ParseAfter(kGridHead, space);
    ASSERT_TRUE(config) << config.error().message << "\n" << space;
    const SearchSpace& s = config->search_space;
    EXPECT_EQ(Names(s), (std::vector<std::string>{"model.kind", "model.trees", "model.opts.c"}));
    ASSERT_EQ(s.params[1].when.size(), 1u);
    EXPECT_EQ(s.params[1].when[0].param, "model.kind");
    ASSERT_EQ(s.params[2].when.size(), 1u);
    EXPECT_EQ(s.params[2].when[0].param, "model.kind");
    EXPECT_EQ(config_detail::TotalTrials(config->sampler, s), 5u);  // rf: 3, svm: 2
  }
}

// W&B's nested form under a `when:`: the group is still W&B's {parameters: ...}, never a
// group named "parameters".
TEST(NestedSpace, WhenBesideWandbParameters) {
  auto config = ParseAfter(kGridHead,
                           "  opt: {values: [sgd, adam]}\n"
                           "  sgd:\n    when: {opt: sgd}\n    parameters:\n"
                           "      momentum: {values: [0.5, 0.9]}\n");
  ASSERT_TRUE(config) << config.error().message;
  const SearchSpace& s = config->search_space;
  EXPECT_EQ(Names(s), (std::vector<std::string>{"opt", "sgd.momentum"}));
  ASSERT_EQ(s.params[1].when.size(), 1u);
  EXPECT_EQ(s.params[1].when[0].param, "opt");
  EXPECT_EQ(config_detail::TotalTrials(config->sampler, s), 3u);
}

TEST(NestedSpace, WhenErrors) {
  // The short name of a leaf in an outer group: its full name is suggested.
  EXPECT_NE(ParseErrorAfter(kHead, "  model:\n    kind: {values: [cnn, rf]}\n"
                                   "    encoder:\n"
                                   "      depth: {type: int, low: 1, high: 4, when: {kind: cnn}}\n")
                .find("'kind' is not a parameter declared before this one; did you mean 'model.kind'?"),
            std::string::npos);
  EXPECT_EQ(ParseErrorAfter(kHead, "  C: {type: uniform, low: 0, high: 1, when: {clasifier: svm}}\n"
                                   "  classifier: {values: [svm, rf]}\n"),
            "exp.yaml:6:46: search_space.C.when.clasifier: 'clasifier' is not a parameter "
            "declared before this one; when: names an earlier choice, int or constant "
            "parameter: a sibling in the same group, or its full dotted name");
  EXPECT_NE(ParseErrorAfter(kHead, "  classifier: {values: [svm, rf]}\n"
                                   "  C: {type: uniform, low: 0, high: 1, when: {classifier: svn}}\n")
                .find("\"svn\" is not a value of 'classifier'"),
            std::string::npos);
  EXPECT_NE(ParseErrorAfter(kHead, "  x: {type: uniform, low: 0, high: 1}\n"
                                   "  y: {type: uniform, low: 0, high: 1, when: {x: 0.5}}\n")
                .find("'x' is continuous"),
            std::string::npos);
}

TEST(NestedSpace, SamplersThatCannotHandleConditionsSayWhatToUse) {
  const std::string error = config_test::ParseError(
      "name: e\ncommand: [a]\nmetric: {name: m, mode: max}\n"
      "sampler: {type: gp, trials: 20}\nsearch_space:\n"
      "  depth: {type: int, low: 1, high: 3}\n"
      "  x: {type: uniform, low: 0, high: 1, when: {depth: 3}}\n");
  EXPECT_EQ(error,
            "exp.yaml:7:45: search_space.x.when: the gp sampler cannot handle conditional "
            "parameters (a parameter active only for some values of another); use sampler type: "
            "tpe (tree-structured: each parameter modelled from the trials that had it), random, "
            "sobol or grid; or make the parameters unconditional");
}

}  // namespace
}  // namespace gpusweep

namespace gpusweep {
namespace {

TEST(NestedSpace, IdentityNamesConditionsOnlyWhereTheyAre) {
  auto plain = config_test::ParseAfter(kHead, "  x: {type: uniform, low: 0, high: 1}\n");
  auto conditional = config_test::ParseAfter(
      kHead, "  c: {values: [a, b]}\n  x: {type: uniform, low: 0, high: 1, when: {c: a}}\n");
  ASSERT_TRUE(plain && conditional);
  EXPECT_FALSE(ConfigIdentity(*plain)["search_space"]["x"].contains("when"));
  EXPECT_EQ(ConfigIdentity(*conditional)["search_space"]["x"]["when"].dump(),
            R"([{"param":"c","values":["a"]}])");
  auto twice = config_test::ParseAfter(
      kHead, "  clf:\n    type: choice\n    values:\n"
             "      - {name: svm, C: {type: loguniform, low: 0.1, high: 10}}\n"
             "      - {name: lr, C: {type: loguniform, low: 0.01, high: 1}}\n");
  ASSERT_TRUE(twice);
  EXPECT_EQ(ConfigIdentity(*twice)["search_space"]["clf.C"].size(), 2u);
}

}  // namespace
}  // namespace gpusweep

namespace gpusweep {
namespace {

TEST(NestedSpace, AParameterNamedParametersIsNotWandbNesting) {
  auto config = config_test::ParseAfter(kHead, "  parameters: {type: choice, values: [1, 2]}\n");
  ASSERT_TRUE(config) << config.error().message;
  ASSERT_EQ(config->search_space.params.size(), 1u);
  EXPECT_EQ(config->search_space.params[0].name, "parameters");
  EXPECT_EQ(config->search_space.params[0].kind, ParamKind::kChoice);
}

}  // namespace
}  // namespace gpusweep
