// Enqueued settings through MakeSampler: first, completed by the sampler, for every kind.
#include <gtest/gtest.h>

#include "gpusweep/sampler.h"
#include "search/param_specs_for_tests.h"

namespace gpusweep {
namespace {

using test_support::Choice;
using test_support::Real;

SearchSpace Space() {
  return SearchSpace{{Real("x", ParamKind::kUniform, 0, 1), Choice("k", {1, 2, 3})}};
}

std::unique_ptr<Sampler> Make(SamplerConfig config, std::vector<Params> enqueue = {}) {
  config.enqueue = std::move(enqueue);
  auto sampler = MakeSampler(config, Space(), Mode::kMax);
  EXPECT_TRUE(sampler) << sampler.error().message;
  return sampler ? std::move(*sampler) : nullptr;
}

TEST(EnqueuedSamplerTest, SamplersWithATrialCountKeepTheirNumbering) {
  for (SamplerKind kind : {SamplerKind::kRandom, SamplerKind::kSobol, SamplerKind::kTpe}) {
    SamplerConfig config;
    config.kind = kind;
    config.trials = 6;
    config.seed = 9;
    auto plain = Make(config);
    auto enqueued = Make(config, {Json{{"k", 2}}, Json{{"x", 0.5}, {"k", 1}}});
    ASSERT_TRUE(plain && enqueued);
    EXPECT_EQ(enqueued->total_trials(), 6);  // enqueued trials count toward `trials`
    const Suggestion first = enqueued->Suggest(0, {});
    EXPECT_EQ(first.params["k"], 2);
    EXPECT_EQ(first.params["x"], plain->Suggest(0, {}).params["x"]);  // filled by the sampler
    EXPECT_EQ(first.params.begin().key(), "x");  // declaration order
    EXPECT_EQ(enqueued->Suggest(1, {}).params, (Json{{"x", 0.5}, {"k", 1}}));
    for (int number = 2; number < 6; ++number) {
      EXPECT_EQ(enqueued->Suggest(number, {}).params, plain->Suggest(number, {}).params);
      EXPECT_EQ(enqueued->Suggest(number, {}).number, number);
    }
  }
}

TEST(EnqueuedSamplerTest, GridRunsEveryPointAfterTheEnqueuedOnes) {
  SamplerConfig config;
  config.kind = SamplerKind::kGrid;
  config.repeats = 2;
  SearchSpace space{{Choice("k", {1, 2, 3})}};
  config.enqueue = {Json{{"k", 3}}};
  auto sampler = MakeSampler(config, space, Mode::kMin);
  ASSERT_TRUE(sampler) << sampler.error().message;
  ASSERT_EQ((*sampler)->total_trials(), 7);
  EXPECT_EQ((*sampler)->Suggest(0, {}).params["k"], 3);
  for (int number = 1; number < 7; ++number) {
    const Suggestion s = (*sampler)->Suggest(number, {});
    EXPECT_EQ(s.params["k"], (number - 1) % 3 + 1);
    EXPECT_EQ(s.repeat, (number - 1) / 3);
    EXPECT_EQ(s.number, number);
  }
}

TEST(EnqueuedSamplerTest, MakeSamplerGuardsWhatTheConfigLoaderChecks) {
  SamplerConfig config;
  config.kind = SamplerKind::kRandom;
  config.trials = 1;
  config.enqueue = {Json{{"k", 1}}, Json{{"k", 2}}};
  auto too_many = MakeSampler(config, Space(), Mode::kMax);
  ASSERT_FALSE(too_many);
  EXPECT_EQ(too_many.error().message, "enqueue: 2 settings are enqueued but sampler.trials is 1");
  config.trials = 2;
  config.enqueue = {Json{{"kk", 1}}};
  auto unknown = MakeSampler(config, Space(), Mode::kMax);
  ASSERT_FALSE(unknown);
  EXPECT_EQ(unknown.error().message, "enqueue[0].kk: not a search-space parameter");
}

}  // namespace
}  // namespace gpusweep
