// splitmix64.h — the SplitMix64 generator of Steele, Lea & Flood, "Fast splittable
// pseudorandom number generators" (OOPSLA 2014), written out here so that random
// samplers give the same numbers with every standard library (std:: distributions
// are implementation-defined).
#pragma once

#include <cstdint>

namespace gpusweep::search {

// The SplitMix64 output function: a bijective 64-bit mix (also a good hash).
constexpr std::uint64_t Mix64(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

// Maps 64 random bits to [0, 1): the top 53 bits scaled by 2^-53, exactly representable.
constexpr double UnitFromBits(std::uint64_t bits) {
  return static_cast<double>(bits >> 11) * 0x1.0p-53;
}

// Maps 64 random bits to [0, n) for n >= 1 (Lemire's multiply-shift without the
// rejection step: bias <= n / 2^64, irrelevant here, and one draw stays one draw).
constexpr std::uint64_t BelowFromBits(std::uint64_t bits, std::uint64_t n) {
  return static_cast<std::uint64_t>((static_cast<unsigned __int128>(bits) * n) >> 64);
}

class SplitMix64 {
 public:
  explicit constexpr SplitMix64(std::uint64_t state) : state_(state) {}

  constexpr std::uint64_t Next() {
    state_ += 0x9E3779B97F4A7C15ULL;  // the "golden gamma"
    return Mix64(state_);
  }

 private:
  std::uint64_t state_;
};

// The stream of random trial `number`: seeded by hashing (seed, number) so streams of
// neighbouring trials start at unrelated points of the 2^64 cycle and never overlap
// in practice (seeding with seed + number would make trial k+1 replay trial k shifted).
inline SplitMix64 TrialStream(std::uint64_t seed, std::uint64_t number) {
  return SplitMix64(Mix64(seed ^ Mix64(number + 0x632BE59BD9B4E019ULL)));
}

}  // namespace gpusweep::search
