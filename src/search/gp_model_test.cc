// The gp sampler's GP model: the posterior at training points, the log marginal
// likelihood's and the prediction's gradients against finite differences, the fit.
#include "search/gp_model.h"

#include <cmath>
#include <vector>

#include <gtest/gtest.h>

#include "search/splitmix64.h"

namespace gpusweep::search {
namespace {

// n points over two continuous features and one categorical one (3 values).
GpData MixedData(int n, std::uint64_t seed) {
  SplitMix64 rng(seed);
  GpData data;
  data.categorical = {false, true, false};
  data.x.resize(n, 3);
  data.y.resize(n);
  for (int i = 0; i < n; ++i) {
    data.x(i, 0) = UnitFromBits(rng.Next());
    data.x(i, 1) = static_cast<double>(BelowFromBits(rng.Next(), 3));
    data.x(i, 2) = UnitFromBits(rng.Next());
    data.y[i] = std::sin(6 * data.x(i, 0)) + 0.5 * data.x(i, 1) - data.x(i, 2) * data.x(i, 2);
  }
  data.y.array() -= data.y.mean();
  return data;
}

Eigen::VectorXd Theta(std::vector<double> values) {
  return Eigen::Map<Eigen::VectorXd>(values.data(), static_cast<Eigen::Index>(values.size()));
}

TEST(GpModelTest, PosteriorReproducesTrainingPointsWhenNoiseIsSmall) {
  GpData data;
  data.categorical = {false};
  data.x.resize(5, 1);
  data.y.resize(5);
  const double xs[] = {0.05, 0.3, 0.5, 0.7, 0.95};
  for (int i = 0; i < 5; ++i) {
    data.x(i, 0) = xs[i];
    data.y[i] = std::cos(5 * xs[i]);
  }
  const GpData copy = data;
  const GpPosterior posterior(std::move(data), Theta({std::log(0.3), 0.0, std::log(1e-6)}));
  for (int i = 0; i < 5; ++i) {
    double mean = 0, var = 0;
    const double x = copy.x(i, 0);
    posterior.Predict(&x, mean, var, nullptr, nullptr);
    EXPECT_NEAR(mean, copy.y[i], 1e-4) << "at x = " << x;
    EXPECT_LT(var, 1e-4) << "at x = " << x;
  }
  // Far from the data the variance returns to the signal variance (1) and the mean to 0.
  double mean = 0, var = 0;
  const double at_point = 0.5;
  const GpPosterior wide(copy, Theta({std::log(0.01), 0.0, std::log(1e-6)}));
  const double between = 0.4;
  wide.Predict(&between, mean, var, nullptr, nullptr);
  EXPECT_NEAR(var, 1.0, 1e-3);
  EXPECT_NEAR(mean, 0.0, 1e-3);
  wide.Predict(&at_point, mean, var, nullptr, nullptr);
  EXPECT_NEAR(mean, copy.y[2], 1e-4);
}

TEST(GpModelTest, LogMarginalLikelihoodGradientMatchesFiniteDifferences) {
  const GpData data = MixedData(12, 7);
  for (const Eigen::VectorXd& theta :
       {Theta({std::log(0.3), std::log(1.5), std::log(0.7), std::log(0.8), std::log(1e-2)}),
        Theta({std::log(2.0), std::log(0.2), std::log(0.1), std::log(3.0), std::log(0.3)})}) {
    Eigen::VectorXd grad;
    const double value = GpLogMarginalLikelihood(data, theta, &grad);
    ASSERT_TRUE(std::isfinite(value));
    EXPECT_EQ(value, GpLogMarginalLikelihood(data, theta, nullptr));
    ASSERT_EQ(grad.size(), theta.size());
    for (Eigen::Index j = 0; j < theta.size(); ++j) {
      const double h = 1e-5;
      Eigen::VectorXd plus = theta, minus = theta;
      plus[j] += h;
      minus[j] -= h;
      const double numeric = (GpLogMarginalLikelihood(data, plus, nullptr) -
                              GpLogMarginalLikelihood(data, minus, nullptr)) /
                             (2 * h);
      EXPECT_NEAR(grad[j], numeric, 1e-5 * std::max(1.0, std::abs(numeric))) << "theta " << j;
    }
  }
}

TEST(GpModelTest, PriorGradientMatchesFiniteDifferences) {
  const Eigen::VectorXd theta = Theta({-1.0, 0.5, 2.0, 0.0, -5.0});
  Eigen::VectorXd grad = Eigen::VectorXd::Zero(5);
  GpLogLengthscalePrior(3, theta, &grad);
  for (int j = 0; j < 5; ++j) {
    Eigen::VectorXd plus = theta, minus = theta;
    plus[j] += 1e-6;
    minus[j] -= 1e-6;
    const double numeric = (GpLogLengthscalePrior(3, plus, nullptr) -
                            GpLogLengthscalePrior(3, minus, nullptr)) / 2e-6;
    EXPECT_NEAR(grad[j], numeric, 1e-6) << "theta " << j;
  }
  EXPECT_EQ(grad[3], 0.0);  // no prior on the signal or noise variance
  EXPECT_EQ(grad[4], 0.0);
}

TEST(GpModelTest, PredictionGradientsMatchFiniteDifferences) {
  GpData data = MixedData(15, 11);
  const GpPosterior posterior(
      data, Theta({std::log(0.4), std::log(1.0), std::log(0.6), std::log(1.2), std::log(1e-3)}));
  const double point[] = {0.37, 1.0, 0.81};
  double mean = 0, var = 0;
  double grad_mean[3], grad_var[3];
  posterior.Predict(point, mean, var, grad_mean, grad_var);
  EXPECT_EQ(grad_mean[1], 0.0);  // categorical: no gradient
  for (int d : {0, 2}) {
    const double h = 1e-6;
    double plus[3] = {point[0], point[1], point[2]}, minus[3] = {point[0], point[1], point[2]};
    plus[d] += h;
    minus[d] -= h;
    double mp = 0, vp = 0, mm = 0, vm = 0;
    posterior.Predict(plus, mp, vp, nullptr, nullptr);
    posterior.Predict(minus, mm, vm, nullptr, nullptr);
    EXPECT_NEAR(grad_mean[d], (mp - mm) / (2 * h), 1e-5) << "feature " << d;
    EXPECT_NEAR(grad_var[d], (vp - vm) / (2 * h), 1e-5) << "feature " << d;
  }
}

TEST(GpModelTest, FitImprovesTheObjectiveAndIsDeterministic) {
  const GpData data = MixedData(20, 3);
  const auto objective = [&](const Eigen::VectorXd& theta) {
    return GpLogMarginalLikelihood(data, theta, nullptr) +
           GpLogLengthscalePrior(3, theta, nullptr);
  };
  SplitMix64 rng_a(42), rng_b(42);
  const Eigen::VectorXd a = GpFitTheta(data, 2, rng_a);
  const Eigen::VectorXd b = GpFitTheta(data, 2, rng_b);
  EXPECT_EQ(a, b);
  const Eigen::VectorXd start =
      Theta({std::log(0.5), std::log(0.5), std::log(0.5), 0.0, std::log(1e-3)});
  EXPECT_GT(objective(a), objective(start) + 1.0);
  std::vector<double> lower, upper;
  GpThetaBounds(3, lower, upper);
  for (int j = 0; j < 5; ++j) {
    EXPECT_GE(a[j], lower[static_cast<std::size_t>(j)]);
    EXPECT_LE(a[j], upper[static_cast<std::size_t>(j)]);
  }
  // The data is smooth and noise-free: the fit finds little noise.
  EXPECT_LT(a[GpNoiseIndex(3)], std::log(1e-2));
}

}  // namespace
}  // namespace gpusweep::search
