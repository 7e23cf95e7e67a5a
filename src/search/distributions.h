// distributions.h — the shapes beyond even draws (ParamSpec's distribution block):
// normal and log-normal (truncated to [low, high]), rounding to multiples of q, and
// weighted choices. Every sampler maps a parameter to a coordinate u in [0, 1] and back;
// for a normal or log-normal parameter that coordinate is its (truncated) CDF, so a
// uniform u gives exact draws (inverse-CDF sampling) and the model-based samplers'
// uniform prior over the coordinate is the distribution itself (docs/samplers.md).
#pragma once

#include <cstddef>
#include <optional>

#include "gpusweep/config.h"
#include "gpusweep/json.h"

namespace gpusweep::search {

// kNormal / kLogNormal: the value at coordinate u (clamped into (0, 1)): the truncated
// inverse CDF, x = mu + sigma * Phi^-1(Phi(a) + u (Phi(b) - Phi(a))) with a, b the
// standardised bounds (of log x for kLogNormal, then exp). Inside [low, high].
double NormalFromUnit(const ParamSpec& p, double u);

// The inverse: the truncated CDF of x, in [0, 1]; nullopt for x <= 0 on kLogNormal or a
// value that is not finite.
std::optional<double> NormalToUnit(const ParamSpec& p, double x);

// Whether p.q > 0 rounds to integers: q is an integer and, when clamped (q_clip), the
// bounds are integers too (or infinite).
bool RoundsToIntegers(const ParamSpec& p);

// x rounded to the nearest multiple of p.q (ties to even, as numpy's round), clamped
// into [low, high] when q_clip; a JSON integer where RoundsToIntegers. p.q == 0: x.
Json RoundToQ(const ParamSpec& p, double x);

// kChoice: the index of the value at coordinate u in [0, 1): the first whose cumulative
// weight exceeds u (equal weights when p.weights is empty).
std::size_t WeightedIndex(const ParamSpec& p, double u);

}  // namespace gpusweep::search
