// The Sobol sampler (contract in gpusweep/sampler.h): Boost.Random's Sobol engine
// (Joe & Kuo direction numbers) with a random digital shift (each coordinate's 64-bit
// integer XOR-ed with a per-dimension word drawn from the seed). A digital shift keeps
// the (t, m, s)-net structure, so every 2^m aligned block of points still fills the
// elementary intervals evenly, while different seeds give different point sets.
#include <boost/random/sobol.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <utility>
#include <vector>

#include "search/samplers.h"
#include "search/splitmix64.h"

namespace gpusweep::search {
namespace {

constexpr std::uint64_t kShiftSalt = 0x5EED50B01D1CE5ULL;

// Point `index` of the standard (unshifted) Sobol sequence, one 64-bit integer per dim:
// coordinate = value / 2^64. Index 0 is the origin; Boost's engine starts at index 1.
std::vector<std::uint64_t> SobolPoint(std::size_t dims, std::uint64_t index) {
  std::vector<std::uint64_t> point(dims, 0);
  if (index == 0) return point;
  boost::random::sobol engine(dims);
  engine.seed(index - 1);
  for (std::uint64_t& x : point) x = engine();
  return point;
}

}  // namespace

std::size_t MaxSobolDimensions() { return boost::random::default_sobol_table::max_dimension; }

SobolSampler::SobolSampler(SearchSpace space, int trials, std::uint64_t seed)
    : space_(std::move(space)), trials_(trials) {
  SplitMix64 stream(Mix64(seed ^ kShiftSalt));
  for (const ParamSpec& p : space_.params)
    if (p.kind != ParamKind::kConstant) shift_.push_back(stream.Next());
}

int SobolSampler::total_trials() const { return trials_; }

Suggestion SobolSampler::Suggest(int number, const std::vector<TrialRecord>&) const {
  const std::vector<std::uint64_t> point =
      shift_.empty() ? std::vector<std::uint64_t>{}
                     : SobolPoint(shift_.size(), static_cast<std::uint64_t>(number));
  Suggestion s{number, 0, Json::object()};
  std::size_t dim = 0;
  for (const ParamSpec& p : space_.params) {
    // An inactive leaf keeps its dimension (the others' coordinates do not move) and
    // is left out of the trial.
    const bool active = IsActive(p, s.params);
    if (p.kind == ParamKind::kConstant) {
      if (active) s.params[p.name] = p.constant;
      continue;
    }
    if (active) s.params[p.name] = ParamValueFromBits(p, point[dim] ^ shift_[dim]);
    ++dim;
  }
  return s;
}

}  // namespace gpusweep::search
