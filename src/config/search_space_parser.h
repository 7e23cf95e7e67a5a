// search_space_parser.h — the `search_space:` section.
//
// Contract: returns the parameters in declaration order, each validated for its type
// (see docs/config.md), or a located Error{kInvalidConfig}. Checks that apply to the
// sampler (a grid cannot enumerate uniform/loguniform) happen here too.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "config/yaml_reader.h"
#include "gpusweep/config.h"

namespace gpusweep::config_detail {

// `value` is the node under `search_space:` (a mapping, or null for an empty space).
// Located warnings (a bare list under a sampler that draws trials) go to `warnings`.
Expected<SearchSpace> ParseSearchSpace(const Value& value, SamplerKind sampler,
                                       std::vector<std::string>& warnings);

// Number of distinct values of a parameter on a grid: choice -> values.size(),
// int -> (high - low) / step + 1, constant -> 1. 0 for uniform/loguniform.
std::uint64_t GridCardinality(const ParamSpec& param);

// Trials the sampler will run: random, sobol, tpe -> trials; grid -> product of cardinalities x
// repeats + enqueued settings, saturating at UINT64_MAX.
std::uint64_t TotalTrials(const SamplerConfig& sampler, const SearchSpace& space);

}  // namespace gpusweep::config_detail
