// parzen_estimator.h — the kernel density estimator of TPE (Bergstra et al., "Algorithms
// for Hyper-Parameter Optimization", NeurIPS 2011), with the refinements of Optuna 3.1's
// _ParzenEstimator used as the reference for behaviour and defaults: one kernel per
// observation plus a prior kernel, Optuna's default_weights, neighbour-distance
// bandwidths (univariate) or a Scott-like rule (multivariate, as in BOHB, Falkner et al.,
// ICML 2018), the "magic clip" of small bandwidths, truncation to the domain, grid-cell
// masses for discrete dims and a smoothed categorical kernel.
//
// Everything lives in a model space where each numeric dim is the unit interval:
//   kContinuous: x in [0, 1] (uniform params linearly, loguniform params in log space);
//   kDiscrete:   the index j in [0, size) of a grid cell [j/size, (j+1)/size];
//   kCategorical: the index k in [0, size) of a value.
// Rescaling a continuous dim multiplies l(x) and g(x) by the same constant, so TPE's
// l/g ratio is the same as in the original units.
#pragma once

#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "search/splitmix64.h"

namespace gpusweep::search {

enum class DimKind { kContinuous, kDiscrete, kCategorical };

struct ModelDim {
  DimKind kind = DimKind::kContinuous;
  std::uint64_t size = 0;  // kDiscrete: grid cells (>= 2); kCategorical: values (>= 2)
};

// How kernel widths are chosen for numeric dims.
enum class Bandwidth {
  kNeighbours,  // univariate: distance to the farther sorted neighbour (Optuna's default)
  kScott,       // multivariate: 0.2 * n^(-1/(dims+4)) of the range for every kernel
};

// The factor of a continuous kernel. Optuna 3.1 (to 3.4) leaves out the 1/sigma of the
// normal density (its _truncnorm.logpdf ignores `scale`; fixed in Optuna 3.5, optuna
// issue #5109), which favours wide kernels, the prior above all, over narrow ones.
enum class KernelDensity {
  kOptuna31,   // exp(-z^2/2) / (sqrt(2 pi) Z): Optuna 3.1's behaviour, the TPE default
  kNormalised  // exp(-z^2/2) / (sigma sqrt(2 pi) Z): a true density
};

struct ParzenOptions {
  double prior_weight = 1.0;  // > 0: weight of the prior kernel before normalisation
  bool consider_magic_clip = true;  // widths >= 1 / min(100, 1 + kernels)
  bool consider_endpoints = false;  // outermost widths may reach the domain's ends
  Bandwidth bandwidth = Bandwidth::kNeighbours;
  KernelDensity density = KernelDensity::kOptuna31;
};

// values[d][i]: value of dim d at point i (model space, see above).
using Columns = std::vector<std::vector<double>>;

// Optuna's default_weights(n): 1 for each of n observations when n < 25, else a linear
// ramp from 1/n to 1 over the n - 25 oldest followed by 1 for the 25 latest.
std::vector<double> DefaultWeights(int n);

class ParzenEstimator {
 public:
  // `observations` has one column per dim, each with the same n >= 0 points in
  // chronological order (older points get smaller weights once n >= 25). `weights`, when
  // not empty, has one entry > 0 per point and replaces DefaultWeights(n) (Optuna's
  // predetermined weights: multi-objective TPE's hypervolume contributions); the prior
  // keeps prior_weight and all are normalised together.
  ParzenEstimator(std::vector<ModelDim> dims, const Columns& observations,
                  const ParzenOptions& options, std::span<const double> weights = {});

  int kernels() const { return static_cast<int>(weights_.size()); }  // n + 1 (the prior)

  // `count` points drawn from the mixture: pick a kernel by weight, then each dim from
  // that kernel (truncated normal, rounded to its cell for discrete dims; categorical
  // kernels keep their observed value with probability 1/(1 + size*smoothing)).
  Columns Sample(SplitMix64& rng, int count) const;

  // Log density of each point: continuous dims w.r.t. length on [0, 1] (up to the
  // per-kernel factor of KernelDensity::kOptuna31), discrete and categorical dims as
  // probability masses. Cost: points x kernels x dims, one exp per
  // (point, kernel) and no allocation per kernel.
  std::vector<double> LogPdf(const Columns& points) const;

 private:
  struct DimKernels {
    ModelDim dim;
    std::vector<double> mu, sigma, inv_sigma;  // numeric dims, one per kernel
    std::vector<std::int64_t> category;        // categorical: observed index, -1 = prior
    double p_observed = 1, p_other = 0;        // categorical kernel probabilities
  };

  // The factor of kernel i of numeric dim d: 1 / Z for discrete dims (cell masses then
  // sum to 1), 1 / (sigma sqrt(2 pi) Z) for continuous ones (sigma left out with
  // KernelDensity::kOptuna31).
  double Normalisation(const DimKernels& d, int i) const;
  void BuildNumeric(DimKernels& d, const std::vector<double>& observed);
  void BuildCategorical(DimKernels& d, const std::vector<double>& observed) const;
  double SampleDim(const DimKernels& d, int kernel, SplitMix64& rng) const;
  // One-dim numeric estimators keep their kernels sorted by centre, in blocks, so that
  // LogPdf can skip blocks too far from a point to matter.
  static constexpr std::size_t kBlockSize = 16;
  struct Block {
    double lowest_mu, highest_mu;
    double inv_widest_sigma;
  };
  void SortKernelsIntoBlocks();
  void PadBlocks();  // after base_ is set
  double LogPdfSorted(double x) const;  // the one-dim numeric case
  // factor[i] *= probability of `value` under kernel i of a discrete/categorical dim.
  void MultiplyMass(const DimKernels& d, double value, std::vector<double>& factor) const;

  ParzenOptions options_;
  int observations_ = 0;
  std::vector<DimKernels> dims_;
  std::vector<Block> blocks_;       // one-dim numeric estimators only
  std::vector<std::uint32_t> order_;  // kernels by (centre, index): NeighbourSigmas' sort
  std::vector<double> weights_;     // normalised (prior last unless sorted into blocks)
  std::vector<double> cumulative_;  // running sums of weights_, for sampling
  std::vector<double> base_;        // exp(log_peak_i - max_log_peak_); blocks: padded with 0
  double max_log_peak_ = 0;         // max over kernels of log(weight * normalisation)
};

// TPE's acquisition step (Bergstra et al. 2011): of `candidates` points drawn from
// `below`, the one with the best log l(x) - log g(x) (the first on ties).
std::vector<double> BestCandidate(const ParzenEstimator& below, const ParzenEstimator& above,
                                  int candidates, SplitMix64& rng);

}  // namespace gpusweep::search
