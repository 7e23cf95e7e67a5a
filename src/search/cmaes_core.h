// cmaes_core.h — the CMA-ES update of Hansen's tutorial ("The CMA Evolution Strategy: A
// Tutorial", arXiv:1604.00772, 2016; equation numbers below are its), over the box
// [0, 1]^n, with the stopping tests that trigger an IPOP restart (Auger & Hansen, "A
// Restart CMA Evolution Strategy With Increasing Population Size", CEC 2005).
//
// Pure arithmetic: no randomness of its own (the caller supplies the standard normal
// draws), no I/O. The CMA-ES sampler (cmaes_sampler.cc) replays a whole run through
// this from the trial history every time it suggests, so the state is never stored.
//
// Shapes: n = dimension (>= 1); vectors are n long; C is n x n, symmetric positive
// definite (eigenvalues kept >= kCmaesMinEigen).
#pragma once

#include <cstdint>
#include <vector>

#include <Eigen/Dense>

namespace gpusweep::search {

// The strategy parameters of Table 1 for dimension n and population size lambda
// (>= 2): recombination weights (positive for the best mu = lambda/2, negative for the
// rest, the tutorial's "active" CMA, eq. 49-53), learning rates and damping.
struct CmaesConstants {
  int n = 0;
  int lambda = 0;
  int mu = 0;
  std::vector<double> weights;  // lambda entries, best first; the positive ones sum to 1
  double mu_eff = 0;            // variance-effective selection mass of the positive weights
  double c_sigma = 0, d_sigma = 0, c_c = 0, c_1 = 0, c_mu = 0;
  double chi_n = 0;             // E||N(0, I)||, approximated as in eq. before (39)
};
CmaesConstants MakeCmaesConstants(int n, int lambda);

// Table 1's default population size: 4 + floor(3 ln n).
int CmaesDefaultLambda(int n);

inline constexpr double kCmaesMinEigen = 1e-30;

// Why a run stopped (the tests of pycma / the cmaes package, documented in the tutorial's
// appendix B.3), or kNone.
enum class CmaesStop { kNone, kTolFun, kTolX, kNoEffectAxis, kNoEffectCoord, kConditionCov, kTolXUp };
const char* CmaesStopName(CmaesStop stop);

// One evaluated member of a generation: its point in [0, 1]^n, its tier (0 ranks before
// 1: completed trials before pruned ones) and its loss within the tier (smaller is
// better).
struct CmaesMember {
  Eigen::VectorXd x;
  double loss = 0;
  int tier = 0;
};

class CmaesState {
 public:
  // A fresh run: mean m, step size sigma, covariance `cov` (identity when empty).
  CmaesState(Eigen::VectorXd mean, double sigma, Eigen::MatrixXd cov, int lambda);

  int n() const { return static_cast<int>(mean_.size()); }
  int lambda() const { return lambda_; }
  int generation() const { return generation_; }
  const Eigen::VectorXd& mean() const { return mean_; }
  double sigma() const { return sigma_; }
  const Eigen::MatrixXd& cov() const { return cov_; }

  // x = m + sigma * B D z for a standard normal z (eq. 38-40).
  Eigen::VectorXd Sample(const Eigen::VectorXd& z) const;

  // One generation's update (eq. 41-47) from its evaluated members, in any order
  // (sorted here by tier, then loss; ties keep the given order). Members whose x was not drawn
  // from this state (rounded integers, clipped to the box, a generation that started
  // before the previous one ended, enqueued settings) are injected solutions (Hansen,
  // "Injecting External Solutions Into CMA-ES", 2011): their step y = (x - m) / sigma
  // is shortened to Mahalanobis length at most sqrt(n) + 2n/(n+2). Weights and learning
  // rates are those of the population actually ranked (members.size() >= 2; fewer
  // leaves the state as it is, but still counts the generation).
  void Update(std::vector<CmaesMember> members);

  // The restart tests after the last Update (nothing before the first).
  CmaesStop ShouldStop() const;

 private:
  void Decompose();

  Eigen::VectorXd mean_;
  double sigma_;
  double sigma0_;
  Eigen::MatrixXd cov_;
  Eigen::MatrixXd basis_;  // B: eigenvectors of C (columns)
  Eigen::VectorXd scale_;  // D: square roots of C's eigenvalues
  Eigen::VectorXd p_sigma_, p_c_;
  int lambda_;
  int generation_ = 0;
  // Best and worst loss of each recent generation, for TolFun.
  std::vector<double> recent_best_, recent_worst_;
};

}  // namespace gpusweep::search
