// json.h — the JSON value type used for parameters and metrics.
//
// ordered_json keeps object keys in insertion order, so a trial's params print and
// export in search-space declaration order.
#pragma once

#include <nlohmann/json.hpp>

namespace gpusweep {

using Json = nlohmann::ordered_json;

// A trial's parameter assignment: a JSON object, one key per search-space parameter
// (constants included), in declaration order. Values may be numbers, strings,
// booleans, lists or maps (choice values are arbitrary JSON).
using Params = Json;

}  // namespace gpusweep
