// seeding_parser.h — `enqueue:`, `warm_start:` and `max_failures:`: what a sweep starts
// from and when it gives up (see docs/config.md).
#pragma once

#include <filesystem>
#include <optional>
#include <vector>

#include "config/yaml_reader.h"
#include "gpusweep/config.h"

namespace gpusweep::config_detail {

// `enqueue:` (null/absent: none): a list of mappings from parameter names to values,
// each value one the search space allows (FitToParam; stored as the parameter gives it).
// Errors are located at the entry, with did-you-mean for unknown names. For samplers
// with a trial count the enqueued settings count toward it, so it must hold them all.
Expected<std::vector<Params>> ParseEnqueue(const Value* value, const SearchSpace& space,
                                           const SamplerConfig& sampler);

// `warm_start: {from: DIR, defaults: {param: value}}`; DIR is resolved against
// `config_dir`; each default names a parameter of `space` and is a value it allows
// (located errors, did-you-mean for unknown names). Only the tpe sampler learns from
// earlier trials, so any other sampler is an error.
Expected<std::optional<WarmStartConfig>> ParseWarmStart(const Value* value,
                                                        const std::filesystem::path& config_dir,
                                                        SamplerKind sampler,
                                                        const SearchSpace& space);

// `max_failures: N` (N >= 1) or `{fraction: F, after: N}` (0 < F <= 1, N >= 1).
Expected<std::optional<FailureLimit>> ParseMaxFailures(const Value* value);

}  // namespace gpusweep::config_detail
