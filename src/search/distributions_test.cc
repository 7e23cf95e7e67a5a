// Normal and log-normal parameters, rounding to multiples of q and weighted choices
// under the samplers: draws checked against the distribution (Kolmogorov-Smirnov
// statistic and moments with tolerances for a fixed seed), rounded value sets exactly.
#include "search/distributions.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>

#include <boost/math/distributions/normal.hpp>
#include <gtest/gtest.h>

#include "gpusweep/sampler.h"
#include "search/param_specs_for_tests.h"

namespace gpusweep {
namespace {

using namespace test_support;

constexpr double kInf = std::numeric_limits<double>::infinity();

ParamSpec Normal(double mu, double sigma, double low = -kInf, double high = kInf) {
  ParamSpec p;
  p.name = "x";
  p.kind = ParamKind::kNormal;
  p.mu = mu;
  p.sigma = sigma;
  p.low = low;
  p.high = high;
  return p;
}

ParamSpec LogNormal(double mu, double sigma) {
  ParamSpec p = Normal(mu, sigma, 0, kInf);
  p.kind = ParamKind::kLogNormal;
  return p;
}

std::vector<Json> Draw(const ParamSpec& p, SamplerKind kind, int trials) {
  SamplerConfig config;
  config.kind = kind;
  config.trials = trials;
  config.seed = 7;
  auto sampler = MakeSampler(config, SearchSpace{{p}}, Mode::kMin);
  EXPECT_TRUE(sampler) << sampler.error().message;
  std::vector<Json> values;
  if (!sampler) return values;
  for (int k = 0; k < trials; ++k) values.push_back((*sampler)->Suggest(k, {}).params[p.name]);
  return values;
}

std::vector<double> Numbers(const std::vector<Json>& values) {
  std::vector<double> out;
  for (const Json& v : values) out.push_back(v.get<double>());
  return out;
}

// sup |F_n(x) - F(x)| of the sample against a CDF.
template <typename Cdf>
double KolmogorovSmirnov(std::vector<double> x, Cdf cdf) {
  std::sort(x.begin(), x.end());
  const double n = static_cast<double>(x.size());
  double d = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double f = cdf(x[i]);
    d = std::max({d, std::abs(f - i / n), std::abs((i + 1) / n - f)});
  }
  return d;
}

// The 0.1% critical value of the KS statistic for n draws (1.95 / sqrt(n)).
double KsCritical(std::size_t n) { return 1.95 / std::sqrt(static_cast<double>(n)); }

const boost::math::normal kStd(0, 1);

TEST(DistributionsTest, RandomNormalDrawsFollowTheNormal) {
  const auto x = Numbers(Draw(Normal(3, 2), SamplerKind::kRandom, 4000));
  EXPECT_LT(KolmogorovSmirnov(x, [](double v) { return boost::math::cdf(kStd, (v - 3) / 2); }),
            KsCritical(x.size()));
  double mean = 0;
  for (double v : x) mean += v / x.size();
  EXPECT_NEAR(mean, 3, 0.1);
}

TEST(DistributionsTest, SobolNormalPointsFollowTheNormalCloser) {
  const auto x = Numbers(Draw(Normal(0, 1), SamplerKind::kSobol, 1024));
  // A low-discrepancy set through the inverse CDF: far below the random critical value.
  EXPECT_LT(KolmogorovSmirnov(x, [](double v) { return boost::math::cdf(kStd, v); }), 0.01);
}

TEST(DistributionsTest, TruncatedNormalStaysInItsBoundsAndFollowsTheTruncatedCdf) {
  const ParamSpec p = Normal(0, 1, 0.5, 3);
  const auto x = Numbers(Draw(p, SamplerKind::kRandom, 4000));
  for (double v : x) {
    EXPECT_GE(v, 0.5);
    EXPECT_LE(v, 3);
  }
  const double a = boost::math::cdf(kStd, 0.5), b = boost::math::cdf(kStd, 3.0);
  EXPECT_LT(KolmogorovSmirnov(x, [&](double v) { return (boost::math::cdf(kStd, v) - a) / (b - a); }),
            KsCritical(x.size()));
}

TEST(DistributionsTest, FarTailTruncationIsStillExact) {
  const ParamSpec p = Normal(0, 1, 6, kInf);  // mass 1e-9: the upper-tail branch
  const auto x = Numbers(Draw(p, SamplerKind::kRandom, 2000));
  const double tail = boost::math::cdf(boost::math::complement(kStd, 6.0));
  EXPECT_LT(KolmogorovSmirnov(x, [&](double v) {
              return 1 - boost::math::cdf(boost::math::complement(kStd, v)) / tail;
            }),
            KsCritical(x.size()));
  EXPECT_GE(*std::min_element(x.begin(), x.end()), 6);
}

TEST(DistributionsTest, LogNormalIsExpOfANormal) {
  const auto x = Numbers(Draw(LogNormal(-2, 0.5), SamplerKind::kRandom, 4000));
  std::vector<double> logs;
  for (double v : x) {
    ASSERT_GT(v, 0);
    logs.push_back(std::log(v));
  }
  EXPECT_LT(KolmogorovSmirnov(logs, [](double v) { return boost::math::cdf(kStd, (v + 2) / 0.5); }),
            KsCritical(logs.size()));
}

TEST(DistributionsTest, RoundingToQGivesTheMultiplesOtherToolsGive) {
  // W&B's q_uniform(1, 10, q 3) = round(U(1, 10) / 3) * 3: {0, 3, 6, 9}, as integers.
  ParamSpec wandb = Real("x", ParamKind::kUniform, 1, 10);
  wandb.q = 3;
  std::set<Json> got;
  for (const Json& v : Draw(wandb, SamplerKind::kRandom, 2000)) {
    EXPECT_TRUE(v.is_number_integer()) << v;
    got.insert(v);
  }
  EXPECT_EQ(got, (std::set<Json>{0, 3, 6, 9}));
  // Hyperopt's quniform(0.5, 10.5, 1): the integers 1..10.
  ParamSpec hyperopt = Real("x", ParamKind::kUniform, 0.5, 10.5);
  hyperopt.q = 1;
  std::map<std::int64_t, int> counts;
  for (const Json& v : Draw(hyperopt, SamplerKind::kRandom, 5000)) ++counts[v.get<std::int64_t>()];
  ASSERT_EQ(counts.size(), 10u);
  EXPECT_EQ(counts.begin()->first, 1);
  EXPECT_EQ(counts.rbegin()->first, 10);
  for (const auto& [value, n] : counts) EXPECT_NEAR(n, 500, 80) << value;  // equal cells
  // NNI's clip: quniform [1, 10, 3] is clip(round(x / 3) * 3, 1, 10) = {1, 3, 6, 9}.
  ParamSpec nni = wandb;
  nni.q_clip = true;
  got.clear();
  for (const Json& v : Draw(nni, SamplerKind::kRandom, 2000)) got.insert(v);
  EXPECT_EQ(got, (std::set<Json>{1, 3, 6, 9}));
}

TEST(DistributionsTest, FractionalQGivesShortDecimals) {
  ParamSpec p = Real("x", ParamKind::kUniform, 0, 1);
  p.q = 0.1;
  std::set<double> got;
  for (const Json& v : Draw(p, SamplerKind::kRandom, 2000)) {
    EXPECT_TRUE(v.is_number_float());
    got.insert(v.get<double>());
  }
  EXPECT_EQ(got, (std::set<double>{0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0}));
}

TEST(DistributionsTest, QuantisedNormalRoundsItsDraws) {
  ParamSpec p = Normal(0, 3);
  p.q = 2;
  for (const Json& v : Draw(p, SamplerKind::kRandom, 500)) {
    ASSERT_TRUE(v.is_number_integer()) << v;
    EXPECT_EQ(v.get<std::int64_t>() % 2, 0);
  }
}

TEST(DistributionsTest, WeightedChoiceDrawsByItsWeights) {
  ParamSpec p = Choice("x", {"a", "b", "c"});
  p.weights = {0.7, 0.2, 0.1};
  for (SamplerKind kind : {SamplerKind::kRandom, SamplerKind::kSobol}) {
    std::map<std::string, int> counts;
    for (const Json& v : Draw(p, kind, 4000)) ++counts[v.get<std::string>()];
    EXPECT_NEAR(counts["a"], 2800, 100);
    EXPECT_NEAR(counts["b"], 800, 80);
    EXPECT_NEAR(counts["c"], 400, 60);
  }
}

TEST(DistributionsTest, ModelSamplersRefuseWeightsAndGridRefusesShapes) {
  ParamSpec weighted = Choice("x", {"a", "b"});
  weighted.weights = {0.5, 0.5};
  for (SamplerKind kind : {SamplerKind::kTpe, SamplerKind::kGp}) {
    SamplerConfig config;
    config.kind = kind;
    config.trials = 4;
    auto sampler = MakeSampler(config, SearchSpace{{weighted}}, Mode::kMin);
    ASSERT_FALSE(sampler);
    EXPECT_NE(sampler.error().message.find("weights"), std::string::npos);
  }
  SamplerConfig grid;
  grid.kind = SamplerKind::kGrid;
  EXPECT_FALSE(MakeSampler(grid, SearchSpace{{Normal(0, 1)}}, Mode::kMin));
  EXPECT_FALSE(MakeSampler(grid, SearchSpace{{weighted}}, Mode::kMin));
}

TEST(DistributionsTest, TheCdfCoordinateRoundTrips) {
  for (const ParamSpec& p : {Normal(1, 2), Normal(0, 1, -1, 2), LogNormal(0, 1)}) {
    for (double u : {0.01, 0.3, 0.5, 0.9, 0.999}) {
      const double x = search::NormalFromUnit(p, u);
      const auto back = search::NormalToUnit(p, x);
      ASSERT_TRUE(back);
      EXPECT_NEAR(*back, u, 1e-9);
    }
  }
  EXPECT_FALSE(search::NormalToUnit(LogNormal(0, 1), -1));
}

// TPE, CMA-ES and GP draw their first trials through the same coordinate; their model
// phase keeps values inside the distribution's support and rounded to q.
TEST(DistributionsTest, ModelSamplersKeepSupportAndRounding) {
  ParamSpec p = Normal(0, 1, -2, 2);
  p.q = 0.5;
  for (SamplerKind kind : {SamplerKind::kTpe, SamplerKind::kCmaes, SamplerKind::kGp}) {
    SamplerConfig config;
    config.kind = kind;
    config.trials = 30;
    config.seed = 3;
    config.tpe.n_startup_trials = 5;
    config.gp.n_startup_trials = 5;
    auto sampler = MakeSampler(config, SearchSpace{{p}}, Mode::kMin);
    ASSERT_TRUE(sampler) << sampler.error().message;
    std::vector<TrialRecord> history;
    for (int k = 0; k < 30; ++k) {
      const Suggestion s = (*sampler)->Suggest(k, history);
      const double x = s.params["x"].get<double>();
      EXPECT_GE(x, -2);
      EXPECT_LE(x, 2);
      EXPECT_DOUBLE_EQ(std::nearbyint(x / 0.5) * 0.5, x);
      TrialRecord t;
      t.number = k;
      t.params = s.params;
      t.state = TrialState::kCompleted;
      t.objective = (x - 1) * (x - 1);
      history.push_back(t);
    }
  }
}

}  // namespace
}  // namespace gpusweep
