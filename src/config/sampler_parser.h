// sampler_parser.h — the `sampler:` section.
//
// Contract: returns a validated SamplerConfig (kind and the options of that kind) or a
// located Error{kInvalidConfig} naming the key, what is wrong and what would be valid
// (did-you-mean for unknown keys and sampler types).
#pragma once

#include "config/yaml_reader.h"
#include "gpusweep/config.h"

namespace gpusweep::config_detail {

// `value` is the node under `sampler:`.
Expected<SamplerConfig> ParseSampler(const Value& value);

}  // namespace gpusweep::config_detail
