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
//
// With constraints (a gp sampler with `constraints:`), each constraint has its own GP of
// how far the trial's metric lies past its bound (feasible where that is <= 0), and the
// acquisition is log EI + the sum of each constraint's log probability of feasibility,
// log Phi((threshold - mean) / sd) (Gardner, Kusner, Xu, Weinberger & Cunningham,
// "Bayesian Optimization with Inequality Constraints", ICML 2014; what Optuna 4.2's
// GPSampler does). Before any trial is feasible there is no incumbent, and the
// acquisition is the log probability of feasibility alone.
#pragma once

#include <functional>
#include <optional>
#include <vector>

#include "search/gp_model.h"
#include "search/splitmix64.h"

namespace gpusweep::search {

// log EI of a posterior (mean, variance > 0) below `best`; with the pointers not null,
// its derivatives in the mean and the variance.
double GpLogExpectedImprovement(double mean, double var, double best, double* d_mean,
                                double* d_var);

// log Phi((threshold - mean) / sd): the log probability that a GP's latent value at a
// point is <= threshold, finite for every z (through Mills' ratio where Phi underflows);
// with the pointers not null, its derivatives in the mean and the variance.
double GpLogProbabilityBelow(double mean, double var, double threshold, double* d_mean,
                             double* d_var);

// A constraint's model: feasible where its latent value is <= threshold.
struct GpConstraintModel {
  const GpPosterior* posterior = nullptr;
  double threshold = 0;
};

// What the maximiser climbs: log EI of `objective` below `best` (left out when `best` is
// nullopt, i.e. no feasible trial yet) plus each constraint's GpLogProbabilityBelow.
// Every posterior has the same dims; at least one term (asserted).
struct GpAcquisition {
  const GpPosterior* objective = nullptr;
  std::optional<double> best;
  std::vector<GpConstraintModel> constraints;

  int dims() const { return objective->dims(); }
  // The value at `point` (D features); with `grad` not null (D entries), its gradient in
  // the continuous features (0 for categorical ones). -infinity where a term is.
  double Value(const double* point, double* grad) const;
};

// How the maximiser searches (defaults: what the sampler uses).
struct GpAcquisitionOptions {
  int random_candidates = 1024;  // uniform in the unit cube (categoricals uniform)
  int local_candidates = 32;     // per start point: Gaussian steps (sd 0.05) around it
  int lbfgs_starts = 4;          // the best distinct candidates refined by L-BFGS
  int lbfgs_evaluations = 50;    // per start (NLopt's LD_LBFGS, continuous features)
};

// True for a point the suggestion may not be: one already evaluated or running (a
// noise-free trial run again teaches the model nothing).
using GpTaken = std::function<bool(const std::vector<double>&)>;

// The feature vector maximising the acquisition over [0, 1]^D (categorical feature d
// over 0 .. category_counts[d] - 1; category_counts[d] is 0 for a continuous feature).
// Candidates: random ones, Gaussian steps around each of `near` (the best observed
// points), the best `lbfgs_starts` of them refined by multi-start L-BFGS over the
// continuous features, then one sweep over each categorical feature's values at the
// winner. The winner is never a point `taken` (may be empty) holds, unless every point
// searched is one (a small discrete space fully explored). Deterministic for a given rng
// state. Cost O(candidates x n^2) for the candidate scan plus O(starts x evaluations x
// (n^2 + n D)).
std::vector<double> GpMaximizeAcquisition(const GpAcquisition& acquisition,
                                          const std::vector<int>& category_counts,
                                          const std::vector<std::vector<double>>& near,
                                          const GpAcquisitionOptions& options, SplitMix64& rng,
                                          const GpTaken& taken);

// GpMaximizeAcquisition of log EI alone, no point taken.
std::vector<double> GpMaximizeLogEi(const GpPosterior& posterior, double best,
                                    const std::vector<int>& category_counts,
                                    const std::vector<std::vector<double>>& near,
                                    const GpAcquisitionOptions& options, SplitMix64& rng);

}  // namespace gpusweep::search
