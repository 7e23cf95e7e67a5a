// ParzenEstimator::LogPdf: the inner loops of TPE, where almost all of its time goes.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>

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

namespace {

// Vectors of doubles (GCC/Clang vector extensions): Double2 is one SSE2 register, part
// of every x86-64; Double4 one AVX register.
using Double2 = double __attribute__((vector_size(16)));
using Int2 = std::int64_t __attribute__((vector_size(16)));
using Double4 = double __attribute__((vector_size(32)));
using Int4 = std::int64_t __attribute__((vector_size(32)));

// Kernels per step, each step's kernel j summed into lane j.
constexpr std::size_t kLanes = 8;

// Adds the terms base[i] * exp(-z_i^2 / 2), z_i = (x - mu[i]) * inv_sigma[i], of kernels
// [0, count) (count a multiple of kLanes) to lanes[i % kLanes], with vectors of type V
// (kLanes / lanes-per-vector independent chains per step). The exponential is
// ExpNonPositive's (tpe_math.h) with the same operations, so each term equals the
// scalar function's, and the lanes are summed in a fixed order: whichever V is used,
// the sums are the same to the last bit. Inlined into each instruction-set version.
template <typename V, typename I>
[[gnu::always_inline]] inline void AddGaussTermsWith(const double* mu, const double* inv_sigma,
                                                     const double* base, std::size_t count,
                                                     double x, double* lanes) {
  constexpr std::size_t kWidth = sizeof(V) / sizeof(double);
  constexpr std::size_t kChains = kLanes / kWidth;
  constexpr double kLog2e = 1.4426950408889634;
  constexpr double kLn2Hi = 6.93147180369123816490e-01;
  constexpr double kLn2Lo = 1.90821492927058770002e-10;
  constexpr double kRoundingShift = 0x1.8p52;
  constexpr std::int64_t kShiftBits = std::bit_cast<std::int64_t>(kRoundingShift);
  V lowest;
  for (std::size_t l = 0; l < kWidth; ++l) lowest[l] = -600.0;
  V sums[kChains];
  std::memcpy(sums, lanes, sizeof sums);
  for (std::size_t i = 0; i < count; i += kLanes) {
    for (std::size_t chain = 0; chain < kChains; ++chain) {
      const std::size_t at = i + chain * kWidth;
      V m, s, w;
      std::memcpy(&m, mu + at, sizeof m);
      std::memcpy(&s, inv_sigma + at, sizeof s);
      std::memcpy(&w, base + at, sizeof w);
      const V z = (x - m) * s;
      V e = -0.5 * z * z;
      e = e < lowest ? lowest : e;
      const V shifted = e * kLog2e + kRoundingShift;
      const V k = shifted - kRoundingShift;
      const V r = (e - k * kLn2Hi) - k * kLn2Lo;
      V p;
      ExpReduced(r, p);
      I k_bits;  // 2^k from k's bits in `shifted`
      std::memcpy(&k_bits, &shifted, sizeof k_bits);
      const I exponent = ((k_bits - kShiftBits) + 1023) << 52;
      V two_to_k;
      std::memcpy(&two_to_k, &exponent, sizeof two_to_k);
      sums[chain] += w * (p * two_to_k);
    }
  }
  std::memcpy(lanes, sums, sizeof sums);
}

void AddGaussTermsBaseline(const double* mu, const double* inv_sigma, const double* base,
                           std::size_t count, double x, double* lanes) {
  AddGaussTermsWith<Double2, Int2>(mu, inv_sigma, base, count, x, lanes);
}

#if defined(__x86_64__) && defined(__GNUC__)
// AVX2 where the CPU has it (checked at run time: the binary still runs on any x86-64).
// AVX2 does not enable FMA, so the roundings are those of the baseline version.
[[gnu::target("avx2")]] void AddGaussTermsAvx2(const double* mu, const double* inv_sigma,
                                               const double* base, std::size_t count,
                                               double x, double* lanes) {
  AddGaussTermsWith<Double4, Int4>(mu, inv_sigma, base, count, x, lanes);
}

void AddGaussTerms(const double* mu, const double* inv_sigma, const double* base,
                   std::size_t count, double x, double* lanes) {
  static const bool avx2 = __builtin_cpu_supports("avx2");
  if (avx2) {
    AddGaussTermsAvx2(mu, inv_sigma, base, count, x, lanes);
  } else {
    AddGaussTermsBaseline(mu, inv_sigma, base, count, x, lanes);
  }
}
#else
void AddGaussTerms(const double* mu, const double* inv_sigma, const double* base,
                   std::size_t count, double x, double* lanes) {
  AddGaussTermsBaseline(mu, inv_sigma, base, count, x, lanes);
}
#endif

}  // namespace

double ParzenEstimator::LogPdfSorted(double x) const {
  static_assert(kBlockSize % kLanes == 0);
  const DimKernels& d = dims_[0];
  const bool discrete = d.dim.kind == DimKind::kDiscrete;
  const double cells = static_cast<double>(d.dim.size);
  const double lo = discrete ? x / cells : x, hi = discrete ? (x + 1.0) / cells : x;
  const std::size_t kernels = weights_.size();
  double lanes[kLanes] = {};
  // Runs of consecutive blocks near x, each summed in one go (blocks are padded).
  std::size_t run_begin = 0, run_end = 0;
  const auto flush = [&] {
    if (run_end == run_begin) return;
    if (!discrete) {
      AddGaussTerms(d.mu.data() + run_begin, d.inv_sigma.data() + run_begin,
                    base_.data() + run_begin, run_end - run_begin, x, lanes);
    } else {
      for (std::size_t i = run_begin; i < std::min(run_end, kernels); ++i) {
        const double inv = d.inv_sigma[i];
        lanes[0] += base_[i] * GaussMass((lo - d.mu[i]) * inv, (hi - d.mu[i]) * inv);
      }
    }
  };
  for (std::size_t b = 0; b < blocks_.size(); ++b) {
    const Block& block = blocks_[b];
    const double gap = std::max({block.lowest_mu - hi, lo - block.highest_mu, 0.0});
    if (gap * block.inv_widest_sigma > kNegligibleSigmas) continue;
    const std::size_t begin = b * kBlockSize;
    if (begin != run_end) {
      flush();
      run_begin = begin;
    }
    run_end = begin + kBlockSize;
  }
  flush();
  double sum = 0;
  for (const double lane : lanes) sum += lane;
  return max_log_peak_ + std::log(sum);
}

}  // namespace gpusweep::search
