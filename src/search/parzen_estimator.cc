#include "search/parzen_estimator.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>
#include <numeric>
#include <utility>

#include "search/tpe_math.h"

namespace gpusweep::search {
namespace {

constexpr double kPriorMu = 0.5;     // the prior kernel: centre of the unit interval
constexpr double kPriorSigma = 1.0;  // ... as wide as the whole range
constexpr double kMinSigmaWithoutClip = 1e-12;
constexpr double kScottMagnitude = 0.2;  // Optuna's SIGMA0_MAGNITUDE
constexpr double kSqrt2Pi = 2.50662827463100050242;

// Widths from the distance to the farther neighbour among the sorted kernel centres,
// with the domain's ends (0 and 1) as outer neighbours. Without consider_endpoints the
// outermost kernels use their inner neighbour only, as Optuna does.
// `order` receives the kernels sorted by (centre, index).
std::vector<double> NeighbourSigmas(const std::vector<double>& mu, bool consider_endpoints,
                                    std::vector<std::uint32_t>& order) {
  const std::size_t m = mu.size();
  order = SortedOrder(mu);
  std::vector<double> sorted(m + 2);
  sorted[0] = 0.0;
  for (std::size_t r = 0; r < m; ++r) sorted[r + 1] = mu[order[r]];
  sorted[m + 1] = 1.0;
  std::vector<double> sigma(m);
  for (std::size_t r = 0; r < m; ++r) {
    double width = std::max(sorted[r + 1] - sorted[r], sorted[r + 2] - sorted[r + 1]);
    if (!consider_endpoints && m >= 2) {
      if (r == 0) width = sorted[2] - sorted[1];
      if (r == m - 1) width = sorted[m] - sorted[m - 1];
    }
    sigma[order[r]] = width;
  }
  return sigma;
}

}  // namespace

std::vector<double> DefaultWeights(int n) {
  if (n <= 0) return {};
  if (n < 25) return std::vector<double>(static_cast<std::size_t>(n), 1.0);
  const int ramp = n - 25;
  std::vector<double> w(static_cast<std::size_t>(n), 1.0);
  const double first = 1.0 / n;
  for (int i = 0; i < ramp; ++i)  // numpy.linspace(1/n, 1, ramp)
    w[i] = ramp == 1 ? first : first + (1.0 - first) * i / (ramp - 1);
  return w;
}

ParzenEstimator::ParzenEstimator(std::vector<ModelDim> dims, const Columns& observations,
                                 const ParzenOptions& options, std::span<const double> weights)
    : options_(options),
      observations_(observations.empty() ? 0 : static_cast<int>(observations[0].size())) {
  const int kernels = observations_ + 1;
  assert(weights.empty() || weights.size() == static_cast<std::size_t>(observations_));
  weights_ = weights.empty() ? DefaultWeights(observations_)
                             : std::vector<double>(weights.begin(), weights.end());
  weights_.push_back(options_.prior_weight);
  const double total = std::accumulate(weights_.begin(), weights_.end(), 0.0);
  for (double& w : weights_) w /= total;

  dims_.resize(dims.size());
  for (std::size_t d = 0; d < dims.size(); ++d) {
    dims_[d].dim = dims[d];
    if (dims[d].kind == DimKind::kCategorical) {
      BuildCategorical(dims_[d], observations[d]);
    } else {
      BuildNumeric(dims_[d], observations[d]);
    }
  }
  if (dims_.size() == 1 && dims_[0].dim.kind != DimKind::kCategorical) SortKernelsIntoBlocks();
  cumulative_.resize(weights_.size());
  std::partial_sum(weights_.begin(), weights_.end(), cumulative_.begin());
  // Each kernel's peak: its weight times its normalisation in every numeric dim. In the
  // linear domain (fast); in the log domain if that under- or overflows (many dims).
  std::vector<double> peak(weights_);
  for (const DimKernels& k : dims_)
    if (k.dim.kind != DimKind::kCategorical)
      for (int i = 0; i < kernels; ++i) peak[i] *= Normalisation(k, i);
  const auto [low, high] = std::minmax_element(peak.begin(), peak.end());
  base_.resize(kernels);
  if (*low > 0 && std::isfinite(*high)) {
    max_log_peak_ = std::log(*high);
    for (int i = 0; i < kernels; ++i) base_[i] = peak[i] / *high;
    PadBlocks();
    return;
  }
  std::vector<double> log_peak(kernels);
  for (int i = 0; i < kernels; ++i) log_peak[i] = std::log(weights_[i]);
  for (const DimKernels& k : dims_)
    if (k.dim.kind != DimKind::kCategorical)
      for (int i = 0; i < kernels; ++i) log_peak[i] += std::log(Normalisation(k, i));
  max_log_peak_ = *std::max_element(log_peak.begin(), log_peak.end());
  for (int i = 0; i < kernels; ++i) base_[i] = std::exp(log_peak[i] - max_log_peak_);
  PadBlocks();
}

void ParzenEstimator::PadBlocks() {
  if (blocks_.empty()) return;
  // Kernels with weight 0 (base 0, inv_sigma 0: a term of exactly 0 * e^0) fill the
  // last block, so that LogPdfSorted works on whole blocks only.
  const std::size_t padded = blocks_.size() * kBlockSize;
  DimKernels& d = dims_[0];
  d.mu.resize(padded, 0.0);
  d.sigma.resize(padded, 1.0);
  d.inv_sigma.resize(padded, 0.0);
  base_.resize(padded, 0.0);
}

void ParzenEstimator::SortKernelsIntoBlocks() {
  DimKernels& d = dims_[0];
  const std::size_t m = weights_.size();
  if (order_.size() != m) order_ = SortedOrder(d.mu);  // not sorted yet by NeighbourSigmas
  const auto permute = [&](std::vector<double>& v) {
    std::vector<double> sorted(m);
    for (std::size_t r = 0; r < m; ++r) sorted[r] = v[order_[r]];
    v = std::move(sorted);
  };
  permute(weights_);
  permute(d.mu);
  permute(d.sigma);
  permute(d.inv_sigma);
  for (std::size_t begin = 0; begin < m; begin += kBlockSize) {
    const std::size_t end = std::min(m, begin + kBlockSize);
    const double widest = *std::max_element(d.sigma.begin() + begin, d.sigma.begin() + end);
    blocks_.push_back({d.mu[begin], d.mu[end - 1], 1.0 / widest});
  }
}

double ParzenEstimator::Normalisation(const DimKernels& d, int i) const {
  // Truncation to [0, 1]: divide by the kernel's mass inside the domain.
  const double inside = GaussMass(-d.mu[i] * d.inv_sigma[i], (1 - d.mu[i]) * d.inv_sigma[i]);
  if (d.dim.kind == DimKind::kDiscrete) return 1.0 / inside;  // masses, not densities
  const double scale = options_.density == KernelDensity::kNormalised ? d.inv_sigma[i] : 1.0;
  return scale / (kSqrt2Pi * inside);
}

void ParzenEstimator::BuildNumeric(DimKernels& d, const std::vector<double>& observed) {
  const int n = observations_;
  d.mu.resize(n + 1);
  const double cells = static_cast<double>(d.dim.size);
  for (int i = 0; i < n; ++i)  // discrete: the centre of the observed cell
    d.mu[i] = d.dim.kind == DimKind::kDiscrete ? (observed[i] + 0.5) / cells : observed[i];
  d.mu[n] = kPriorMu;

  if (options_.bandwidth == Bandwidth::kNeighbours) {
    d.sigma = NeighbourSigmas(d.mu, options_.consider_endpoints, order_);
  } else {
    const double dims = static_cast<double>(dims_.size());
    const double scott = kScottMagnitude * std::pow(std::max(n, 1), -1.0 / (dims + 4.0));
    d.sigma.assign(n + 1, scott);
  }
  const double min_sigma = options_.consider_magic_clip
                               ? 1.0 / std::min(100.0, 1.0 + static_cast<double>(n + 1))
                               : kMinSigmaWithoutClip;
  for (double& s : d.sigma) s = std::clamp(s, min_sigma, 1.0);
  d.sigma[n] = kPriorSigma;
  d.inv_sigma.resize(n + 1);
  for (int i = 0; i <= n; ++i) d.inv_sigma[i] = 1.0 / d.sigma[i];
}

void ParzenEstimator::BuildCategorical(DimKernels& d, const std::vector<double>& observed) const {
  const int n = observations_;
  d.category.resize(n + 1);
  for (int i = 0; i < n; ++i) d.category[i] = static_cast<std::int64_t>(observed[i]);
  d.category[n] = -1;
  // Each observation's kernel: smoothing = prior_weight / (n + 1) on every value, plus 1
  // on the observed one, normalised (Optuna's weighted counts with a prior).
  const double smoothing = options_.prior_weight / (n + 1);
  const double row = static_cast<double>(d.dim.size) * smoothing + 1.0;
  d.p_observed = (smoothing + 1.0) / row;
  d.p_other = smoothing / row;
}

double ParzenEstimator::SampleDim(const DimKernels& d, int kernel, SplitMix64& rng) const {
  const std::uint64_t size = d.dim.size;
  if (d.dim.kind == DimKind::kCategorical) {
    const std::int64_t observed = d.category[kernel];
    const double keep = d.p_observed - d.p_other;  // the point mass on the observed value
    if (observed >= 0 && UnitFromBits(rng.Next()) < keep) return static_cast<double>(observed);
    return static_cast<double>(BelowFromBits(rng.Next(), size));
  }
  const double x = TruncatedNormal(rng, d.mu[kernel], d.sigma[kernel], 0.0, 1.0);
  if (d.dim.kind == DimKind::kContinuous) return x;
  const double cell = std::floor(x * static_cast<double>(size));
  return std::min(cell, static_cast<double>(size - 1));
}

Columns ParzenEstimator::Sample(SplitMix64& rng, int count) const {
  Columns out(dims_.size(), std::vector<double>(static_cast<std::size_t>(count)));
  for (int c = 0; c < count; ++c) {
    const double u = UnitFromBits(rng.Next()) * cumulative_.back();
    const auto it = std::upper_bound(cumulative_.begin(), cumulative_.end(), u);
    const int kernel =
        std::min(static_cast<int>(it - cumulative_.begin()), kernels() - 1);
    for (std::size_t d = 0; d < dims_.size(); ++d) out[d][c] = SampleDim(dims_[d], kernel, rng);
  }
  return out;
}

std::vector<double> BestCandidate(const ParzenEstimator& below, const ParzenEstimator& above,
                                  int candidates, SplitMix64& rng) {
  const Columns drawn = below.Sample(rng, candidates);
  const std::vector<double> log_l = below.LogPdf(drawn);
  const std::vector<double> log_g = above.LogPdf(drawn);
  std::size_t best = 0;
  for (std::size_t c = 1; c < log_l.size(); ++c)
    if (log_l[c] - log_g[c] > log_l[best] - log_g[best]) best = c;
  std::vector<double> point(drawn.size());
  for (std::size_t d = 0; d < drawn.size(); ++d) point[d] = drawn[d][best];
  return point;
}

}  // namespace gpusweep::search
