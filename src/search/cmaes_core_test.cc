#include "search/cmaes_core.h"

#include <cmath>
#include <random>

#include <gtest/gtest.h>

namespace gpusweep::search {
namespace {

TEST(CmaesConstants, WeightsAndRatesFollowTheTutorialsTable1) {
  const CmaesConstants k = MakeCmaesConstants(10, 10);
  EXPECT_EQ(k.mu, 5);
  double positive = 0, negative = 0;
  for (int i = 0; i < k.lambda; ++i) (k.weights[i] >= 0 ? positive : negative) += k.weights[i];
  EXPECT_NEAR(positive, 1.0, 1e-12);
  EXPECT_LT(negative, 0);
  for (int i = 1; i < k.lambda; ++i) EXPECT_LT(k.weights[i], k.weights[i - 1]);
  // mu_eff for lambda = 10 (pycma prints 3.1672...), and the derived rates.
  EXPECT_NEAR(k.mu_eff, 3.1672, 1e-4);
  EXPECT_NEAR(k.c_sigma, (k.mu_eff + 2) / (10 + k.mu_eff + 5), 1e-15);
  EXPECT_NEAR(k.c_1, 2 / (11.3 * 11.3 + k.mu_eff), 1e-15);
  EXPECT_GT(k.c_mu, 0);
  EXPECT_LT(k.c_1 + k.c_mu, 1);
  EXPECT_NEAR(k.chi_n, std::sqrt(10.0) * (1 - 1 / 40.0 + 1 / 2100.0), 1e-15);
  EXPECT_EQ(CmaesDefaultLambda(10), 10);
  EXPECT_EQ(CmaesDefaultLambda(1), 4);
  EXPECT_EQ(CmaesDefaultLambda(2), 6);
}

// Runs CMA-ES from mean 0.8, sigma 0.3 on f for at most `evaluations` evaluations (or
// until f < target); returns the evaluations used, or -1 when it did not get there.
template <typename F>
int EvaluationsToReach(int n, F f, double target, int evaluations, CmaesStop* stop = nullptr) {
  std::mt19937_64 rng(12345);
  std::normal_distribution<double> normal;
  CmaesState state(Eigen::VectorXd::Constant(n, 0.8), 0.3, {}, CmaesDefaultLambda(n));
  int used = 0;
  while (used < evaluations) {
    std::vector<CmaesMember> members;
    for (int i = 0; i < state.lambda(); ++i) {
      Eigen::VectorXd z(n);
      for (int d = 0; d < n; ++d) z[d] = normal(rng);
      const Eigen::VectorXd x = state.Sample(z);
      const double value = f(x);
      ++used;
      if (value < target) return used;
      members.push_back({x, value});
    }
    state.Update(std::move(members));
    if (stop != nullptr && (*stop = state.ShouldStop()) != CmaesStop::kNone) return -1;
  }
  return -1;
}

TEST(CmaesState, ConvergesOnTheSphere) {
  const auto sphere = [](const Eigen::VectorXd& x) {
    return (x.array() - 0.3).square().sum();
  };
  // Hansen's tutorial, fig. 4 area: about 1500-2000 evaluations to 1e-10 in 10-D.
  const int used = EvaluationsToReach(10, sphere, 1e-10, 4000);
  EXPECT_GT(used, 500);
  EXPECT_GT(used, 0) << "did not reach 1e-10 in 4000 evaluations";
  EXPECT_LT(used, 4000);
}

TEST(CmaesState, LearnsAnIllConditionedEllipsoid) {
  // f = sum 10^(6 (i-1)/(n-1)) (x_i - 0.3)^2: condition 1e6, the covariance has to learn it.
  const int n = 5;
  const auto ellipsoid = [n](const Eigen::VectorXd& x) {
    double sum = 0;
    for (int i = 0; i < n; ++i) sum += std::pow(1e6, i / (n - 1.0)) * std::pow(x[i] - 0.3, 2);
    return sum;
  };
  const int used = EvaluationsToReach(n, ellipsoid, 1e-8, 6000);
  EXPECT_GT(used, 0) << "did not reach 1e-8 in 6000 evaluations";
  // Without covariance learning (sigma alone) the ellipsoid takes ~1e6 times longer.
}

TEST(CmaesState, FlatLossesStopTheRunWithTolFun) {
  CmaesStop stop = CmaesStop::kNone;
  const int used = EvaluationsToReach(3, [](const Eigen::VectorXd&) { return 1.0; }, -1, 100000, &stop);
  EXPECT_EQ(used, -1);
  EXPECT_EQ(stop, CmaesStop::kTolFun);
}

TEST(CmaesState, ConvergedRunStopsAndNotBefore) {
  const auto sphere = [](const Eigen::VectorXd& x) { return (x.array() - 0.3).square().sum(); };
  CmaesStop stop = CmaesStop::kNone;
  // Never reaches -1: runs until a stopping test fires, which must be a convergence one.
  EXPECT_EQ(EvaluationsToReach(4, sphere, -1, 200000, &stop), -1);
  EXPECT_TRUE(stop == CmaesStop::kTolFun || stop == CmaesStop::kTolX ||
              stop == CmaesStop::kNoEffectAxis || stop == CmaesStop::kNoEffectCoord)
      << CmaesStopName(stop);
  CmaesState fresh(Eigen::VectorXd::Constant(4, 0.5), 0.2, {}, 8);
  EXPECT_EQ(fresh.ShouldStop(), CmaesStop::kNone);
}

TEST(CmaesState, InjectedStepsAreShortened) {
  // A member far outside the distribution moves the mean by at most the clipped length.
  CmaesState state(Eigen::VectorXd::Constant(2, 0.5), 0.01, {}, 4);
  std::vector<CmaesMember> members;
  members.push_back({Eigen::VectorXd::Constant(2, 1.0), 0.0});  // 50 sigma away, the best
  for (int i = 0; i < 3; ++i) members.push_back({Eigen::VectorXd::Constant(2, 0.5), 1.0 + i});
  state.Update(members);
  const double moved = (state.mean() - Eigen::VectorXd::Constant(2, 0.5)).norm();
  const double max_length = std::sqrt(2.0) + 2 * 2.0 / 4;
  EXPECT_GT(moved, 0);
  EXPECT_LE(moved, 0.01 * max_length + 1e-12);
}

TEST(CmaesState, TierRanksBeforeLoss) {
  CmaesState a(Eigen::VectorXd::Constant(1, 0.5), 0.1, {}, 4);
  CmaesState b = a;
  std::vector<CmaesMember> members{{Eigen::VectorXd::Constant(1, 0.6), 5.0, 0},
                                   {Eigen::VectorXd::Constant(1, 0.4), 1.0, 1},
                                   {Eigen::VectorXd::Constant(1, 0.45), 2.0, 1},
                                   {Eigen::VectorXd::Constant(1, 0.5), 3.0, 1}};
  a.Update(members);
  EXPECT_GT(a.mean()[0], 0.5);  // the completed member (tier 0) leads, despite its loss
  for (CmaesMember& m : members) m.tier = 0;
  b.Update(members);
  EXPECT_LT(b.mean()[0], 0.5);
}

}  // namespace
}  // namespace gpusweep::search
