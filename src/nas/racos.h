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
// "Better" is larger: callers negate scores of a minimized metric.
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

struct Scored {
  std::vector<int> code;
  double score = 0;  // larger is better
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
