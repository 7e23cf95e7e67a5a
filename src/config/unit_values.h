// unit_values.h — YAML values with units: durations and memory sizes.
//
// Contract: a located Error{kInvalidConfig} (see yaml_reader.h) for anything that is not
// a valid value; the message says which forms are accepted.
#pragma once

#include <cstdint>

#include "config/yaml_reader.h"

namespace gpusweep::config_detail {

// Seconds from a YAML number (seconds, >= 0) or a duration string (see ParseDuration).
Expected<double> ToSeconds(const Value& value);

// Bytes from a YAML integer (bytes, >= 0) or a size string (see ParseByteSize).
Expected<std::uint64_t> ToByteSize(const Value& value);

}  // namespace gpusweep::config_detail
