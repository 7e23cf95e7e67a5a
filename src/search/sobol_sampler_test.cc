#include <cmath>
#include <map>
#include <set>

#include <gtest/gtest.h>

#include "gpusweep/sampler.h"
#include "search/param_specs_for_tests.h"

namespace gpusweep {
namespace {

using namespace test_support;

const std::vector<TrialRecord> kNoHistory;

std::unique_ptr<Sampler> Make(SamplerKind kind, int trials, std::uint64_t seed,
                              const SearchSpace& space) {
  SamplerConfig config;
  config.kind = kind;
  config.trials = trials;
  config.seed = seed;
  auto sampler = MakeSampler(config, space, Mode::kMin);
  EXPECT_TRUE(sampler.has_value()) << (sampler ? "" : sampler.error().message);
  return sampler ? std::move(*sampler) : nullptr;
}

SearchSpace Square() {
  return SearchSpace{{Real("x", ParamKind::kUniform, 0, 1), Constant("tag", "c"),
                      Real("y", ParamKind::kUniform, 0, 1)}};
}

// Points of trials first..first+count-1 per cell of a 4 x 4 grid over the unit square.
std::map<std::pair<int, int>, int> CellCounts(const Sampler& sampler, int first, int count) {
  std::map<std::pair<int, int>, int> cells;
  for (int k = first; k < first + count; ++k) {
    const Json p = sampler.Suggest(k, kNoHistory).params;
    ++cells[{static_cast<int>(p["x"].get<double>() * 4), static_cast<int>(p["y"].get<double>() * 4)}];
  }
  return cells;
}

TEST(SobolSamplerTest, EveryAlignedBlockOf16FillsEachCellOfA4x4GridOnce) {
  for (std::uint64_t seed : {0, 1, 99}) {
    auto sobol = Make(SamplerKind::kSobol, 64, seed, Square());
    ASSERT_NE(sobol, nullptr);
    for (int block = 0; block < 4; ++block) {
      const auto cells = CellCounts(*sobol, 16 * block, 16);
      EXPECT_EQ(cells.size(), 16u) << "seed " << seed << " block " << block;
    }
    const auto all = CellCounts(*sobol, 0, 64);
    for (const auto& [cell, count] : all) EXPECT_EQ(count, 4) << "seed " << seed;
  }
  // Random points leave cells empty (16 points hit all 16 cells with probability ~1e-6).
  auto random = Make(SamplerKind::kRandom, 64, 1, Square());
  ASSERT_NE(random, nullptr);
  EXPECT_LT(CellCounts(*random, 0, 16).size(), 16u);
}

TEST(SobolSamplerTest, SameSeedSameParamsOtherSeedOtherPoints) {
  auto a = Make(SamplerKind::kSobol, 32, 5, Square());
  auto b = Make(SamplerKind::kSobol, 32, 5, Square());
  auto c = Make(SamplerKind::kSobol, 32, 6, Square());
  ASSERT_TRUE(a && b && c);
  int differing = 0;
  for (int k = 31; k >= 0; --k) {  // any order: trial k is a pure function of (seed, k)
    const Json p = a->Suggest(k, kNoHistory).params;
    EXPECT_EQ(p, b->Suggest(k, kNoHistory).params);
    EXPECT_EQ(p.dump(), R"({"x":)" + p["x"].dump() + R"(,"tag":"c","y":)" + p["y"].dump() + "}");
    differing += p != c->Suggest(k, kNoHistory).params ? 1 : 0;
  }
  EXPECT_EQ(differing, 32);
}

TEST(SobolSamplerTest, MapsIntChoiceAndLogWithinBounds) {
  const SearchSpace space{{Real("lr", ParamKind::kLogUniform, 1e-4, 1e-1),
                           Int("layers", 2, 20, 3),
                           Choice("opt", {"sgd", Json::parse(R"({"adam": [0.9, 0.999]})"),
                                          nullptr})}};
  auto sobol = Make(SamplerKind::kSobol, 1024, 3, space);
  ASSERT_NE(sobol, nullptr);
  std::map<std::int64_t, int> layer_counts;
  std::map<std::string, int> opt_counts;
  std::map<int, int> per_decade;
  for (int k = 0; k < 1023; ++k) {  // 1023 = 3 * 341: balanced choice counts
    const Json p = sobol->Suggest(k, kNoHistory).params;
    const double lr = p["lr"].get<double>();
    ASSERT_TRUE(lr >= 1e-4 && lr <= 1e-1) << lr;
    ++per_decade[static_cast<int>(std::floor(std::log10(lr)))];
    ASSERT_TRUE(p["layers"].is_number_integer());
    ++layer_counts[p["layers"].get<std::int64_t>()];
    ++opt_counts[p["opt"].dump()];
  }
  EXPECT_EQ(layer_counts.size(), 7u);
  for (const auto& [value, count] : layer_counts) {
    EXPECT_TRUE(value >= 2 && value <= 20 && (value - 2) % 3 == 0) << value;
    EXPECT_NEAR(count, 1023 / 7.0, 3) << value;  // low discrepancy: near-exact balance
  }
  EXPECT_EQ(opt_counts.size(), 3u);
  for (const auto& [value, count] : opt_counts) EXPECT_NEAR(count, 341, 2) << value;
  for (int decade : {-4, -3, -2}) EXPECT_NEAR(per_decade[decade], 341, 3) << decade;
}

TEST(SobolSamplerTest, ConstantsOnlySpaceGivesTheConstants) {
  auto sobol = Make(SamplerKind::kSobol, 3, 1, SearchSpace{{Constant("epochs", 10)}});
  ASSERT_NE(sobol, nullptr);
  EXPECT_EQ(sobol->total_trials(), 3);
  EXPECT_EQ(sobol->Suggest(2, kNoHistory).params, (Json{{"epochs", 10}}));
}

TEST(SobolSamplerTest, RejectsZeroTrials) {
  SamplerConfig config;
  config.kind = SamplerKind::kSobol;
  auto sampler = MakeSampler(config, Square(), Mode::kMin);
  ASSERT_FALSE(sampler.has_value());
  EXPECT_NE(sampler.error().message.find("sampler.trials"), std::string::npos);
}

}  // namespace
}  // namespace gpusweep
