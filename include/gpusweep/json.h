// json.h — the JSON value type used for parameters and metrics.
//
// ordered_json keeps object keys in insertion order, so a trial's params print and
// export in search-space declaration order.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace gpusweep {

using Json = nlohmann::ordered_json;

// A trial's parameter assignment: a JSON object, one key per search-space parameter
// (constants included), in declaration order. Values may be numbers, strings,
// booleans, lists or maps (choice values are arbitrary JSON).
using Params = Json;

// `value` as compact JSON text for a message or a listing. Bytes of a string that are
// not UTF-8 (a YAML scalar may hold any) become U+FFFD instead of making dump() throw.
inline std::string DumpForPeople(const Json& value) {
  return value.dump(-1, ' ', false, Json::error_handler_t::replace);
}

}  // namespace gpusweep
