// gp_model.h — the Gaussian-process regression model of the gp sampler (gp_sampler.cc).
//
// Inputs are points of the sampler's feature space (gp_features.h): D features per
// point, each either continuous in [0, 1] or categorical (a value index). Outputs are
// standardised losses (mean 0, variance 1; smaller is better); the prior mean is 0.
//
// Kernel: Matérn 5/2 with automatic relevance determination (Rasmussen & Williams,
// "Gaussian Processes for Machine Learning", MIT Press 2006, eq. 4.17):
//   k(a, b) = s2 (1 + sqrt5 r + 5/3 r^2) exp(-sqrt5 r),  r^2 = sum_d delta_d^2 / l_d^2,
// where delta_d = a_d - b_d for a continuous feature and [a_d != b_d] (0 or 1) for a
// categorical one (the Hamming distance Optuna 4's GPSampler uses), plus noise n2 on the
// diagonal. Hyperparameters theta = (log l_1 .. log l_D, log s2, log n2).
//
// Hyperparameters maximise the log marginal likelihood (R&W eq. 5.8) plus a log-normal
// prior on each lengthscale, log l_d ~ N(sqrt2 + log(D)/2, 3) (Hvarfner, Hellsten &
// Nardi, "Vanilla Bayesian Optimization Performs Great in High Dimensions", ICML 2024,
// BoTorch's default), within the bounds of GpThetaBounds; the gradient is R&W eq. 5.9.
// Cost: one evaluation is a Cholesky factorisation and an inverse, O(n^3), plus O(n^2 D)
// for the gradient.
#pragma once

#include <vector>

#include <Eigen/Core>
#include <Eigen/Cholesky>

#include "search/splitmix64.h"

namespace gpusweep::search {

// Training data: x is n x D (row = point), y has n standardised losses.
struct GpData {
  Eigen::MatrixXd x;
  Eigen::VectorXd y;
  std::vector<bool> categorical;  // D flags
};

// Index of log s2 and log n2 in theta (after the D log lengthscales).
inline int GpSignalIndex(int dims) { return dims; }
inline int GpNoiseIndex(int dims) { return dims + 1; }

// Box bounds of theta for the fit: l in [0.005, 200], s2 in [0.05, 20], n2 in [1e-6, 1].
void GpThetaBounds(int dims, std::vector<double>& lower, std::vector<double>& upper);

// Buffers one fit reuses across evaluations (n x n matrices: allocating and freeing them
// per evaluation made the kernel trim and refault the heap, most of the fit's time).
struct GpWorkspace {
  std::vector<double> rows;  // data.x row-major, filled on first use
  Eigen::MatrixXd k, g, w;
  Eigen::LLT<Eigen::MatrixXd> chol;
  Eigen::VectorXd alpha;
};

// The log marginal likelihood log p(y | x, theta) and, when `grad` is not null, its
// gradient in theta (resized to D + 2). -infinity when the kernel matrix is not positive
// definite in double precision (then grad is zero). `workspace` may be null (then one
// is made for the call) or one kept for the same data.
double GpLogMarginalLikelihood(const GpData& data, const Eigen::VectorXd& theta,
                               Eigen::VectorXd* grad, GpWorkspace* workspace = nullptr);

// The log prior density of theta's lengthscales (up to a constant), gradient added to
// `grad` when it is not null.
double GpLogLengthscalePrior(int dims, const Eigen::VectorXd& theta, Eigen::VectorXd* grad);

// theta maximising log marginal likelihood + log prior by L-BFGS (NLopt's LD_LBFGS, at
// most 100 evaluations per start) from a fixed start (l = 0.5, s2 = 1, n2 = 1e-3) and
// `restarts` more drawn from `rng` (log l uniform over [log 0.05, log 5], log n2 over
// [log 1e-6, log 1e-2]); the best point any start evaluated. Deterministic for a given
// data and rng state. Precondition: at least one point.
Eigen::VectorXd GpFitTheta(const GpData& data, int restarts, SplitMix64& rng);

// The posterior of the latent function given data and theta (noise-free predictions).
class GpPosterior {
 public:
  GpPosterior(GpData data, const Eigen::VectorXd& theta);

  int dims() const { return static_cast<int>(data_.categorical.size()); }

  // Mean and variance (>= 1e-12) of f at `point` (D features). With `grad_mean` and
  // `grad_var` not null, their gradients in the continuous features (D entries; zero for
  // categorical ones). Cost O(n^2 + n D).
  void Predict(const double* point, double& mean, double& var, double* grad_mean,
               double* grad_var) const;

 private:
  GpData data_;
  std::vector<double> rows_;  // data_.x row-major: a point's features contiguous
  std::vector<double> inv_sq_lengthscale_;  // 1 / l_d^2
  double signal_ = 1;
  Eigen::LLT<Eigen::MatrixXd> chol_;
  Eigen::VectorXd alpha_;  // K^-1 y
};

// The Matérn 5/2 kernel between two points (without noise), for tests and the model.
double GpMatern52(const double* a, const double* b, const std::vector<bool>& categorical,
                  const std::vector<double>& inv_sq_lengthscale, double signal);

}  // namespace gpusweep::search
