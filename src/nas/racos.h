// racos.h — RACOS / SRACOS over a discrete space: the next sample from the scores seen.
//
// Source: Yu, Qian, Hu, "Derivative-Free Optimization via Classification", AAAI 2016
// (RACOS), and Hu, Qian, Yu, "Sequential Classification-Based Optimization for Direct
// Policy Search", AAAI 2017 (SRACOS, the sequential variant used here).
//
// Contract: pure. Next(history, stream) is a function of the sizes, the config, the
// history (in order) and the random stream; nothing else. The state is rebuilt from the
// history every time, so a replayed journal gives the same state:
//  - the first sample_size + positive_num samples: the `positive_num` best are the
//    positives (ties: the earlier), the rest the negatives;
//  - then each sample better than the worst positive replaces it and the demoted one
//    becomes a negative; any other sample becomes a negative; a new negative replaces
//    the oldest (so the negative set moves on with the search: the seed's never did).
// With fewer than sample_size + positive_num samples, a sample is uniform. Otherwise,
// with probability rand_probability, a positive x+ is drawn and a region around it is
// shrunk away from the negatives: while a negative lies in the region, a dimension on
// which it differs from x+ (and which is still free) is fixed to x+'s value; then more
// dimensions are fixed until at most `uncertain_bit` relevant ones stay free; the sample
// is x+ with the free dimensions drawn uniformly. Otherwise the sample is uniform.
// "Better" is larger (Score's order): callers negate scores of a minimized metric, and
// under constraints every feasible score is better than every infeasible one.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "gpusweep/nas_config.h"

namespace gpusweep::nas {

// SplitMix64 (Steele, Lea & Flood, OOPSLA 2014): the same numbers on every platform.
class RandomStream {
 public:
  RandomStream(std::uint64_t seed, std::uint64_t stream);
  std::uint64_t Next();
  double Unit();                   // [0, 1)
  int Below(int n);                // [0, n), n >= 1

 private:
  std::uint64_t state_;
};

// A NAS evaluation's score. A larger `value` is better (callers negate a minimised
// metric). With constraints (`constraints:`; Deb, "An efficient constraint handling
// method for genetic algorithms", CMAME 186, 2000, the rule objective.h's
// ConstrainedCompare applies to sweeps): a feasible score (violation 0) is better than
// every infeasible one, of two infeasible ones the smaller violation is better, and
// equal violations compare by value, so the order is total and a round always has a
// ranking. Without constraints every violation is 0 and this is the order of `value`.
struct Score {
  double value = 0;
  double violation = 0;  // >= 0; +inf when a constraint's metric is missing (or it failed)

  constexpr Score() = default;
  // Implicit: a bare number is a feasible score.
  constexpr Score(double value_, double violation_ = 0) : value(value_), violation(violation_) {}

  bool feasible() const { return violation == 0; }
  friend constexpr bool operator<(const Score& a, const Score& b) {  // a is worse than b
    if (a.violation != b.violation) return a.violation > b.violation;
    return a.value < b.value;
  }
  friend constexpr bool operator>(const Score& a, const Score& b) { return b < a; }
  friend constexpr bool operator==(const Score& a, const Score& b) {
    return a.violation == b.violation && a.value == b.value;
  }
};

struct Scored {
  std::vector<int> code;
  Score score;  // larger is better
};

class Racos {
 public:
  // sizes[d]: number of values of dimension d (>= 1). `relevant`: which dimensions
  // matter for a code (others are never left free); null = all.
  Racos(std::vector<int> sizes, RacosConfig config,
        std::function<std::vector<bool>(const std::vector<int>&)> relevant = nullptr);

  std::vector<int> Next(const std::vector<Scored>& history, RandomStream& stream) const;
  std::vector<int> Uniform(RandomStream& stream) const;

  // The classification state (indices into history), for tests and `status`.
  std::vector<int> Positives(const std::vector<Scored>& history) const;
  std::vector<int> Negatives(const std::vector<Scored>& history) const;

 private:
  struct Sets {
    std::vector<int> positives;  // indices into history
    std::vector<int> negatives;  // oldest first
  };
  Sets Classify(const std::vector<Scored>& history) const;
  std::vector<int> InRegion(const std::vector<Scored>& history, RandomStream& stream) const;

  std::vector<int> sizes_;
  RacosConfig config_;
  std::function<std::vector<bool>(const std::vector<int>&)> relevant_;
};

}  // namespace gpusweep::nas
