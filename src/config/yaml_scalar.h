// yaml_scalar.h — YAML 1.2 core-schema resolution of scalars to JSON values.
//
// yaml-cpp hands every scalar over as text; this decides what it means. Plain
// (unquoted) scalars resolve like YAML 1.2's core schema: integers (decimal, 0x, 0o)
// stay integers, floats ("1.0e-4", "3.", ".5", ".inf") become doubles, true/false
// (also True/TRUE/...) booleans, null/~/empty null; anything else is a string.
// Quoted and block scalars (yaml-cpp tag "!") and `!!str` scalars are always strings,
// so "8" stays the string "8".
#pragma once

#include <yaml-cpp/yaml.h>

#include <string_view>

#include "gpusweep/json.h"

namespace gpusweep::config_detail {

// The JSON value of a plain (unquoted, untagged) scalar's text. Non-finite floats
// (.inf, .nan) come back as doubles; callers reject them where JSON needs finite.
Json ResolvePlainScalar(std::string_view text);

// The JSON value of a yaml-cpp scalar or null node (respects quoting via Tag()).
// Precondition: node.IsScalar() || node.IsNull().
Json ResolveScalar(const YAML::Node& node);

}  // namespace gpusweep::config_detail
