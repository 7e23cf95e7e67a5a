// Samplers over a conditional space (param_conditions.h): only active leaves in a trial,
// the grid's active combinations, refusals by samplers that model fixed dimensions.
#include <map>
#include <set>
#include <string>

#include <gtest/gtest.h>

#include "gpusweep/sampler.h"
#include "search/param_specs_for_tests.h"

namespace gpusweep {
namespace {

using namespace test_support;

ParamSpec When(ParamSpec p, std::string param, std::vector<Json> values) {
  p.when.push_back(ParamCondition{std::move(param), std::move(values), 0});
  return p;
}

// classifier: svm (C, kernel; gamma only for rbf) | rf (trees) | none; seed constant.
SearchSpace Cash() {
  SearchSpace s;
  s.params = {Choice("classifier", {"svm", "rf", "none"}),
              When(Real("C", ParamKind::kLogUniform, 1e-3, 1e3), "classifier", {"svm"}),
              When(Choice("kernel", {"rbf", "linear"}), "classifier", {"svm"}),
              When(When(Real("gamma", ParamKind::kLogUniform, 1e-4, 1), "classifier", {"svm"}),
                   "kernel", {"rbf"}),
              When(Int("trees", 10, 30, 10), "classifier", {"rf"}),
              Constant("seed", 7)};
  return s;
}

SamplerConfig Config(SamplerKind kind, int trials = 200) {
  SamplerConfig c;
  c.kind = kind;
  c.trials = trials;
  c.seed = 3;
  return c;
}

// The leaves a trial must have, from its own values.
std::set<std::string> Expected(const Params& p) {
  std::set<std::string> keys{"classifier", "seed"};
  const std::string c = p.at("classifier");
  if (c == "svm") {
    keys.insert({"C", "kernel"});
    if (p.at("kernel") == "rbf") keys.insert("gamma");
  }
  if (c == "rf") keys.insert("trees");
  return keys;
}

std::set<std::string> Keys(const Params& p) {
  std::set<std::string> keys;
  for (const auto& [k, v] : p.items()) keys.insert(k);
  return keys;
}

TEST(ConditionalSampler, RandomSobolAndTpeStartupGiveOnlyActiveLeaves) {
  for (SamplerKind kind : {SamplerKind::kRandom, SamplerKind::kSobol, SamplerKind::kTpe}) {
    auto sampler = MakeSampler(Config(kind), Cash(), Mode::kMin);
    ASSERT_TRUE(sampler) << sampler.error().message;
    std::map<std::string, int> branches;
    for (int k = 0; k < 60; ++k) {
      const Params p = (*sampler)->Suggest(k, {}).params;
      EXPECT_EQ(Keys(p), Expected(p)) << p.dump();
      ++branches[p.at("classifier")];
    }
    EXPECT_EQ(branches.size(), 3u) << static_cast<int>(kind);  // every branch is drawn
  }
}

TEST(ConditionalSampler, RandomKeepsEachLeafsDrawWhateverIsActive) {
  // The unconditional twin draws the same values for the leaves that are active.
  SearchSpace flat = Cash();
  for (ParamSpec& p : flat.params) p.when.clear();
  auto conditional = MakeSampler(Config(SamplerKind::kRandom), Cash(), Mode::kMin);
  auto unconditional = MakeSampler(Config(SamplerKind::kRandom), flat, Mode::kMin);
  ASSERT_TRUE(conditional && unconditional);
  for (int k = 0; k < 20; ++k) {
    const Params a = (*conditional)->Suggest(k, {}).params;
    const Params b = (*unconditional)->Suggest(k, {}).params;
    for (const auto& [name, value] : a.items()) EXPECT_EQ(value, b.at(name)) << name;
  }
}

TEST(ConditionalSampler, GridEnumeratesOnlyActiveCombinations) {
  SearchSpace s;
  s.params = {Choice("classifier", {"svm", "rf", "none"}),
              When(Choice("C", {0.1, 1, 10}), "classifier", {"svm"}),
              When(Choice("kernel", {"rbf", "linear"}), "classifier", {"svm"}),
              When(When(Choice("gamma", {1, 2}), "classifier", {"svm"}), "kernel", {"rbf"}),
              When(Int("trees", 10, 30, 10), "classifier", {"rf"}),
              Choice("scale", {true, false})};
  // svm: 3 C x (rbf: 2 gamma + linear: 1) = 9; rf: 3; none: 1 -> 13 x 2 scale.
  EXPECT_EQ(GridSize(s), 26);
  SamplerConfig grid = Config(SamplerKind::kGrid);
  grid.repeats = 2;
  auto sampler = MakeSampler(grid, s, Mode::kMin);
  ASSERT_TRUE(sampler) << sampler.error().message;
  EXPECT_EQ((*sampler)->total_trials(), 52);
  std::set<std::string> seen;
  for (int k = 0; k < 26; ++k) {
    const Params p = (*sampler)->Suggest(k, {}).params;
    EXPECT_TRUE(seen.insert(p.dump()).second) << "repeated point " << p.dump();
    EXPECT_EQ((*sampler)->Suggest(k + 26, {}).params, p);
    EXPECT_EQ((*sampler)->Suggest(k + 26, {}).repeat, 1);
    const bool svm = p.at("classifier") == "svm";
    EXPECT_EQ(p.contains("C"), svm);
    EXPECT_EQ(p.contains("gamma"), svm && p.at("kernel") == "rbf");
    EXPECT_EQ(p.contains("trees"), p.at("classifier") == "rf");
  }
  // The first declared leaf is the most significant digit, the last the fastest.
  EXPECT_EQ((*sampler)->Suggest(0, {}).params.dump(),
            R"({"classifier":"svm","C":0.1,"kernel":"rbf","gamma":1,"scale":true})");
  EXPECT_EQ((*sampler)->Suggest(1, {}).params.at("scale"), false);
  EXPECT_EQ((*sampler)->Suggest(18, {}).params.dump(),
            R"({"classifier":"rf","trees":10,"scale":true})");
  EXPECT_EQ((*sampler)->Suggest(25, {}).params.dump(), R"({"classifier":"none","scale":false})");
}

TEST(ConditionalSampler, SamplersWithFixedDimensionsRefuseConditions) {
  SearchSpace s;
  s.params = {Int("depth", 1, 4), When(Real("x", ParamKind::kUniform, 0, 1), "depth", {2, 3}),
              Real("y", ParamKind::kUniform, 0, 1)};
  for (SamplerKind kind : {SamplerKind::kCmaes, SamplerKind::kEvolution, SamplerKind::kGp}) {
    auto sampler = MakeSampler(Config(kind), s, Mode::kMin);
    ASSERT_FALSE(sampler) << static_cast<int>(kind);
    EXPECT_NE(sampler.error().message.find("search_space.x: the sampler cannot handle "
                                           "conditional parameters"),
              std::string::npos)
        << sampler.error().message;
  }
  EXPECT_TRUE(MakeSampler(Config(SamplerKind::kTpe), s, Mode::kMin));
}

TEST(ConditionalSampler, EnqueuedSettingKeepsTheLeavesItsBranchActivates) {
  SamplerConfig random = Config(SamplerKind::kRandom, 5);
  random.enqueue = {Json{{"classifier", "rf"}}, Json{{"classifier", "svm"}, {"C", 2.0}}};
  auto sampler = MakeSampler(random, Cash(), Mode::kMin);
  ASSERT_TRUE(sampler) << sampler.error().message;
  const Params rf = (*sampler)->Suggest(0, {}).params;
  EXPECT_EQ(Keys(rf), Expected(rf)) << rf.dump();
  EXPECT_EQ(rf.at("classifier"), "rf");
  const Params svm = (*sampler)->Suggest(1, {}).params;
  EXPECT_EQ(Keys(svm), Expected(svm)) << svm.dump();
  EXPECT_EQ(svm.at("C"), 2.0);
  EXPECT_EQ((*sampler)->Suggest(1, {}).params, svm);  // replays
}

}  // namespace
}  // namespace gpusweep
