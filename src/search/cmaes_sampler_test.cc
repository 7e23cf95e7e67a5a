#include "search/cmaes_sampler.h"

#include <algorithm>
#include <cmath>

#include <gtest/gtest.h>

#include "search/param_specs_for_tests.h"

namespace gpusweep {
namespace {

using namespace test_support;

SamplerConfig Cmaes(int trials, std::uint64_t seed) {
  SamplerConfig c;
  c.kind = SamplerKind::kCmaes;
  c.trials = trials;
  c.seed = seed;
  return c;
}

SearchSpace Box(int n) {
  SearchSpace space;
  for (int i = 0; i < n; ++i)
    space.params.push_back(Real("x" + std::to_string(i), ParamKind::kUniform, -5, 5));
  return space;
}

double Sphere(const Params& p) {  // minimum 0 at x_i = 1.5
  double sum = 0;
  for (const auto& item : p.items()) sum += std::pow(item.value().get<double>() - 1.5, 2);
  return sum;
}

TrialRecord Completed(const Suggestion& s, double objective) {
  TrialRecord t;
  t.number = s.number;
  t.params = s.params;
  t.state = TrialState::kCompleted;
  t.objective = objective;
  return t;
}

// Sequential optimisation: every trial's result is recorded before the next is asked.
std::vector<TrialRecord> Optimise(const Sampler& sampler, double (*f)(const Params&), int evals) {
  std::vector<TrialRecord> history;
  for (int k = 0; k < evals; ++k) {
    const Suggestion s = sampler.Suggest(k, history);
    history.push_back(Completed(s, f(s.params)));
  }
  return history;
}

double Best(const std::vector<TrialRecord>& history) {
  double best = INFINITY;
  for (const TrialRecord& t : history) best = std::min(best, *t.objective);
  return best;
}

search::CmaesSampler Direct(const SearchSpace& space, int trials, std::uint64_t seed,
                            CmaesConfig config = {}) {
  return search::CmaesSampler(space, trials, seed, config, Mode::kMin);
}

TEST(CmaesSampler, FindsTheSphereMinimumIn300Evaluations) {
  auto sampler = MakeSampler(Cmaes(300, 1), Box(4), Mode::kMin);
  ASSERT_TRUE(sampler) << sampler.error().message;
  const std::vector<TrialRecord> history = Optimise(**sampler, Sphere, 300);
  // Random search's best of 300 in 4-D over [-5, 5]^4 is ~1 away; CMA-ES converges.
  EXPECT_LT(Best(history), 1e-4);
  EXPECT_GT(Best({history.begin(), history.begin() + 8}), 1e-2);  // not luck at the start
}

TEST(CmaesSampler, MaximisesWhenTheModeIsMax) {
  auto sampler = MakeSampler(Cmaes(300, 1), Box(2), Mode::kMax);
  ASSERT_TRUE(sampler);
  std::vector<TrialRecord> history;
  for (int k = 0; k < 300; ++k) {
    const Suggestion s = (*sampler)->Suggest(k, history);
    history.push_back(Completed(s, -Sphere(s.params)));
  }
  double best = -INFINITY;
  for (const TrialRecord& t : history) best = std::max(best, *t.objective);
  EXPECT_GT(best, -1e-4);
}

TEST(CmaesSampler, IsAFunctionOfSeedNumberAndHistory) {
  const SearchSpace space = Box(3);
  const auto a = Direct(space, 100, 7), b = Direct(space, 100, 7), c = Direct(space, 100, 8);
  const std::vector<TrialRecord> history = Optimise(a, Sphere, 40);
  for (int k : {0, 5, 40}) {
    const std::vector<TrialRecord> before(history.begin(), history.begin() + std::min(k, 40));
    EXPECT_EQ(a.Suggest(k, before).params, b.Suggest(k, before).params) << k;
    EXPECT_NE(a.Suggest(k, before).params, c.Suggest(k, before).params) << k;
  }
  // Later trials in the history do not change an earlier trial's suggestion.
  EXPECT_EQ(a.Suggest(20, history).params,
            a.Suggest(20, {history.begin(), history.begin() + 20}).params);
  // Reordered history, same result.
  std::vector<TrialRecord> reversed(history.rbegin(), history.rend());
  EXPECT_EQ(a.Suggest(40, history).params, a.Suggest(40, reversed).params);
}

TEST(CmaesSampler, AGenerationsMembersDoNotWaitForEachOther) {
  const SearchSpace space = Box(5);  // lambda = 4 + floor(3 ln 5) = 8
  const auto sampler = Direct(space, 100, 3);
  std::vector<TrialRecord> history;
  for (int k = 0; k < 8; ++k) {
    const Suggestion s = sampler.Suggest(k, history);
    EXPECT_EQ(s.params, sampler.Suggest(k, {}).params) << "member " << k;
    history.push_back(Completed(s, Sphere(s.params)));
  }
  EXPECT_EQ(sampler.Replay(8, history).state.generation(), 1);
  EXPECT_FALSE(sampler.Replay(8, history).open);
  // One member still running: generation 0 is not told, trial 8 comes from its
  // distribution and the replay says so.
  history[3].state = TrialState::kRunning;
  history[3].objective.reset();
  const search::CmaesReplay open = sampler.Replay(8, history);
  EXPECT_TRUE(open.open);
  EXPECT_EQ(open.state.generation(), 0);
  EXPECT_EQ(open.first, 0);
  // A failed member is left out, and the generation is told without it.
  history[3].state = TrialState::kFailed;
  EXPECT_EQ(sampler.Replay(8, history).state.generation(), 1);
}

TEST(CmaesSampler, FlatObjectiveRestartsWithTwiceThePopulation) {
  const SearchSpace space = Box(2);  // lambda0 = 4 + floor(3 ln 2) = 6
  const auto ipop = Direct(space, 2000, 5);
  std::vector<TrialRecord> history;
  for (int k = 0; k < 600; ++k) history.push_back(Completed(ipop.Suggest(k, history), 1.0));
  const search::CmaesReplay replay = ipop.Replay(600, history);
  ASSERT_GE(replay.restarts, 1);
  EXPECT_EQ(replay.stops.front(), search::CmaesStop::kTolFun);
  EXPECT_EQ(replay.state.lambda(), 6 << replay.restarts);
  CmaesConfig none;
  none.ipop = false;
  const auto plain = Direct(space, 2000, 5, none);
  EXPECT_EQ(plain.Replay(600, history).restarts, 0);
  EXPECT_EQ(plain.Replay(600, history).state.lambda(), 6);
}

TEST(CmaesSampler, IntegersAreRoundedIntoTheirRangeAndLogScalesKept) {
  SearchSpace space;
  space.params.push_back(Int("layers", 1, 8));
  space.params.push_back(Int("stepped", 0, 100, 10));
  ParamSpec units = Int("units", 16, 1024);
  units.int_log = true;
  space.params.push_back(units);
  space.params.push_back(Real("lr", ParamKind::kLogUniform, 1e-5, 1e-1));
  space.params.push_back(Constant("tag", "a"));
  const auto sampler = Direct(space, 200, 11);
  std::vector<TrialRecord> history;
  for (int k = 0; k < 120; ++k) {
    const Suggestion s = sampler.Suggest(k, history);
    ASSERT_TRUE(s.params["layers"].is_number_integer());
    const auto layers = s.params["layers"].get<int>();
    const auto stepped = s.params["stepped"].get<int>();
    const auto u = s.params["units"].get<int>();
    const double lr = s.params["lr"].get<double>();
    EXPECT_TRUE(layers >= 1 && layers <= 8);
    EXPECT_TRUE(stepped >= 0 && stepped <= 100 && stepped % 10 == 0) << stepped;
    EXPECT_TRUE(u >= 16 && u <= 1024);
    EXPECT_TRUE(lr >= 1e-5 && lr <= 1e-1);
    EXPECT_EQ(s.params["tag"], "a");
    // Minimum at layers 3, units 128, lr 1e-3.
    const double value = std::pow(layers - 3, 2) + std::pow(std::log2(u / 128.0), 2) +
                         std::pow(std::log10(lr) + 3, 2) + stepped / 100.0;
    history.push_back(Completed(s, value));
  }
  EXPECT_LT(Best(history), 0.3);
}

TEST(CmaesSampler, WarmStartBeginsAtTheEarlierBest) {
  const SearchSpace space = Box(2);
  std::vector<TrialRecord> warm;
  // 30 earlier trials on a line; the best 10% (3) sit near (4, -4).
  for (int i = 0; i < 30; ++i) {
    TrialRecord t;
    t.number = -30 + i;
    t.state = TrialState::kCompleted;
    const double x = -4 + 8.0 * i / 29;
    t.params = {{"x0", x}, {"x1", -x}};
    t.objective = -x;  // minimised: largest x best
    warm.push_back(t);
  }
  const auto sampler = Direct(space, 100, 2);
  const search::CmaesReplay replay = sampler.Replay(0, warm);
  // Coordinates of (x, -x) in [0, 1]: x -> (x + 5) / 10.
  EXPECT_NEAR(replay.state.mean()[0], (4 - 8.0 / 29 + 5) / 10, 1e-9);
  EXPECT_NEAR(replay.state.mean()[1], (-4 + 8.0 / 29 + 5) / 10, 1e-9);
  EXPECT_LT(replay.state.sigma(), 1.0 / 6);
  const Suggestion first = sampler.Suggest(0, warm);
  EXPECT_GT(first.params["x0"].get<double>(), 1.5);
  EXPECT_LT(first.params["x1"].get<double>(), -1.5);
}

TEST(CmaesSampler, RefusesChoicesAndSpacesWithoutACoordinate) {
  SearchSpace space = Box(1);
  space.params.push_back(Choice("opt", {"adam", "sgd"}));
  auto made = MakeSampler(Cmaes(10, 0), space, Mode::kMin);
  ASSERT_FALSE(made);
  EXPECT_NE(made.error().message.find("'opt'"), std::string::npos);
  EXPECT_NE(made.error().message.find("tpe or evolution"), std::string::npos);
  space.params.back() = Choice("opt", {"adam"});  // one value: fixed, fine
  EXPECT_TRUE(MakeSampler(Cmaes(10, 0), space, Mode::kMin));
  SearchSpace fixed;
  fixed.params.push_back(Constant("c", 1));
  EXPECT_FALSE(MakeSampler(Cmaes(10, 0), fixed, Mode::kMin));
  SamplerConfig bad = Cmaes(10, 0);
  bad.cmaes.population_size = 1;
  EXPECT_FALSE(MakeSampler(bad, Box(2), Mode::kMin));
  bad = Cmaes(10, 0);
  bad.cmaes.sigma0 = 0;
  EXPECT_FALSE(MakeSampler(bad, Box(2), Mode::kMin));
}

TEST(CmaesSampler, EnqueuedSettingsJoinTheFirstGeneration) {
  SamplerConfig config = Cmaes(50, 4);
  config.enqueue.push_back({{"x0", 1.5}, {"x1", 1.5}});
  auto sampler = MakeSampler(config, Box(2), Mode::kMin);
  ASSERT_TRUE(sampler);
  std::vector<TrialRecord> history;
  for (int k = 0; k < 6; ++k) {
    const Suggestion s = (*sampler)->Suggest(k, history);
    if (k == 0) {
      EXPECT_EQ(s.params["x0"], 1.5);
    }
    history.push_back(Completed(s, Sphere(s.params)));
  }
  // The enqueued optimum is the generation's best: the mean moves toward it.
  const auto direct = Direct(Box(2), 50, 4);
  const Eigen::VectorXd mean = direct.Replay(6, history).state.mean();
  EXPECT_GT(mean[0], 0.5);
  EXPECT_GT(mean[1], 0.5);
}

}  // namespace
}  // namespace gpusweep
