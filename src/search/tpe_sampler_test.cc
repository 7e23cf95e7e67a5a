#include <algorithm>
#include <cmath>
#include <numbers>
#include <set>

#include <gtest/gtest.h>

#include "gpusweep/sampler.h"
#include "search/param_specs_for_tests.h"

namespace gpusweep {
namespace {

using namespace test_support;

SamplerConfig Tpe(int trials, std::uint64_t seed) {
  SamplerConfig c;
  c.kind = SamplerKind::kTpe;
  c.trials = trials;
  c.seed = seed;
  return c;
}

std::unique_ptr<Sampler> Make(const SamplerConfig& config, const SearchSpace& space,
                              Mode mode = Mode::kMin) {
  auto sampler = MakeSampler(config, space, mode);
  EXPECT_TRUE(sampler.has_value()) << (sampler ? "" : sampler.error().message);
  return sampler ? std::move(*sampler) : nullptr;
}

TrialRecord Completed(const Suggestion& s, double objective) {
  TrialRecord t;
  t.number = s.number;
  t.params = s.params;
  t.state = TrialState::kCompleted;
  t.objective = objective;
  return t;
}

double Branin(const Params& p) {
  const double x1 = p["x1"].get<double>(), x2 = p["x2"].get<double>();
  const double b = 5.1 / (4 * std::numbers::pi * std::numbers::pi), c = 5 / std::numbers::pi;
  const double t = 1 / (8 * std::numbers::pi);
  return std::pow(x2 - b * x1 * x1 + c * x1 - 6, 2) + 10 * (1 - t) * std::cos(x1) + 10;
}

const SearchSpace kBranin{{Real("x1", ParamKind::kUniform, -5, 10),
                           Real("x2", ParamKind::kUniform, 0, 15)}};

// Best Branin value after `evaluations` sequential trials.
double BestBranin(const SamplerConfig& config) {
  auto sampler = Make(config, kBranin);
  std::vector<TrialRecord> history;
  double best = INFINITY;
  for (int k = 0; k < config.trials; ++k) {
    const Suggestion s = sampler->Suggest(k, history);
    const double value = Branin(s.params);
    best = std::min(best, value);
    history.push_back(Completed(s, value));
  }
  return best;
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

TEST(TpeSamplerTest, BeatsRandomOnBraninOverTenSeeds) {
  for (bool multivariate : {false, true}) {
    std::vector<double> tpe, random;
    for (std::uint64_t seed = 1; seed <= 10; ++seed) {
      SamplerConfig config = Tpe(60, seed);
      config.tpe.multivariate = multivariate;
      tpe.push_back(BestBranin(config));
      config.kind = SamplerKind::kRandom;
      random.push_back(BestBranin(config));
    }
    // Optimum 0.3979. Median regret after 60 trials over these seeds when written:
    // random 0.37, TPE 0.17 (univariate) and 0.25 (multivariate). Fixed margin: TPE's
    // median regret must be below 75% of random's.
    const double optimum = 0.397887;
    EXPECT_LT(Median(tpe) - optimum, 0.75 * (Median(random) - optimum))
        << "multivariate " << multivariate << ": tpe " << Median(tpe) << " random "
        << Median(random);
  }
}

TEST(TpeSamplerTest, StartupTrialsAreTheRandomSamplersAndThenTpeTakesOver) {
  auto tpe = Make(Tpe(30, 4), kBranin);
  SamplerConfig random_config = Tpe(30, 4);
  random_config.kind = SamplerKind::kRandom;
  auto random = Make(random_config, kBranin);
  std::vector<TrialRecord> history;
  for (int k = 0; k < 12; ++k) {
    const Suggestion s = tpe->Suggest(k, history);
    if (k < 10) {
      EXPECT_EQ(s.params, random->Suggest(k, {}).params) << k;
    } else {
      EXPECT_NE(s.params, random->Suggest(k, {}).params) << k;
    }
    history.push_back(Completed(s, Branin(s.params)));
  }
}

TEST(TpeSamplerTest, SameSeedAndHistoryGiveTheSameParamsOtherSeedsDiffer) {
  auto a = Make(Tpe(40, 8), kBranin);
  std::vector<TrialRecord> history;
  for (int k = 0; k < 20; ++k) {
    const Suggestion s = a->Suggest(k, history);
    history.push_back(Completed(s, Branin(s.params)));
  }
  auto b = Make(Tpe(40, 8), kBranin);
  auto c = Make(Tpe(40, 9), kBranin);
  std::vector<TrialRecord> shuffled(history.rbegin(), history.rend());
  const Params first = a->Suggest(20, history).params;
  EXPECT_EQ(b->Suggest(20, shuffled).params, first) << "history order must not matter";
  EXPECT_EQ(a->Suggest(20, history).params, first);
  EXPECT_NE(c->Suggest(20, history).params, first);
  EXPECT_NE(a->Suggest(21, history).params, first) << "each trial number has its own stream";
}

TEST(TpeSamplerTest, MapsLogIntAndChoiceInDeclarationOrder) {
  const SearchSpace space{{Real("lr", ParamKind::kLogUniform, 1e-5, 1e-1),
                           Constant("epochs", 10), Int("layers", 2, 20, 3),
                           Choice("act", {"relu", Json::array({1, 2}), nullptr})}};
  for (bool multivariate : {false, true}) {
    SamplerConfig config = Tpe(80, 2);
    config.tpe.multivariate = multivariate;
    auto tpe = Make(config, space, Mode::kMax);
    std::vector<TrialRecord> history;
    std::set<std::int64_t> layer_values;
    for (int k = 0; k < 80; ++k) {
      const Suggestion s = tpe->Suggest(k, history);
      const Params& p = s.params;
      ASSERT_EQ(p.dump().substr(0, 6), R"({"lr":)");
      const double lr = p["lr"].get<double>();
      ASSERT_TRUE(lr >= 1e-5 && lr <= 1e-1) << lr;
      ASSERT_EQ(p["epochs"], 10);
      const std::int64_t l = p["layers"].get<std::int64_t>();
      ASSERT_TRUE(l >= 2 && l <= 20 && (l - 2) % 3 == 0) << l;
      layer_values.insert(l);
      ASSERT_TRUE(p["act"] == "relu" || p["act"] == Json::array({1, 2}) || p["act"].is_null());
      // Best: lr near 1e-3 (log scale), layers 14, act [1, 2].
      const double score = -std::pow(std::log10(lr) + 3, 2) - std::abs(l - 14) / 3.0 +
                           (p["act"].is_array() ? 2 : 0);
      history.push_back(Completed(s, score));
    }
    // The last 20 suggestions concentrate near the optimum in every dimension.
    int near = 0;
    for (int k = 60; k < 80; ++k) {
      const Params& p = history[k].params;
      near += std::abs(std::log10(p["lr"].get<double>()) + 3) < 1 && p["act"].is_array() &&
              std::abs(p["layers"].get<std::int64_t>() - 14) <= 3;
    }
    EXPECT_GE(near, 10) << "multivariate " << multivariate;
    EXPECT_GE(layer_values.size(), 5u);
  }
}

// Trials 21, 22, 23 run in parallel on a 4-value choice. The history makes a, b and c
// equally promising (each once among the 3 good trials and 5 times among the others)
// and d worse. Without constant liar every parallel trial sees the same history and
// picks the same value; with it each running trial counts as a bad result for its
// value, so the next suggestion moves to another promising one.
std::vector<Json> ParallelSuggestions(bool constant_liar) {
  const SearchSpace space{{Choice("c", {"a", "b", "c", "d"})}};
  SamplerConfig config = Tpe(30, 3);
  config.tpe.constant_liar = constant_liar;
  auto tpe = Make(config, space);
  std::vector<TrialRecord> history;
  const auto add = [&](const char* value, double objective) {
    const int k = static_cast<int>(history.size());
    history.push_back(Completed(Suggestion{k, 0, Json{{"c", value}}}, objective));
  };
  for (const char* good : {"a", "b", "c"}) add(good, 0.0);
  for (int round = 0; round < 5; ++round)
    for (const char* other : {"a", "b", "c"}) add(other, 10.0 + round);
  for (int round = 0; round < 3; ++round) add("d", 20.0);
  std::vector<Json> chosen;
  for (int k = 21; k < 24; ++k) {
    const Suggestion s = tpe->Suggest(k, history);
    chosen.push_back(s.params["c"]);
    TrialRecord running;
    running.number = k;
    running.params = s.params;
    running.state = TrialState::kRunning;
    history.push_back(running);
  }
  return chosen;
}

TEST(TpeSamplerTest, ConstantLiarSpreadsParallelTrials) {
  const std::vector<Json> liar = ParallelSuggestions(true);
  EXPECT_EQ(std::set<Json>(liar.begin(), liar.end()), (std::set<Json>{"a", "b", "c"}))
      << Json(liar).dump();
  const std::vector<Json> plain = ParallelSuggestions(false);
  EXPECT_LT(std::set<Json>(plain.begin(), plain.end()).size(), 3u) << Json(plain).dump();
}

TEST(TpeSamplerTest, RejectsBadOptions) {
  const auto message = [](const SamplerConfig& c) {
    auto sampler = MakeSampler(c, kBranin, Mode::kMin);
    return sampler ? std::string("<accepted>") : sampler.error().message;
  };
  SamplerConfig c = Tpe(10, 1);
  c.tpe.n_ei_candidates = 0;
  EXPECT_NE(message(c).find("sampler.n_ei_candidates"), std::string::npos);
  c = Tpe(10, 1);
  c.tpe.prior_weight = 0;
  EXPECT_NE(message(c).find("sampler.prior_weight"), std::string::npos);
  c = Tpe(10, 1);
  c.tpe.n_startup_trials = -1;
  EXPECT_NE(message(c).find("sampler.n_startup_trials"), std::string::npos);
  EXPECT_NE(message(Tpe(0, 1)).find("sampler.trials"), std::string::npos);
}

}  // namespace
}  // namespace gpusweep
