// tpe_math.h — the numerical pieces the Parzen estimator needs: a fast exp, the mass
// of an interval (accurate in both tails), a standard normal draw
// and a draw from a normal truncated to an interval. Random numbers come from
// SplitMix64 so a TPE suggestion is a pure function of (seed, number, history).
#pragma once

#include <bit>
#include <cstdint>
#include <vector>

#include "search/splitmix64.h"

namespace gpusweep::search {

// exp(x) for the Parzen estimator's inner loop, where x <= 0 and most terms are tiny:
// glibc's exp takes a slow path (errno) for every underflow, which dominated the cost.
// Branch-free so the compiler can vectorise the loop. Arguments below -600 give e^-600
// instead of less: such terms never matter next to the prior kernel's, and staying far
// above the subnormal range keeps later multiplications at full speed. Cody-Waite
// reduction to |r| <= ln(2)/2 and a degree-13 Taylor polynomial: relative error < 1e-15.
// e^r for |r| <= ln(2)/2: the degree-13 Taylor polynomial by Horner's rule. `T` is
// double or a GCC vector of doubles (tpe_log_pdf.cc), so the scalar and the vector
// paths do the same operations and round alike. By reference: a 256-bit vector passed
// or returned by value would depend on the caller's AVX setting (-Wpsabi).
template <class T>
inline void ExpReduced(const T& r, T& p) {
  p = r * (1.0 / 6227020800.0) + 1.0 / 479001600.0;  // 1/13!, 1/12!
  p = p * r + 1.0 / 39916800.0;
  p = p * r + 1.0 / 3628800.0;
  p = p * r + 1.0 / 362880.0;
  p = p * r + 1.0 / 40320.0;
  p = p * r + 1.0 / 5040.0;
  p = p * r + 1.0 / 720.0;
  p = p * r + 1.0 / 120.0;
  p = p * r + 1.0 / 24.0;
  p = p * r + 1.0 / 6.0;
  p = p * r + 0.5;
  p = p * r + 1.0;
  p = p * r + 1.0;
}

inline double ExpNonPositive(double x) {
  constexpr double kLog2e = 1.4426950408889634;
  constexpr double kLn2Hi = 6.93147180369123816490e-01;  // ln 2 split for exact k*ln2
  constexpr double kLn2Lo = 1.90821492927058770002e-10;
  constexpr double kRoundingShift = 0x1.8p52;  // adding it rounds to an integer
  x = x < -600.0 ? -600.0 : x;
  const double shifted = x * kLog2e + kRoundingShift;
  const double k = shifted - kRoundingShift;
  const double r = (x - k * kLn2Hi) - k * kLn2Lo;
  double p;
  ExpReduced(r, p);
  // 2^k from k's bits in `shifted` (its low mantissa bits hold k as an integer).
  const std::int64_t k_int =
      std::bit_cast<std::int64_t>(shifted) - std::bit_cast<std::int64_t>(kRoundingShift);
  return p * std::bit_cast<double>(static_cast<std::uint64_t>(k_int + 1023) << 52);
}

// The indices 0..n-1 of `values` ordered by (value, index): what sorting the pairs
// (values[i], i) gives, -0.0 counting as 0.0. No NaN allowed. Inputs of 256 to 65536
// values are sorted by an LSD radix sort of the values' order-preserving bit patterns
// (O(n) instead of O(n log n) comparisons, which dominated TPE's model building).
std::vector<std::uint32_t> SortedOrder(const std::vector<double>& values);

// P(a <= Z <= b) for a standard normal Z and a <= b (0 beyond 37 sigma), computed
// from the tail nearer to the interval so that intervals far out in a tail keep their
// relative precision.
double GaussMass(double a, double b);

// A standard normal draw (Box-Muller, one output per call: simple and deterministic).
double StandardNormal(SplitMix64& rng);

// A draw from N(mu, sigma^2) conditioned on [low, high] (sigma > 0, mu in [low, high]),
// by rejection: with mu inside the interval at least ~1/3 of the draws are accepted.
// After 1000 rejections (practically impossible) returns mu clamped into the interval.
double TruncatedNormal(SplitMix64& rng, double mu, double sigma, double low, double high);

}  // namespace gpusweep::search
