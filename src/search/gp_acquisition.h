// gp_acquisition.h — log expected improvement and its maximisation, for the gp sampler.
//
// Expected improvement of a minimisation below `best` (Jones, Schonlau & Welch, "Efficient
// Global Optimization of Expensive Black-Box Functions", J. Global Optim. 1998) with
// z = (best - mean) / sd: EI = sd h(z), h(z) = phi(z) + z Phi(z). Its logarithm is
// computed without underflow far from the incumbent (Ament et al., "Unexpected
// Improvements to Expected Improvement for Bayesian Optimization", NeurIPS 2023): for
// z < -1 through log phi(z) + log1p(z Phi(z)/phi(z)), and for z < -30 through the
// asymptotic series of Mills' ratio, so L-BFGS gets a useful gradient where EI itself
// is 0 in double precision.
#pragma once

#include <vector>

#include "search/gp_model.h"
#include "search/splitmix64.h"

namespace gpusweep::search {

// log EI of a posterior (mean, variance > 0) below `best`; with the pointers not null,
// its derivatives in the mean and the variance.
double GpLogExpectedImprovement(double mean, double var, double best, double* d_mean,
                                double* d_var);

// How the maximiser searches (defaults: what the sampler uses).
struct GpAcquisitionOptions {
  int random_candidates = 1024;  // uniform in the unit cube (categoricals uniform)
  int local_candidates = 32;     // per start point: Gaussian steps (sd 0.05) around it
  int lbfgs_starts = 4;          // the best distinct candidates refined by L-BFGS
  int lbfgs_evaluations = 50;    // per start (NLopt's LD_LBFGS, continuous features)
};

// The feature vector maximising log EI below `best` over [0, 1]^D (categorical feature d
// over 0 .. category_counts[d] - 1; category_counts[d] is 0 for a continuous feature).
// Candidates: random ones, Gaussian steps around each of `near` (the best observed
// points), the best `lbfgs_starts` of them refined by multi-start L-BFGS over the
// continuous features, then one sweep over each categorical feature's values at the
// winner. Deterministic for a given rng state. Cost O(candidates x n^2) for the
// candidate scan plus O(starts x evaluations x (n^2 + n D)).
std::vector<double> GpMaximizeLogEi(const GpPosterior& posterior, double best,
                                    const std::vector<int>& category_counts,
                                    const std::vector<std::vector<double>>& near,
                                    const GpAcquisitionOptions& options, SplitMix64& rng);

}  // namespace gpusweep::search
