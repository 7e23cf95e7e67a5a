// The gp sampler's Gaussian-process model (contract and sources in gp_model.h).
#include "search/gp_model.h"

#include <nlopt.h>

#include <cassert>
#include <cmath>
#include <limits>
#include <numbers>
#include <utility>

namespace gpusweep::search {
namespace gp_model_detail {

constexpr double kSqrt5 = 2.23606797749978969641;
constexpr double kLogTwoPi = 1.83787706640934548356;
constexpr double kPriorVariance = 3.0;  // of log l (Hvarfner et al. 2024)
constexpr int kMaxEvaluationsPerStart = 100;

double PriorMean(int dims) { return std::numbers::sqrt2 + 0.5 * std::log(static_cast<double>(dims)); }

// Squared scaled distance r^2 between rows, and each feature's share delta_d^2.
double ScaledSquaredDistance(const double* a, const double* b,
                             const std::vector<bool>& categorical,
                             const std::vector<double>& inv_sq_lengthscale) {
  double r2 = 0;
  for (std::size_t d = 0; d < categorical.size(); ++d) {
    const double delta = categorical[d] ? (a[d] != b[d] ? 1.0 : 0.0) : a[d] - b[d];
    r2 += delta * delta * inv_sq_lengthscale[d];
  }
  return r2;
}

std::vector<double> InverseSquaredLengthscales(const Eigen::VectorXd& theta, int dims) {
  std::vector<double> out(static_cast<std::size_t>(dims));
  for (int d = 0; d < dims; ++d) out[static_cast<std::size_t>(d)] = std::exp(-2 * theta[d]);
  return out;
}

// Row-major copy of x, so a point's features are contiguous.
std::vector<double> RowMajor(const Eigen::MatrixXd& x) {
  std::vector<double> out(static_cast<std::size_t>(x.size()));
  for (Eigen::Index i = 0; i < x.rows(); ++i)
    for (Eigen::Index d = 0; d < x.cols(); ++d)
      out[static_cast<std::size_t>(i * x.cols() + d)] = x(i, d);
  return out;
}

// The noisy kernel matrix K (n x n) into `k` and, when `g` is not null, g_ij = s2 5/3
// (1 + sqrt5 r) exp(-sqrt5 r), the factor of every lengthscale derivative.
void KernelMatrix(const std::vector<double>& rows, int n, const GpData& data,
                  const std::vector<double>& inv_sq, double signal, double noise,
                  Eigen::MatrixXd& k, Eigen::MatrixXd* g) {
  const int dims = static_cast<int>(data.categorical.size());
  k.resize(n, n);
  if (g != nullptr) g->resize(n, n);
  for (int i = 0; i < n; ++i) {
    k(i, i) = signal + noise;
    if (g != nullptr) (*g)(i, i) = signal * 5.0 / 3.0;
    for (int j = 0; j < i; ++j) {
      const double r2 = ScaledSquaredDistance(&rows[static_cast<std::size_t>(i * dims)],
                                              &rows[static_cast<std::size_t>(j * dims)],
                                              data.categorical, inv_sq);
      const double r = std::sqrt(r2);
      const double e = std::exp(-kSqrt5 * r);
      k(i, j) = k(j, i) = signal * (1 + kSqrt5 * r + 5.0 / 3.0 * r2) * e;
      if (g != nullptr) (*g)(i, j) = (*g)(j, i) = signal * 5.0 / 3.0 * (1 + kSqrt5 * r) * e;
    }
  }
}

struct FitProblem {
  const GpData* data = nullptr;
  GpWorkspace workspace;
  int evaluations = 0;
  double best = std::numeric_limits<double>::infinity();
  std::vector<double> best_theta;
};

// NLopt's objective: the negative log posterior of theta (to minimise).
double NegativeLogPosterior(unsigned n, const double* x, double* grad, void* context) {
  auto* problem = static_cast<FitProblem*>(context);
  const int dims = static_cast<int>(problem->data->categorical.size());
  const Eigen::Map<const Eigen::VectorXd> theta(x, n);
  Eigen::VectorXd gradient;
  double value = GpLogMarginalLikelihood(*problem->data, theta, grad ? &gradient : nullptr,
                                         &problem->workspace);
  value += GpLogLengthscalePrior(dims, theta, grad ? &gradient : nullptr);
  ++problem->evaluations;
  if (!std::isfinite(value)) {
    // Outside what double precision factorises: a large value pushes L-BFGS back.
    if (grad != nullptr)
      for (unsigned i = 0; i < n; ++i) grad[i] = 0;
    return 1e300;
  }
  if (grad != nullptr)
    for (unsigned i = 0; i < n; ++i) grad[i] = -gradient[i];
  if (-value < problem->best) {
    problem->best = -value;
    problem->best_theta.assign(x, x + n);
  }
  return -value;
}

}  // namespace gp_model_detail

using namespace gp_model_detail;

void GpThetaBounds(int dims, std::vector<double>& lower, std::vector<double>& upper) {
  lower.assign(static_cast<std::size_t>(dims), std::log(0.005));
  upper.assign(static_cast<std::size_t>(dims), std::log(200.0));
  lower.push_back(std::log(0.05));
  upper.push_back(std::log(20.0));
  lower.push_back(std::log(1e-6));
  upper.push_back(0.0);
}

double GpMatern52(const double* a, const double* b, const std::vector<bool>& categorical,
                  const std::vector<double>& inv_sq_lengthscale, double signal) {
  const double r2 = ScaledSquaredDistance(a, b, categorical, inv_sq_lengthscale);
  const double r = std::sqrt(r2);
  return signal * (1 + kSqrt5 * r + 5.0 / 3.0 * r2) * std::exp(-kSqrt5 * r);
}

double GpLogMarginalLikelihood(const GpData& data, const Eigen::VectorXd& theta,
                               Eigen::VectorXd* grad, GpWorkspace* workspace) {
  GpWorkspace local;
  GpWorkspace& ws = workspace != nullptr ? *workspace : local;
  const int dims = static_cast<int>(data.categorical.size());
  const int n = static_cast<int>(data.y.size());
  assert(theta.size() == dims + 2 && data.x.rows() == n && data.x.cols() == dims);
  const std::vector<double> inv_sq = InverseSquaredLengthscales(theta, dims);
  const double signal = std::exp(theta[GpSignalIndex(dims)]);
  const double noise = std::exp(theta[GpNoiseIndex(dims)]);
  if (ws.rows.empty()) ws.rows = RowMajor(data.x);
  const std::vector<double>& rows = ws.rows;
  KernelMatrix(rows, n, data, inv_sq, signal, noise, ws.k, grad != nullptr ? &ws.g : nullptr);
  ws.chol.compute(ws.k);
  if (grad != nullptr) grad->setZero(dims + 2);
  if (ws.chol.info() != Eigen::Success) return -std::numeric_limits<double>::infinity();
  ws.alpha = data.y;
  ws.chol.solveInPlace(ws.alpha);
  const Eigen::VectorXd& alpha = ws.alpha;
  double log_det_half = 0;
  for (int i = 0; i < n; ++i) log_det_half += std::log(ws.chol.matrixLLT()(i, i));
  const double value = -0.5 * data.y.dot(alpha) - log_det_half - 0.5 * n * kLogTwoPi;
  if (grad == nullptr) return value;

  // d/dtheta_j = 1/2 tr(W dK/dtheta_j), W = alpha alpha^T - K^-1 (R&W eq. 5.9).
  Eigen::MatrixXd& w = ws.w;
  w.setIdentity(n, n);
  ws.chol.solveInPlace(w);
  w *= -1;
  w.noalias() += alpha * alpha.transpose();
  const Eigen::MatrixXd& k = ws.k;
  const Eigen::MatrixXd& g = ws.g;
  Eigen::VectorXd& out = *grad;
  double signal_term = 0;
  for (int i = 0; i < n; ++i) {
    signal_term += 0.5 * w(i, i) * signal;
    const double* a = &rows[static_cast<std::size_t>(i * dims)];
    for (int j = 0; j < i; ++j) {
      // Both (i, j) and (j, i): the 1/2 cancels.
      const double wg = w(i, j) * g(i, j);
      signal_term += w(i, j) * k(i, j);  // off the diagonal K is the noise-free kernel
      const double* b = &rows[static_cast<std::size_t>(j * dims)];
      for (int d = 0; d < dims; ++d) {
        const double delta = data.categorical[static_cast<std::size_t>(d)]
                                 ? (a[d] != b[d] ? 1.0 : 0.0)
                                 : a[d] - b[d];
        out[d] += wg * delta * delta * inv_sq[static_cast<std::size_t>(d)];
      }
    }
  }
  out[GpSignalIndex(dims)] = signal_term;  // dK/dlog s2 = the noise-free kernel
  out[GpNoiseIndex(dims)] = 0.5 * noise * w.trace();
  return value;
}

double GpLogLengthscalePrior(int dims, const Eigen::VectorXd& theta, Eigen::VectorXd* grad) {
  const double mean = PriorMean(dims);
  double value = 0;
  for (int d = 0; d < dims; ++d) {
    const double z = theta[d] - mean;
    value -= z * z / (2 * kPriorVariance);
    if (grad != nullptr) (*grad)[d] -= z / kPriorVariance;
  }
  return value;
}

Eigen::VectorXd GpFitTheta(const GpData& data, int restarts, SplitMix64& rng) {
  const int dims = static_cast<int>(data.categorical.size());
  const int n = dims + 2;
  assert(data.y.size() >= 1);
  std::vector<double> lower, upper;
  GpThetaBounds(dims, lower, upper);
  FitProblem problem;
  problem.data = &data;
  nlopt_opt opt = nlopt_create(NLOPT_LD_LBFGS, static_cast<unsigned>(n));
  assert(opt != nullptr);
  nlopt_set_lower_bounds(opt, lower.data());
  nlopt_set_upper_bounds(opt, upper.data());
  nlopt_set_min_objective(opt, NegativeLogPosterior, &problem);
  nlopt_set_maxeval(opt, kMaxEvaluationsPerStart);
  nlopt_set_ftol_rel(opt, 1e-7);
  nlopt_set_xtol_rel(opt, 1e-5);
  for (int start = 0; start <= restarts; ++start) {
    std::vector<double> x(static_cast<std::size_t>(n));
    for (int d = 0; d < dims; ++d) {
      const double u = UnitFromBits(rng.Next());  // drawn for every start: one stream
      x[static_cast<std::size_t>(d)] =
          start == 0 ? std::log(0.5) : std::log(0.05) + u * (std::log(5.0) - std::log(0.05));
    }
    const double u = UnitFromBits(rng.Next());
    x[static_cast<std::size_t>(GpSignalIndex(dims))] = 0;
    x[static_cast<std::size_t>(GpNoiseIndex(dims))] =
        start == 0 ? std::log(1e-3) : std::log(1e-6) + u * (std::log(1e-2) - std::log(1e-6));
    double value = 0;
    nlopt_optimize(opt, x.data(), &value);  // the best point seen is kept in `problem`
  }
  nlopt_destroy(opt);
  Eigen::VectorXd theta(n);
  if (problem.best_theta.empty()) {  // nothing factorised: the fixed start, most noise
    theta.setConstant(std::log(0.5));
    theta[GpSignalIndex(dims)] = 0;
    theta[GpNoiseIndex(dims)] = upper.back();
    return theta;
  }
  for (int i = 0; i < n; ++i) theta[i] = problem.best_theta[static_cast<std::size_t>(i)];
  return theta;
}

GpPosterior::GpPosterior(GpData data, const Eigen::VectorXd& theta) : data_(std::move(data)) {
  const int dims = static_cast<int>(data_.categorical.size());
  const int n = static_cast<int>(data_.y.size());
  inv_sq_lengthscale_ = InverseSquaredLengthscales(theta, dims);
  signal_ = std::exp(theta[GpSignalIndex(dims)]);
  double noise = std::exp(theta[GpNoiseIndex(dims)]);
  rows_ = RowMajor(data_.x);
  const std::vector<double>& rows = rows_;
  // Pending points may coincide with others; more jitter until the factorisation holds.
  Eigen::MatrixXd k;
  for (int attempt = 0; attempt < 8; ++attempt) {
    KernelMatrix(rows, n, data_, inv_sq_lengthscale_, signal_, noise, k, nullptr);
    chol_.compute(k);
    if (chol_.info() == Eigen::Success) break;
    noise = std::max(noise * 10, 1e-6 * signal_);
  }
  assert(chol_.info() == Eigen::Success);
  alpha_ = chol_.solve(data_.y);
}

void GpPosterior::Predict(const double* point, double& mean, double& var, double* grad_mean,
                          double* grad_var) const {
  const int dims = static_cast<int>(data_.categorical.size());
  const Eigen::Index n = data_.y.size();
  Eigen::VectorXd k(n), g(n);
  for (Eigen::Index i = 0; i < n; ++i) {
    const double r2 = ScaledSquaredDistance(point, &rows_[static_cast<std::size_t>(i * dims)],
                                            data_.categorical, inv_sq_lengthscale_);
    const double r = std::sqrt(r2);
    const double e = std::exp(-kSqrt5 * r);
    k[i] = signal_ * (1 + kSqrt5 * r + 5.0 / 3.0 * r2) * e;
    g[i] = signal_ * 5.0 / 3.0 * (1 + kSqrt5 * r) * e;
  }
  mean = k.dot(alpha_);
  const Eigen::VectorXd v = chol_.matrixL().solve(k);
  var = std::max(signal_ - v.squaredNorm(), 1e-12);
  if (grad_mean == nullptr || grad_var == nullptr) return;
  // dk_i/dx_d = -g_i (x_d - x_id) / l_d^2; dvar/dx = -2 (K^-1 k)^T dk/dx.
  const Eigen::VectorXd kinv_k = chol_.matrixU().solve(v);
  for (int d = 0; d < dims; ++d) {
    double dm = 0, dv = 0;
    if (!data_.categorical[static_cast<std::size_t>(d)]) {
      for (Eigen::Index i = 0; i < n; ++i) {
        const double delta = point[d] - rows_[static_cast<std::size_t>(i * dims + d)];
        const double dk = -g[i] * delta * inv_sq_lengthscale_[static_cast<std::size_t>(d)];
        dm += alpha_[i] * dk;
        dv += -2 * kinv_k[i] * dk;
      }
    }
    grad_mean[d] = dm;
    grad_var[d] = var > 1e-12 ? dv : 0;
  }
}

}  // namespace gpusweep::search
