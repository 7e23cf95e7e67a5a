// ParzenEstimator::LogPdf: the inner loops of TPE, where almost all of its time goes.
#include <algorithm>
#include <cmath>

#include "search/parzen_estimator.h"
#include "search/tpe_math.h"

namespace gpusweep::search {
namespace {

// Kernels whose centre is more than this many of their widths away from a point add
// less than e^-72 of their peak there. Every peak is at most the largest, and the prior
// kernel alone contributes far more than 1e-20 of the largest peak, so skipping them
// changes a log density by less than 1e-10 even with a million kernels.
constexpr double kNegligibleSigmas = 12.0;

}  // namespace

void ParzenEstimator::MultiplyMass(const DimKernels& d, double value,
                                   std::vector<double>& factor) const {
  const int kernels = this->kernels();
  if (d.dim.kind == DimKind::kCategorical) {
    const auto k = static_cast<std::int64_t>(value);
    const double prior = 1.0 / static_cast<double>(d.dim.size);
    for (int i = 0; i < kernels; ++i)
      factor[i] *= d.category[i] < 0 ? prior : (d.category[i] == k ? d.p_observed : d.p_other);
    return;
  }
  const double cells = static_cast<double>(d.dim.size);
  const double lo = value / cells, hi = (value + 1.0) / cells;
  for (int i = 0; i < kernels; ++i)
    factor[i] *= GaussMass((lo - d.mu[i]) * d.inv_sigma[i], (hi - d.mu[i]) * d.inv_sigma[i]);
}

std::vector<double> ParzenEstimator::LogPdf(const Columns& points) const {
  const std::size_t count = points.empty() ? 0 : points[0].size();
  const int kernels = this->kernels();
  std::vector<double> out(count);
  if (!blocks_.empty()) {
    for (std::size_t c = 0; c < count; ++c) out[c] = LogPdfSorted(points[0][c]);
    return out;
  }
  std::vector<double> squares(kernels), factor;
  bool has_mass_dims = false;
  for (const DimKernels& d : dims_) has_mass_dims |= d.dim.kind != DimKind::kContinuous;
  for (std::size_t c = 0; c < count; ++c) {
    std::fill(squares.begin(), squares.end(), 0.0);
    for (std::size_t d = 0; d < dims_.size(); ++d) {
      const DimKernels& k = dims_[d];
      if (k.dim.kind != DimKind::kContinuous) continue;
      const double x = points[d][c];
      const double* mu = k.mu.data();
      const double* inv_sigma = k.inv_sigma.data();
      for (int i = 0; i < kernels; ++i) {
        const double z = (x - mu[i]) * inv_sigma[i];
        squares[i] += z * z;
      }
    }
    if (has_mass_dims) {
      factor = base_;
      for (std::size_t d = 0; d < dims_.size(); ++d)
        if (dims_[d].dim.kind != DimKind::kContinuous) MultiplyMass(dims_[d], points[d][c], factor);
    }
    const std::vector<double>& scale = has_mass_dims ? factor : base_;
    double sum = 0;
    const double* factor_of = scale.data();
    double* term = squares.data();  // reused: squares become the kernels' terms
    for (int i = 0; i < kernels; ++i) term[i] = factor_of[i] * ExpNonPositive(-0.5 * term[i]);
    for (int i = 0; i < kernels; ++i) sum += term[i];
    out[c] = max_log_peak_ + std::log(sum);
  }
  return out;
}

double ParzenEstimator::LogPdfSorted(double x) const {
  const DimKernels& d = dims_[0];
  const bool discrete = d.dim.kind == DimKind::kDiscrete;
  const double cells = static_cast<double>(d.dim.size);
  const double lo = discrete ? x / cells : x, hi = discrete ? (x + 1.0) / cells : x;
  const std::size_t kernels = weights_.size();
  double sum = 0;
  for (std::size_t b = 0; b < blocks_.size(); ++b) {
    const Block& block = blocks_[b];
    const double gap = std::max({block.lowest_mu - hi, lo - block.highest_mu, 0.0});
    if (gap * block.inv_widest_sigma > kNegligibleSigmas) continue;
    const std::size_t end = std::min(kernels, (b + 1) * kBlockSize);
    for (std::size_t i = b * kBlockSize; i < end; ++i) {
      if (discrete) {
        const double inv = d.inv_sigma[i];
        sum += base_[i] * GaussMass((lo - d.mu[i]) * inv, (hi - d.mu[i]) * inv);
      } else {
        const double z = (x - d.mu[i]) * d.inv_sigma[i];
        sum += base_[i] * ExpNonPositive(-0.5 * z * z);
      }
    }
  }
  return max_log_peak_ + std::log(sum);
}

}  // namespace gpusweep::search
