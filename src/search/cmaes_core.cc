#include "search/cmaes_core.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <numeric>

namespace gpusweep::search {
namespace {

// The stopping thresholds: pycma's / the cmaes package's defaults, except the
// condition limit, which is the tutorial's cond(C) > 1e14 (B.3).
constexpr double kCmaesTolFun = 1e-12;
constexpr double kCmaesTolX = 1e-12;    // in units of the box [0, 1]
constexpr double kCmaesTolXUp = 1e4;    // sigma * max(D) grew this much: diverging
constexpr double kCmaesMaxCondition = 1e14;
constexpr double kCmaesMaxSigma = 1e32;

// Generations whose best and worst losses TolFun looks at: 10 + ceil(30 n / lambda).
std::size_t CmaesTolFunWindow(int n, int lambda) {
  return static_cast<std::size_t>(10 + (30 * n + lambda - 1) / lambda);
}

}  // namespace

int CmaesDefaultLambda(int n) {
  assert(n >= 1);
  return 4 + static_cast<int>(std::floor(3.0 * std::log(static_cast<double>(n))));
}

CmaesConstants MakeCmaesConstants(int n, int lambda) {
  assert(n >= 1 && lambda >= 2);
  CmaesConstants k;
  k.n = n;
  k.lambda = lambda;
  k.mu = lambda / 2;
  const double dn = n;
  std::vector<double> raw(lambda);  // w'_i, eq. (49)
  for (int i = 0; i < lambda; ++i)
    raw[i] = std::log((lambda + 1) / 2.0) - std::log(static_cast<double>(i + 1));
  double pos_sum = 0, pos_sq = 0, neg_sum = 0, neg_sq = 0;
  for (double w : raw) {
    if (w >= 0) {
      pos_sum += w;
      pos_sq += w * w;
    } else {
      neg_sum += w;
      neg_sq += w * w;
    }
  }
  k.mu_eff = pos_sum * pos_sum / pos_sq;
  const double mu_eff_minus = neg_sq > 0 ? neg_sum * neg_sum / neg_sq : 0;
  constexpr double kAlphaCov = 2;
  k.c_1 = kAlphaCov / ((dn + 1.3) * (dn + 1.3) + k.mu_eff);                       // (57)
  k.c_mu = std::min(1 - k.c_1, kAlphaCov * (k.mu_eff - 2 + 1 / k.mu_eff) /
                                   ((dn + 2) * (dn + 2) + kAlphaCov * k.mu_eff / 2));  // (58)
  k.c_sigma = (k.mu_eff + 2) / (dn + k.mu_eff + 5);                                 // (55)
  k.d_sigma = 1 + 2 * std::max(0.0, std::sqrt((k.mu_eff - 1) / (dn + 1)) - 1) + k.c_sigma;
  k.c_c = (4 + k.mu_eff / dn) / (dn + 4 + 2 * k.mu_eff / dn);                       // (56)
  // Negative weights (eq. 50-53): scaled by the smallest of the three bounds.
  double negative_scale = 0;
  if (k.c_mu > 0 && neg_sum < 0) {
    const double alpha_mu = 1 + k.c_1 / k.c_mu;
    const double alpha_mu_eff = 1 + 2 * mu_eff_minus / (k.mu_eff + 2);
    const double alpha_posdef = (1 - k.c_1 - k.c_mu) / (dn * k.c_mu);
    negative_scale = std::min({alpha_mu, alpha_mu_eff, alpha_posdef}) / -neg_sum;
  }
  k.weights.resize(lambda);
  for (int i = 0; i < lambda; ++i)
    k.weights[i] = raw[i] >= 0 ? raw[i] / pos_sum : raw[i] * negative_scale;
  k.chi_n = std::sqrt(dn) * (1 - 1 / (4 * dn) + 1 / (21 * dn * dn));
  return k;
}

const char* CmaesStopName(CmaesStop stop) {
  switch (stop) {
    case CmaesStop::kNone: return "none";
    case CmaesStop::kTolFun: return "tolfun";
    case CmaesStop::kTolX: return "tolx";
    case CmaesStop::kNoEffectAxis: return "noeffectaxis";
    case CmaesStop::kNoEffectCoord: return "noeffectcoord";
    case CmaesStop::kConditionCov: return "conditioncov";
    case CmaesStop::kTolXUp: return "tolxup";
  }
  return "none";
}

CmaesState::CmaesState(Eigen::VectorXd mean, double sigma, Eigen::MatrixXd cov, int lambda)
    : mean_(std::move(mean)), sigma_(sigma), sigma0_(sigma), cov_(std::move(cov)), lambda_(lambda) {
  assert(mean_.size() >= 1 && sigma > 0 && lambda >= 2);
  const Eigen::Index n = mean_.size();
  if (cov_.size() == 0) cov_ = Eigen::MatrixXd::Identity(n, n);
  assert(cov_.rows() == n && cov_.cols() == n);
  p_sigma_ = Eigen::VectorXd::Zero(n);
  p_c_ = Eigen::VectorXd::Zero(n);
  Decompose();
}

void CmaesState::Decompose() {
  cov_ = (cov_ + cov_.transpose()) / 2;
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> solver(cov_);
  Eigen::VectorXd eigen = solver.eigenvalues();
  basis_ = solver.eigenvectors();
  if (solver.info() != Eigen::Success || !eigen.allFinite() || !basis_.allFinite()) {
    // Numerically broken (not seen in practice): fall back to the identity, which the
    // restart tests then judge like any other state.
    cov_ = Eigen::MatrixXd::Identity(n(), n());
    basis_ = cov_;
    eigen = Eigen::VectorXd::Ones(n());
  }
  eigen = eigen.cwiseMax(kCmaesMinEigen);
  scale_ = eigen.cwiseSqrt();
  cov_ = basis_ * eigen.asDiagonal() * basis_.transpose();
}

Eigen::VectorXd CmaesState::Sample(const Eigen::VectorXd& z) const {
  assert(z.size() == mean_.size());
  return mean_ + sigma_ * (basis_ * scale_.cwiseProduct(z));
}

void CmaesState::Update(std::vector<CmaesMember> members) {
  const int gen = generation_++;
  if (members.size() < 2) return;
  std::stable_sort(members.begin(), members.end(),
                   [](const CmaesMember& a, const CmaesMember& b) {
                     return a.tier != b.tier ? a.tier < b.tier : a.loss < b.loss;
                   });
  const int count = static_cast<int>(members.size());
  const CmaesConstants k = MakeCmaesConstants(n(), count);
  const double dn = n();
  const Eigen::MatrixXd inv_sqrt = basis_ * scale_.cwiseInverse().asDiagonal() * basis_.transpose();
  const double max_length = std::sqrt(dn) + 2 * dn / (dn + 2);

  std::vector<Eigen::VectorXd> steps(count);  // y_i, clipped
  for (int i = 0; i < count; ++i) {
    assert(members[i].x.size() == mean_.size());
    Eigen::VectorXd y = (members[i].x - mean_) / sigma_;
    const double length = (inv_sqrt * y).norm();
    if (length > max_length) y *= max_length / length;
    steps[i] = std::move(y);
  }
  Eigen::VectorXd y_w = Eigen::VectorXd::Zero(n());  // eq. (41): the positive weights
  for (int i = 0; i < k.mu; ++i) y_w += k.weights[i] * steps[i];

  mean_ += sigma_ * y_w;  // c_m = 1
  p_sigma_ = (1 - k.c_sigma) * p_sigma_ +
             std::sqrt(k.c_sigma * (2 - k.c_sigma) * k.mu_eff) * (inv_sqrt * y_w);  // (43)
  const double p_sigma_norm = p_sigma_.norm();
  sigma_ *= std::exp((k.c_sigma / k.d_sigma) * (p_sigma_norm / k.chi_n - 1));     // (44)
  sigma_ = std::min(sigma_, kCmaesMaxSigma);
  const double correction = std::sqrt(1 - std::pow(1 - k.c_sigma, 2.0 * (gen + 1)));
  const bool h_sigma = p_sigma_norm / correction < (1.4 + 2 / (dn + 1)) * k.chi_n;
  p_c_ = (1 - k.c_c) * p_c_ +
         (h_sigma ? std::sqrt(k.c_c * (2 - k.c_c) * k.mu_eff) : 0.0) * y_w;        // (45)

  double weight_sum = 0;
  Eigen::MatrixXd rank_mu = Eigen::MatrixXd::Zero(n(), n());
  for (int i = 0; i < count; ++i) {
    double w = k.weights[i];
    weight_sum += w;
    if (w < 0) w *= dn / std::max((inv_sqrt * steps[i]).squaredNorm(), 1e-300);  // (46)
    rank_mu += w * steps[i] * steps[i].transpose();
  }
  const double delta = (1 - (h_sigma ? 1.0 : 0.0)) * k.c_c * (2 - k.c_c);
  cov_ = (1 + k.c_1 * delta - k.c_1 - k.c_mu * weight_sum) * cov_ +
         k.c_1 * p_c_ * p_c_.transpose() + k.c_mu * rank_mu;                        // (47)
  Decompose();

  const std::size_t window = CmaesTolFunWindow(n(), lambda_);
  const auto [low, high] = std::minmax_element(
      members.begin(), members.end(),
      [](const CmaesMember& a, const CmaesMember& b) { return a.loss < b.loss; });
  recent_best_.push_back(low->loss);
  recent_worst_.push_back(high->loss);
  if (recent_best_.size() > window) {
    recent_best_.erase(recent_best_.begin());
    recent_worst_.erase(recent_worst_.begin());
  }
}

CmaesStop CmaesState::ShouldStop() const {
  if (generation_ == 0) return CmaesStop::kNone;
  // TolFun: the recent generations' losses (best and worst of each) within kCmaesTolFun.
  const std::size_t window = CmaesTolFunWindow(n(), lambda_);
  if (recent_best_.size() >= window) {
    const double low = *std::min_element(recent_best_.begin(), recent_best_.end());
    const double high = *std::max_element(recent_worst_.begin(), recent_worst_.end());
    if (high - low < kCmaesTolFun) return CmaesStop::kTolFun;
  }
  const Eigen::VectorXd diag = cov_.diagonal();
  if ((sigma_ * diag.cwiseSqrt().array() < kCmaesTolX).all() &&
      (sigma_ * p_c_.array().abs() < kCmaesTolX).all())
    return CmaesStop::kTolX;
  if (sigma_ * scale_.maxCoeff() > kCmaesTolXUp * sigma0_) return CmaesStop::kTolXUp;
  for (Eigen::Index i = 0; i < mean_.size(); ++i)
    if (mean_[i] == mean_[i] + 0.2 * sigma_ * std::sqrt(diag[i])) return CmaesStop::kNoEffectCoord;
  const Eigen::Index axis = generation_ % n();
  const Eigen::VectorXd shifted = mean_ + 0.1 * sigma_ * scale_[axis] * basis_.col(axis);
  if (shifted == mean_) return CmaesStop::kNoEffectAxis;
  const double condition = scale_.maxCoeff() / scale_.minCoeff();
  if (condition * condition > kCmaesMaxCondition) return CmaesStop::kConditionCov;
  return CmaesStop::kNone;
}

}  // namespace gpusweep::search
