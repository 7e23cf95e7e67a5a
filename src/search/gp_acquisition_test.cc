// Log expected improvement (against the direct formula, across its branches, its
// derivatives) and its maximiser.
#include "search/gp_acquisition.h"

#include <cmath>
#include <numbers>
#include <vector>

#include <gtest/gtest.h>

namespace gpusweep::search {
namespace {

double DirectEi(double mean, double var, double best) {
  const double sd = std::sqrt(var);
  const double z = (best - mean) / sd;
  const double pdf = std::exp(-0.5 * z * z) / std::sqrt(2 * std::numbers::pi);
  const double cdf = 0.5 * std::erfc(-z / std::numbers::sqrt2);
  return sd * (pdf + z * cdf);
}

TEST(GpAcquisitionTest, LogEiMatchesTheDirectFormulaWhereThatIsAccurate) {
  for (double z : {3.0, 1.0, 0.0, -0.5, -0.99, -1.01, -2.0, -5.0, -10.0}) {
    const double var = 0.25, best = 0;
    const double mean = best - z * std::sqrt(var);
    EXPECT_NEAR(GpLogExpectedImprovement(mean, var, best, nullptr, nullptr),
                std::log(DirectEi(mean, var, best)), 1e-9 * std::max(1.0, z * z))
        << "z = " << z;
  }
}

TEST(GpAcquisitionTest, LogEiIsFiniteAndMonotoneWhereEiUnderflows) {
  double previous = GpLogExpectedImprovement(0, 1, 0, nullptr, nullptr);
  for (double z : {-20.0, -29.99, -30.01, -40.0, -100.0, -1e4}) {
    const double value = GpLogExpectedImprovement(-z, 1, 0, nullptr, nullptr);
    ASSERT_TRUE(std::isfinite(value)) << "z = " << z;
    EXPECT_LT(value, previous) << "z = " << z;
    previous = value;
  }
  // The two branches meet at z = -30: log h(z) ~ -z^2/2 - log(2 pi)/2 - 2 log|z| there.
  const double below = GpLogExpectedImprovement(30.0 + 1e-9, 1, 0, nullptr, nullptr);
  const double above = GpLogExpectedImprovement(30.0 - 1e-9, 1, 0, nullptr, nullptr);
  EXPECT_NEAR(below, above, 1e-6);
  EXPECT_EQ(DirectEi(40, 1, 0), 0.0);  // what the logarithm avoids
}

TEST(GpAcquisitionTest, LogEiDerivativesMatchFiniteDifferences) {
  for (double mean : {-1.0, 0.3, 2.0, 12.0, 50.0}) {
    for (double var : {0.04, 1.0}) {
      double d_mean = 0, d_var = 0;
      GpLogExpectedImprovement(mean, var, 0.1, &d_mean, &d_var);
      const double h = 1e-6;
      const auto f = [](double m, double v) {
        return GpLogExpectedImprovement(m, v, 0.1, nullptr, nullptr);
      };
      const double numeric_mean = (f(mean + h, var) - f(mean - h, var)) / (2 * h);
      const double numeric_var = (f(mean, var + h * var) - f(mean, var - h * var)) / (2 * h * var);
      EXPECT_NEAR(d_mean, numeric_mean, 1e-4 * std::max(1.0, std::abs(numeric_mean)))
          << mean << " " << var;
      EXPECT_NEAR(d_var, numeric_var, 1e-4 * std::max(1.0, std::abs(numeric_var)))
          << mean << " " << var;
    }
  }
}

TEST(GpAcquisitionTest, MaximiserPrefersTheUnexploredSideAndTheBetterCategory) {
  // Losses fall towards x = 1 in category 1; category 0 is worse everywhere.
  GpData data;
  data.categorical = {false, true};
  const int n = 8;
  data.x.resize(n, 2);
  data.y.resize(n);
  for (int i = 0; i < n; ++i) {
    data.x(i, 0) = 0.1 * (i % 4);
    data.x(i, 1) = i < 4 ? 0 : 1;
    data.y[i] = -data.x(i, 0) + (i < 4 ? 1.0 : 0.0);
  }
  const double best = data.y.minCoeff();
  Eigen::VectorXd theta(4);
  theta << std::log(0.3), std::log(2.0), 0.0, std::log(1e-4);
  const GpPosterior posterior(data, theta);
  SplitMix64 rng(5);
  const std::vector<double> x = GpMaximizeLogEi(posterior, best, {0, 2}, {{0.3, 1.0}},
                                                GpAcquisitionOptions{}, rng);
  ASSERT_EQ(x.size(), 2u);
  EXPECT_GT(x[0], 0.35);  // beyond the best point, where the trend continues
  EXPECT_LE(x[0], 1.0);
  EXPECT_EQ(x[1], 1.0);
  SplitMix64 again(5);
  EXPECT_EQ(GpMaximizeLogEi(posterior, best, {0, 2}, {{0.3, 1.0}}, GpAcquisitionOptions{},
                            again),
            x);
}

TEST(GpAcquisitionTest, LogProbabilityBelowMatchesLogPhiAndStaysFiniteInTheTail) {
  for (double z : {4.0, 1.0, 0.0, -0.99, -1.01, -5.0, -20.0}) {
    const double var = 4, threshold = 1;
    const double mean = threshold - z * std::sqrt(var);
    EXPECT_NEAR(GpLogProbabilityBelow(mean, var, threshold, nullptr, nullptr),
                std::log(0.5 * std::erfc(-z / std::numbers::sqrt2)), 1e-9 * std::max(1.0, z * z))
        << "z = " << z;
  }
  double previous = 0;
  for (double z : {-29.99, -30.01, -50.0, -1e3}) {  // Phi(z) is 0 in double precision
    const double value = GpLogProbabilityBelow(-z, 1, 0, nullptr, nullptr);
    ASSERT_TRUE(std::isfinite(value)) << "z = " << z;
    EXPECT_LT(value, previous) << "z = " << z;
    previous = value;
  }
  EXPECT_NEAR(GpLogProbabilityBelow(30.0 + 1e-9, 1, 0, nullptr, nullptr),
              GpLogProbabilityBelow(30.0 - 1e-9, 1, 0, nullptr, nullptr), 1e-6);
  for (double mean : {-3.0, 0.2, 4.0, 40.0}) {
    for (double var : {0.09, 2.0}) {
      double d_mean = 0, d_var = 0;
      GpLogProbabilityBelow(mean, var, 0.5, &d_mean, &d_var);
      const double h = 1e-6;
      const auto f = [](double m, double v) { return GpLogProbabilityBelow(m, v, 0.5, nullptr, nullptr); };
      const double numeric_mean = (f(mean + h, var) - f(mean - h, var)) / (2 * h);
      const double numeric_var = (f(mean, var + h * var) - f(mean, var - h * var)) / (2 * h * var);
      EXPECT_NEAR(d_mean, numeric_mean, 1e-4 * std::max(1.0, std::abs(numeric_mean))) << mean << " " << var;
      EXPECT_NEAR(d_var, numeric_var, 1e-4 * std::max(1.0, std::abs(numeric_var))) << mean << " " << var;
    }
  }
}

// Eight points on a line in 2-D; the objective falls with x0, the constraint's value
// rises with x0 (feasible below 0 in its units), so the two terms pull apart.
GpData LineData(double slope) {
  GpData data;
  data.categorical = {false, false};
  data.x.resize(8, 2);
  data.y.resize(8);
  for (int i = 0; i < 8; ++i) {
    data.x(i, 0) = 0.12 * i;
    data.x(i, 1) = 0.5 + 0.05 * (i % 3);
    data.y[i] = slope * (data.x(i, 0) - 0.4);
  }
  return data;
}

TEST(GpAcquisitionTest, ConstrainedValueIsTheSumOfItsTermsAndItsGradientIsExact) {
  Eigen::VectorXd theta(4);
  theta << std::log(0.4), std::log(0.8), 0.0, std::log(1e-4);
  const GpPosterior objective(LineData(-2), theta);
  const GpPosterior constraint(LineData(3), theta);
  const GpAcquisition both{&objective, -1.0, {{&constraint, -0.2}}};
  const GpAcquisition feasibility_only{&objective, std::nullopt, {{&constraint, -0.2}}};
  for (const std::vector<double>& point :
       {std::vector<double>{0.3, 0.4}, std::vector<double>{0.7, 0.55}, std::vector<double>{0.95, 0.1}}) {
    double m = 0, v = 0, cm = 0, cv = 0;
    objective.Predict(point.data(), m, v, nullptr, nullptr);
    constraint.Predict(point.data(), cm, cv, nullptr, nullptr);
    const double pof = GpLogProbabilityBelow(cm, cv, -0.2, nullptr, nullptr);
    EXPECT_NEAR(both.Value(point.data(), nullptr),
                GpLogExpectedImprovement(m, v, -1.0, nullptr, nullptr) + pof, 1e-12);
    EXPECT_NEAR(feasibility_only.Value(point.data(), nullptr), pof, 1e-12);
    std::vector<double> grad(2);
    both.Value(point.data(), grad.data());
    for (int d = 0; d < 2; ++d) {
      std::vector<double> up = point, down = point;
      up[static_cast<std::size_t>(d)] += 1e-6;
      down[static_cast<std::size_t>(d)] -= 1e-6;
      const double numeric = (both.Value(up.data(), nullptr) - both.Value(down.data(), nullptr)) / 2e-6;
      EXPECT_NEAR(grad[static_cast<std::size_t>(d)], numeric, 1e-4 * std::max(1.0, std::abs(numeric)))
          << "feature " << d << " at " << point[0] << ", " << point[1];
    }
  }
  // The maximiser finds the largest value of a 41 x 41 grid, or better.
  SplitMix64 rng(3);
  const std::vector<double> x =
      GpMaximizeAcquisition(both, {0, 0}, {{0.24, 0.5}}, GpAcquisitionOptions{}, rng, GpTaken{});
  const double found = both.Value(x.data(), nullptr);
  for (int i = 0; i <= 40; ++i)
    for (int j = 0; j <= 40; ++j) {
      const std::vector<double> cell{i / 40.0, j / 40.0};
      EXPECT_GE(found, both.Value(cell.data(), nullptr) - 1e-9) << cell[0] << ", " << cell[1];
    }
}

TEST(GpAcquisitionTest, TheWinnerIsNeverATakenPointUnlessAllAre) {
  Eigen::VectorXd theta(4);
  theta << std::log(0.4), std::log(0.8), 0.0, std::log(1e-4);
  const GpPosterior objective(LineData(-2), theta);
  const GpAcquisition ei{&objective, -1.0, {}};
  // EI rises towards x0 = 1, so the winner sits on that bound, where the optimiser
  // clamps it: exactly the point a later suggestion would find again.
  SplitMix64 rng(3);
  const std::vector<double> free = GpMaximizeAcquisition(ei, {0, 0}, {{0.84, 0.5}}, GpAcquisitionOptions{}, rng, GpTaken{});
  const GpTaken that_one = [&](const std::vector<double>& x) { return x == free; };
  SplitMix64 again(3);
  const std::vector<double> other = GpMaximizeAcquisition(ei, {0, 0}, {{0.84, 0.5}}, GpAcquisitionOptions{}, again, that_one);
  EXPECT_NE(other, free);
  EXPECT_LE(ei.Value(other.data(), nullptr), ei.Value(free.data(), nullptr));
  const GpTaken everything = [](const std::vector<double>&) { return true; };
  SplitMix64 third(3);
  const std::vector<double> any = GpMaximizeAcquisition(ei, {0, 0}, {{0.84, 0.5}}, GpAcquisitionOptions{}, third, everything);
  ASSERT_EQ(any.size(), 2u);
  EXPECT_TRUE(std::isfinite(ei.Value(any.data(), nullptr)));
}

}  // namespace
}  // namespace gpusweep::search
