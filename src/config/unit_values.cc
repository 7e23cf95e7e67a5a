#include "config/unit_values.h"

namespace gpusweep::config_detail {

Expected<double> ToSeconds(const Value& value) {
  const Json json = value.IsScalar() ? value.ToJson().value_or(Json()) : Json();
  if (json.is_number()) {
    if (json.get<double>() < 0)
      return value.Invalid("the duration is negative", "use seconds >= 0");
    return json.get<double>();
  }
  if (!json.is_string()) return value.WrongType("a duration", "write e.g. 90, 20m or 1h30m");
  auto seconds = ParseDuration(json.get<std::string>());
  if (!seconds) return value.Invalid(seconds.error().message, "");
  return *seconds;
}

Expected<std::uint64_t> ToByteSize(const Value& value) {
  const Json json = value.IsScalar() ? value.ToJson().value_or(Json()) : Json();
  if (json.is_number_unsigned()) return json.get<std::uint64_t>();
  if (json.is_number_integer()) {
    if (json.get<std::int64_t>() < 0)
      return value.Invalid("the memory size is negative", "use bytes >= 0, or e.g. 10GiB");
    return static_cast<std::uint64_t>(json.get<std::int64_t>());
  }
  if (!json.is_string())
    return value.WrongType("a memory size", "write e.g. 10GiB, 512MiB or a number of bytes");
  auto bytes = ParseByteSize(json.get<std::string>());
  if (!bytes) return value.Invalid(bytes.error().message, "");
  return *bytes;
}

}  // namespace gpusweep::config_detail
