// The gp sampler through MakeSampler: it minimises a 1-D quadratic in few evaluations,
// is a pure function of (config, seed, number, history), handles running trials as
// constant liars, mixed spaces, max mode and the model cap.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include <gtest/gtest.h>

#include "gpusweep/sampler.h"
#include "search/param_specs_for_tests.h"

namespace gpusweep {
namespace {

using namespace test_support;

SamplerConfig Gp(int trials, std::uint64_t seed, int startup = 10) {
  SamplerConfig c;
  c.kind = SamplerKind::kGp;
  c.trials = trials;
  c.seed = seed;
  c.gp.n_startup_trials = startup;
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

double Quadratic(const Params& p) {
  const double x = p["x"].get<double>();
  return (x - 0.3) * (x - 0.3);
}

// Runs `evals` trials of `f`, returning the history.
template <typename F>
std::vector<TrialRecord> Optimise(const Sampler& sampler, int evals, F f, double sign = 1) {
  std::vector<TrialRecord> history;
  for (int k = 0; k < evals; ++k) {
    const Suggestion s = sampler.Suggest(k, history);
    history.push_back(Completed(s, sign * f(s.params)));
  }
  return history;
}

TEST(GpSamplerTest, FindsTheMinimumOfA1DQuadraticInFewEvaluations) {
  const SearchSpace space{{Real("x", ParamKind::kUniform, -2.0, 3.0)}};
  for (std::uint64_t seed : {0u, 1u, 2u}) {
    auto sampler = Make(Gp(12, seed, 3), space);
    const std::vector<TrialRecord> history = Optimise(*sampler, 12, Quadratic);
    double best = std::numeric_limits<double>::infinity();
    for (const TrialRecord& t : history) best = std::min(best, *t.objective);
    // 3 Sobol points, then 9 GP suggestions: |x - 0.3| < 0.01 on a range of 5.
    EXPECT_LT(best, 1e-4) << "seed " << seed;
  }
}

TEST(GpSamplerTest, IsAPureFunctionOfSeedNumberAndEarlierHistory) {
  const SearchSpace space{{Real("x", ParamKind::kUniform, 0.0, 1.0),
                           Real("lr", ParamKind::kLogUniform, 1e-5, 1e-1),
                           Int("layers", 1, 8), Choice("opt", {"adam", "sgd", "rmsprop"})}};
  const auto f = [](const Params& p) {
    return Quadratic(p) + std::pow(std::log10(p["lr"].get<double>()) + 3, 2) +
           0.1 * p["layers"].get<int>() + (p["opt"] == "sgd" ? 0.0 : 0.5);
  };
  auto a = Make(Gp(20, 9, 5), space);
  auto b = Make(Gp(20, 9, 5), space);
  const std::vector<TrialRecord> history = Optimise(*a, 12, f);
  // Trial 8 again, from another instance, with later trials (and unordered history)
  // present: the same params.
  std::vector<TrialRecord> shuffled(history.rbegin(), history.rend());
  EXPECT_EQ(b->Suggest(8, shuffled).params, history[8].params);
  EXPECT_EQ(a->Suggest(12, history).params, b->Suggest(12, shuffled).params);
  // Another seed: another suggestion.
  auto c = Make(Gp(20, 10, 5), space);
  EXPECT_NE(c->Suggest(12, history).params, a->Suggest(12, history).params);
  // Every suggestion lies in the space.
  for (const TrialRecord& t : history) {
    EXPECT_GE(t.params["lr"].get<double>(), 1e-5);
    EXPECT_LE(t.params["lr"].get<double>(), 1e-1);
    EXPECT_GE(t.params["layers"].get<int>(), 1);
    EXPECT_LE(t.params["layers"].get<int>(), 8);
    EXPECT_TRUE(t.params["opt"] == "adam" || t.params["opt"] == "sgd" ||
                t.params["opt"] == "rmsprop");
  }
}

TEST(GpSamplerTest, LearnsTheBetterCategoryAndInteger) {
  const SearchSpace space{{Choice("opt", {"adam", "sgd", "rmsprop"}), Int("width", 1, 9, 2),
                           Real("x", ParamKind::kUniform, 0.0, 1.0)}};
  const auto f = [](const Params& p) {
    return (p["opt"] == "rmsprop" ? 0.0 : 1.0) + std::abs(p["width"].get<int>() - 5) * 0.3 +
           Quadratic(p);
  };
  auto sampler = Make(Gp(30, 4, 6), space);
  const std::vector<TrialRecord> history = Optimise(*sampler, 30, f);
  int last_rmsprop = 0, last_width5 = 0;
  for (std::size_t k = 20; k < history.size(); ++k) {
    last_rmsprop += history[k].params["opt"] == "rmsprop" ? 1 : 0;
    last_width5 += history[k].params["width"] == 5 ? 1 : 0;
  }
  EXPECT_GE(last_rmsprop, 7) << "of the last 10 suggestions";
  EXPECT_GE(last_width5, 7) << "of the last 10 suggestions";
}

TEST(GpSamplerTest, MaximisingTheNegativeGivesTheSameSuggestions) {
  const SearchSpace space{{Real("x", ParamKind::kUniform, -2.0, 3.0)}};
  auto minimise = Make(Gp(10, 3, 3), space, Mode::kMin);
  auto maximise = Make(Gp(10, 3, 3), space, Mode::kMax);
  const std::vector<TrialRecord> low = Optimise(*minimise, 8, Quadratic, 1);
  const std::vector<TrialRecord> high = Optimise(*maximise, 8, Quadratic, -1);
  for (std::size_t k = 0; k < low.size(); ++k) EXPECT_EQ(low[k].params, high[k].params) << k;
}

TEST(GpSamplerTest, RunningTrialsAreConstantLiarsThatPushTheNextSuggestionAway) {
  const SearchSpace space{{Real("x", ParamKind::kUniform, -2.0, 3.0)}};
  auto sampler = Make(Gp(20, 1, 3), space);
  std::vector<TrialRecord> history = Optimise(*sampler, 8, Quadratic);
  const Suggestion alone = sampler->Suggest(8, history);
  TrialRecord running;
  running.number = 8;
  running.params = alone.params;
  running.state = TrialState::kRunning;
  history.push_back(running);
  const Suggestion next = sampler->Suggest(9, history);
  const double gap = std::abs(next.params["x"].get<double>() - alone.params["x"].get<double>());
  EXPECT_GT(gap, 1e-3) << "the second worker would rerun the first's point";
  // Failed and pruned trials are not in the model: the suggestion is unchanged by them.
  std::vector<TrialRecord> with_failed(history.begin(), history.end() - 1);
  const Suggestion without = sampler->Suggest(9, with_failed);
  TrialRecord failed = running;
  failed.state = TrialState::kFailed;
  with_failed.push_back(failed);
  EXPECT_EQ(sampler->Suggest(9, with_failed).params, without.params);
  with_failed.back().state = TrialState::kPruned;
  with_failed.back().objective = 0.0;
  EXPECT_EQ(sampler->Suggest(9, with_failed).params, without.params);
}

TEST(GpSamplerTest, TheModelCapKeepsLongHistoriesUsable) {
  const SearchSpace space{{Real("x", ParamKind::kUniform, -2.0, 3.0),
                           Real("y", ParamKind::kUniform, -2.0, 3.0)}};
  SamplerConfig config = Gp(100, 2, 3);
  config.gp.max_model_trials = 16;
  auto sampler = Make(config, space);
  const auto f = [](const Params& p) {
    return Quadratic(p) + std::pow(p["y"].get<double>() - 1.0, 2);
  };
  const std::vector<TrialRecord> history = Optimise(*sampler, 40, f);
  double best = std::numeric_limits<double>::infinity();
  for (const TrialRecord& t : history) best = std::min(best, *t.objective);
  EXPECT_LT(best, 1e-2);
}

TEST(GpSamplerTest, RejectsBadOptions) {
  const SearchSpace space{{Real("x", ParamKind::kUniform, 0.0, 1.0)}};
  SamplerConfig config = Gp(10, 0, 0);
  auto refused = MakeSampler(config, space, Mode::kMin);
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message.find("sampler.n_startup_trials"), std::string::npos);
  config = Gp(10, 0, 3);
  config.gp.max_model_trials = 1;
  refused = MakeSampler(config, space, Mode::kMin);
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message.find("sampler.max_model_trials"), std::string::npos);
}

}  // namespace
}  // namespace gpusweep
