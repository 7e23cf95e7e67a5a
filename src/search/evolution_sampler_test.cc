#include "search/evolution_sampler.h"

#include <algorithm>
#include <cmath>

#include <gtest/gtest.h>

#include "search/param_specs_for_tests.h"

namespace gpusweep {
namespace {

using namespace test_support;

SamplerConfig Evolution(int trials, std::uint64_t seed, int population, int sample) {
  SamplerConfig c;
  c.kind = SamplerKind::kEvolution;
  c.trials = trials;
  c.seed = seed;
  c.evolution.population = population;
  c.evolution.sample = sample;
  return c;
}

SearchSpace Mixed() {
  SearchSpace space;
  space.params.push_back(Int("a", 0, 9));
  space.params.push_back(Int("b", 0, 9));
  space.params.push_back(Choice("op", {"conv", "pool", "skip"}));
  space.params.push_back(Real("lr", ParamKind::kLogUniform, 1e-4, 1e-1));
  space.params.push_back(Constant("fixed", 3));
  return space;
}

double Loss(const Params& p) {  // minimum 0 at a=7, b=2, op=pool, lr=1e-2
  return std::pow(p["a"].get<int>() - 7, 2) + std::pow(p["b"].get<int>() - 2, 2) +
         (p["op"] == "pool" ? 0 : 4) + std::pow(std::log10(p["lr"].get<double>()) + 2, 2);
}

TrialRecord Completed(const Suggestion& s, double objective) {
  TrialRecord t;
  t.number = s.number;
  t.params = s.params;
  t.state = TrialState::kCompleted;
  t.objective = objective;
  return t;
}

int Differences(const Params& a, const Params& b) {
  int n = 0;
  for (const auto& item : a.items()) n += item.value() != b[item.key()] ? 1 : 0;
  return n;
}

std::unique_ptr<Sampler> Make(const SamplerConfig& config) {
  auto made = MakeSampler(config, Mixed(), Mode::kMin);
  EXPECT_TRUE(made) << (made ? "" : made.error().message);
  return made ? std::move(*made) : nullptr;
}

TEST(EvolutionSampler, FirstPopulationIsTheRandomSamplers) {
  const auto evolution = Make(Evolution(50, 9, 10, 3));
  SamplerConfig random_config = Evolution(50, 9, 10, 3);
  random_config.kind = SamplerKind::kRandom;
  const auto random = Make(random_config);
  std::vector<TrialRecord> history;
  for (int k = 0; k < 10; ++k) {
    const Suggestion s = evolution->Suggest(k, history);
    EXPECT_EQ(s.params, random->Suggest(k, history).params) << k;
    history.push_back(Completed(s, Loss(s.params)));
  }
}

TEST(EvolutionSampler, ChildIsTheTournamentWinnerWithOneParameterChanged) {
  const auto sampler = Make(Evolution(200, 4, 6, 6));  // S = P: the parent is the best
  std::vector<TrialRecord> history;
  for (int k = 0; k < 60; ++k) {
    const Suggestion s = sampler->Suggest(k, history);
    if (k >= 6) {
      // The best of the newest 6 results.
      const auto newest = history.end() - 6;
      const auto parent = std::min_element(newest, history.end(), [](const auto& x, const auto& y) {
        return *x.objective < *y.objective;
      });
      EXPECT_EQ(Differences(s.params, parent->params), 1) << "trial " << k;
      EXPECT_EQ(s.params["fixed"], 3);
    }
    history.push_back(Completed(s, Loss(s.params)));
  }
}

TEST(EvolutionSampler, OldModelsAgeOutEvenWhenBest) {
  const auto sampler = Make(Evolution(20, 1, 3, 3));
  Params best = {{"a", 7}, {"b", 2}, {"op", "pool"}, {"lr", 0.01}, {"fixed", 3}};
  std::vector<TrialRecord> history;
  history.push_back(Completed({0, 0, best}, 0.0));
  for (int k = 1; k <= 3; ++k) {
    Params p = {{"a", k}, {"b", k}, {"op", "skip"}, {"lr", 0.001}, {"fixed", 3}};
    history.push_back(Completed({k, 0, p}, 10.0 + k));
  }
  // Population = trials 1..3; the parent is trial 1 (loss 11), never trial 0.
  const Suggestion child = sampler->Suggest(4, history);
  EXPECT_EQ(Differences(child.params, history[1].params), 1);
  EXPECT_GE(Differences(child.params, best), 3);
  // With trial 0 still in the population it wins.
  const Suggestion young = sampler->Suggest(3, {history.begin(), history.begin() + 3});
  EXPECT_EQ(Differences(young.params, best), 1);
}

TEST(EvolutionSampler, FailedTrialsAreNotInThePopulationAndWarmTrialsAre) {
  const auto sampler = Make(Evolution(20, 2, 2, 2));
  Params good = {{"a", 7}, {"b", 2}, {"op", "pool"}, {"lr", 0.01}, {"fixed", 3}};
  TrialRecord warm = Completed({-1, 0, good}, 0.5);
  warm.number = -1;
  TrialRecord failed = Completed({0, 0, {{"a", 0}, {"b", 0}, {"op", "skip"}, {"lr", 0.1}, {"fixed", 3}}}, 0.0);
  failed.state = TrialState::kFailed;
  // P = 2 with one warm result: trial 0 is the only random one, trial 1 evolves.
  const Suggestion s = sampler->Suggest(1, {warm, failed});
  EXPECT_EQ(Differences(s.params, good), 1);
}

TEST(EvolutionSampler, BeatsRandomSearchOnAStructuredSpace) {
  // 10 seeds, 120 trials: the median best loss of evolution is below random search's.
  std::vector<double> evolved, random;
  for (std::uint64_t seed = 0; seed < 10; ++seed) {
    for (bool evolve : {true, false}) {
      SamplerConfig config = Evolution(120, seed, 20, 5);
      if (!evolve) config.kind = SamplerKind::kRandom;
      const auto sampler = Make(config);
      std::vector<TrialRecord> history;
      double best = INFINITY;
      for (int k = 0; k < 120; ++k) {
        const Suggestion s = sampler->Suggest(k, history);
        best = std::min(best, Loss(s.params));
        history.push_back(Completed(s, Loss(s.params)));
      }
      (evolve ? evolved : random).push_back(best);
    }
  }
  std::sort(evolved.begin(), evolved.end());
  std::sort(random.begin(), random.end());
  EXPECT_LT(evolved[5], random[5]);
}

TEST(EvolutionSampler, ChecksItsOptions) {
  EXPECT_FALSE(MakeSampler(Evolution(10, 0, 0, 1), Mixed(), Mode::kMin));
  EXPECT_FALSE(MakeSampler(Evolution(10, 0, 4, 5), Mixed(), Mode::kMin));
  EXPECT_FALSE(MakeSampler(Evolution(0, 0, 4, 2), Mixed(), Mode::kMin));
}

}  // namespace
}  // namespace gpusweep
