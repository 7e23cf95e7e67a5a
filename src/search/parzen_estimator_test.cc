#include "search/parzen_estimator.h"

#include <cmath>
#include <map>

#include <gtest/gtest.h>

namespace gpusweep::search {
namespace {

constexpr double kTolerance = 1e-12;

ParzenEstimator Univariate(ModelDim dim, std::vector<double> observed,
                           KernelDensity density = KernelDensity::kNormalised) {
  ParzenOptions options;
  options.density = density;
  return ParzenEstimator({dim}, Columns{std::move(observed)}, options);
}

// Expected values computed independently with Python's math module:
//   Phi(z) = erfc(-z/sqrt(2))/2; kernel(x) = exp(-((x-m)/s)^2/2) / (s sqrt(2 pi) Z),
//   Z = Phi((1-m)/s) - Phi(-m/s); density = mean over kernels (weights all 1 below 25).
TEST(ParzenEstimatorTest, ContinuousDensityMatchesHandComputedMixture) {
  // Centres 0.2, 0.6 and the prior 0.5. Neighbour widths without endpoints: 0.2 -> 0.3
  // (its inner neighbour 0.5), 0.6 -> 0.1, clipped up to 1/min(100, 1+3) = 0.25; prior 1.
  const ParzenEstimator pe = Univariate({DimKind::kContinuous, 0}, {0.2, 0.6});
  EXPECT_EQ(pe.kernels(), 3);
  const std::vector<double> log_pdf = pe.LogPdf(Columns{{0.1, 0.55, 0.95}});
  ASSERT_EQ(log_pdf.size(), 3u);
  EXPECT_NEAR(log_pdf[0], -0.03952693045286015, kTolerance);
  EXPECT_NEAR(log_pdf[1], 0.18655314634389192, kTolerance);
  EXPECT_NEAR(log_pdf[2], -0.592246565210944, kTolerance);
}

TEST(ParzenEstimatorTest, Optuna31DensityLeavesOutSigmaLikeOptuna) {
  // Same estimator; values from Optuna 3.1's _ParzenEstimator.log_pdf
  // (FloatDistribution(0, 1)), whose truncated normal ignores the scale.
  const ParzenEstimator pe =
      Univariate({DimKind::kContinuous, 0}, {0.2, 0.6}, KernelDensity::kOptuna31);
  const std::vector<double> log_pdf = pe.LogPdf(Columns{{0.1, 0.55, 0.95}});
  EXPECT_NEAR(log_pdf[0], -0.6754342964220224, kTolerance);
  EXPECT_NEAR(log_pdf[1], -0.550790128112912, kTolerance);
  EXPECT_NEAR(log_pdf[2], -0.9809430606476315, kTolerance);

  ParzenOptions options;
  options.bandwidth = Bandwidth::kScott;
  const ParzenEstimator joint({{DimKind::kContinuous, 0}, {DimKind::kCategorical, 2}},
                              Columns{{0.2, 0.6, 0.9}, {0, 1, 1}}, options);
  const std::vector<double> joint_pdf = joint.LogPdf(Columns{{0.1, 0.7}, {1, 0}});
  EXPECT_NEAR(joint_pdf[0], -1.955917128436823, kTolerance);  // Optuna, multivariate=True
  EXPECT_NEAR(joint_pdf[1], -1.822612492081436, kTolerance);
}

TEST(ParzenEstimatorTest, ManyKernelsMatchOptunaThroughTheBlockedPath) {
  // 60 observations x_i = frac(0.618... * i), i = 1..60: 61 kernels, so several blocks
  // of 16 (the last one padded), skipped blocks, the vectorised sum and default_weights'
  // ramp over the 35 oldest. Values from Optuna 3.1's _ParzenEstimator.log_pdf
  // (FloatDistribution(0, 1), univariate defaults).
  std::vector<double> observed;
  for (int i = 1; i <= 60; ++i) observed.push_back(std::fmod(i * 0.6180339887498949, 1.0));
  const ParzenEstimator pe =
      Univariate({DimKind::kContinuous, 0}, observed, KernelDensity::kOptuna31);
  const std::vector<double> points{0.0, 0.05, 0.3, 0.5, 0.77, 0.99, 1.0};
  const std::vector<double> optuna{-3.4197250272392887, -3.1623403957165404,
                                   -3.1761427161797715, -3.1589431308490794,
                                   -3.1344073866628346, -3.148816801132092,
                                   -3.2749169331519568};
  const std::vector<double> log_pdf = pe.LogPdf(Columns{points});
  for (std::size_t i = 0; i < points.size(); ++i)
    EXPECT_NEAR(log_pdf[i], optuna[i], kTolerance) << "x = " << points[i];
}

TEST(ParzenEstimatorTest, DiscreteMassesMatchOptuna) {
  // Int 0..3 observed at 1 and 3; values from Optuna 3.1's _ParzenEstimator.log_pdf
  // (IntDistribution(0, 3)), which models the same grid cells.
  const ParzenEstimator pe = Univariate({DimKind::kDiscrete, 4}, {1, 3});
  const std::vector<double> log_pdf = pe.LogPdf(Columns{{0, 1, 2, 3}});
  EXPECT_NEAR(log_pdf[0], -1.6709972009140153, kTolerance);
  EXPECT_NEAR(log_pdf[1], -1.2617703812454697, kTolerance);
  EXPECT_NEAR(log_pdf[2], -1.251634274090795, kTolerance);
  EXPECT_NEAR(log_pdf[3], -1.4157177586042688, kTolerance);
  double total = 0;
  for (double lp : log_pdf) total += std::exp(lp);
  EXPECT_NEAR(total, 1.0, kTolerance) << "cell masses of a truncated mixture sum to 1";
}

TEST(ParzenEstimatorTest, CategoricalMatchesWeightedCountsWithPrior) {
  // Values a, b, c observed as a, a, c: each observation's kernel puts 1/(n+1) = 1/4 on
  // every value plus 1 on its own; the prior is uniform. Same numbers as Optuna 3.1.
  const ParzenEstimator pe = Univariate({DimKind::kCategorical, 3}, {0, 0, 2});
  const std::vector<double> log_pdf = pe.LogPdf(Columns{{0, 1, 2}});
  EXPECT_NEAR(log_pdf[0], -0.7419373447293773, kTolerance);
  EXPECT_NEAR(log_pdf[1], -1.6582280766035324, kTolerance);
  EXPECT_NEAR(log_pdf[2], -1.0986122886681098, kTolerance);
}

TEST(ParzenEstimatorTest, MultivariateUsesScottWidthsAndJointKernels) {
  // x observed at 0.2, 0.6, 0.9 with categories 0, 1, 1. Width 0.2 * 3^(-1/6) = 0.1665
  // clipped up to 1/min(100, 1+4) = 0.2; kernel i is the product over both dims.
  ParzenOptions options;
  options.bandwidth = Bandwidth::kScott;
  options.density = KernelDensity::kNormalised;
  const ParzenEstimator pe({{DimKind::kContinuous, 0}, {DimKind::kCategorical, 2}},
                           Columns{{0.2, 0.6, 0.9}, {0, 1, 1}}, options);
  const std::vector<double> log_pdf = pe.LogPdf(Columns{{0.1, 0.7}, {1, 0}});
  EXPECT_NEAR(log_pdf[0], -1.4858546748201642, kTolerance);
  EXPECT_NEAR(log_pdf[1], -1.2126255607256164, kTolerance);
}

TEST(ParzenEstimatorTest, WithoutObservationsOnlyThePriorRemains) {
  const ParzenEstimator pe = Univariate({DimKind::kContinuous, 0}, {});
  EXPECT_EQ(pe.kernels(), 1);
  // N(0.5, 1) truncated to [0, 1]: density at the centre 1 / (sqrt(2 pi) * 0.3829...).
  EXPECT_NEAR(pe.LogPdf(Columns{{0.5}})[0], -std::log(std::sqrt(2 * M_PI) * 0.38292492254802624),
              1e-12);
}

TEST(ParzenEstimatorTest, DefaultWeightsRampOldObservations) {
  EXPECT_EQ(DefaultWeights(0).size(), 0u);
  EXPECT_EQ(DefaultWeights(24), std::vector<double>(24, 1.0));
  const std::vector<double> w = DefaultWeights(30);  // numpy.linspace(1/30, 1, 5) then 25 ones
  ASSERT_EQ(w.size(), 30u);
  EXPECT_NEAR(w[0], 1.0 / 30, 1e-15);
  EXPECT_NEAR(w[1], 0.275, 1e-15);
  EXPECT_NEAR(w[4], 1.0, 1e-15);
  EXPECT_EQ(w[29], 1.0);
}

TEST(ParzenEstimatorTest, SamplesStayInTheDomainAndFollowTheDensity) {
  const ParzenEstimator pe = Univariate({DimKind::kDiscrete, 4}, {1, 3});
  SplitMix64 rng(5);
  const Columns drawn = pe.Sample(rng, 20000);
  std::map<int, int> counts;
  for (double x : drawn[0]) {
    ASSERT_EQ(x, std::floor(x));
    ASSERT_GE(x, 0);
    ASSERT_LE(x, 3);
    ++counts[static_cast<int>(x)];
  }
  const std::vector<double> log_pdf = pe.LogPdf(Columns{{0, 1, 2, 3}});
  for (int cell = 0; cell < 4; ++cell)
    EXPECT_NEAR(counts[cell] / 20000.0, std::exp(log_pdf[cell]), 0.015) << "cell " << cell;

  const ParzenEstimator cat = Univariate({DimKind::kCategorical, 3}, {0, 0, 2});
  const Columns values = cat.Sample(rng, 20000);
  std::map<int, int> seen;
  for (double x : values[0]) ++seen[static_cast<int>(x)];
  const std::vector<double> cat_pdf = cat.LogPdf(Columns{{0, 1, 2}});
  for (int k = 0; k < 3; ++k)
    EXPECT_NEAR(seen[k] / 20000.0, std::exp(cat_pdf[k]), 0.015) << "value " << k;
}

// Multi-objective TPE's predetermined weights replace default_weights: all ones are the
// default below 25 observations; with 40 observations (the blocked one-dim path) of which
// those above 0.5 weigh 1e-12, the density and the draws leave that half to the prior.
TEST(ParzenEstimatorTest, PredeterminedWeightsReplaceTheDefaultOnes) {
  ParzenOptions options;
  options.density = KernelDensity::kNormalised;  // true densities: narrow kernels show
  const ModelDim continuous{DimKind::kContinuous, 0};
  const Columns two{{0.2, 0.8}};
  const std::vector<double> ones{1, 1};
  EXPECT_EQ(ParzenEstimator({continuous}, two, options, ones).LogPdf(Columns{{0.3, 0.7}}),
            ParzenEstimator({continuous}, two, options).LogPdf(Columns{{0.3, 0.7}}));
  std::vector<double> observed, weights;
  for (int i = 0; i < 40; ++i) {
    observed.push_back((i + 0.5) / 40);
    weights.push_back(observed.back() < 0.5 ? 1.0 : 1e-12);
  }
  const ParzenEstimator weighted({continuous}, Columns{observed}, options, weights);
  const ParzenEstimator plain({continuous}, Columns{observed}, options);
  const std::vector<double> w = weighted.LogPdf(Columns{{0.25, 0.75}});
  const std::vector<double> p = plain.LogPdf(Columns{{0.25, 0.75}});
  EXPECT_NEAR(p[0], p[1], 0.5);  // default: the ramp favours the later (upper) half a little
  EXPECT_GT(w[0] - w[1], 2.0);  // weighted: the upper half holds only the prior
  SplitMix64 rng(7);
  int upper = 0;
  const Columns drawn = weighted.Sample(rng, 4000);
  for (double x : drawn[0]) upper += x > 0.6;
  EXPECT_LT(upper, 4000 / 20);  // the prior (1/21 of the weight) puts ~40% of its draws there
}

}  // namespace
}  // namespace gpusweep::search
