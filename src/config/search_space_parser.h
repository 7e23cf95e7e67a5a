// search_space_parser.h — the `search_space:` section.
//
// Contract: returns the parameters in declaration order, each validated for its type
// (see docs/config.md), or a located Error{kInvalidConfig}. Checks that apply to the
// sampler (a grid cannot enumerate uniform/loguniform) happen here too.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "config/nested_space.h"
#include "config/yaml_reader.h"
#include "gpusweep/config.h"

namespace gpusweep::config_detail {

// `value` is the node under `search_space:` (a mapping, or null for an empty space).
// Located warnings (a bare list under a sampler that draws trials) go to `warnings`.
// Groups, dotted names and conditions: nested_space.h.
Expected<SearchSpace> ParseSearchSpace(const Value& value, SamplerKind sampler,
                                       std::vector<std::string>& warnings);

// One leaf `name` (its full dotted name) from `entry` (its spec, or a scalar / list: a
// constant). A choice's values that are sub-spaces go to `branches` (one per value, in
// order; plain values with an empty sub-space). Without its conditions.
Expected<ParamSpec> ParseLeafParam(const Mapping::Entry& entry, const std::string& name,
                                   SamplerKind sampler, std::vector<ChoiceValue>& branches);

// Warns (into `warnings`) about a bare list as a constant under a sampler that draws.
void WarnAboutBareList(const Mapping::Entry& entry, SamplerKind sampler,
                       std::vector<std::string>& warnings);

// Whether `name` is a valid segment of a parameter name (a Mustache name).
bool IsParamNameSegment(std::string_view name);

// Number of distinct values of a parameter on a grid: choice -> values.size(),
// int -> (high - low) / step + 1, constant -> 1. 0 for uniform/loguniform.
std::uint64_t GridCardinality(const ParamSpec& param);

// Trials the sampler will run: random, sobol, tpe -> trials; grid -> its active
// combinations (product of cardinalities without conditions, ActiveGridSize) x
// repeats + enqueued settings, saturating at UINT64_MAX.
std::uint64_t TotalTrials(const SamplerConfig& sampler, const SearchSpace& space);

}  // namespace gpusweep::config_detail
