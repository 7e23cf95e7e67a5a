#include "common/json_limits.h"

#include <fmt/format.h>

namespace gpusweep {

int JsonNestingDepth(std::string_view text, int stop_above) {
  int depth = 0;
  int deepest = 0;
  bool in_string = false;
  bool escaped = false;
  for (const char c : text) {
    if (in_string) {
      if (escaped) escaped = false;
      else if (c == '\\') escaped = true;
      else if (c == '"') in_string = false;
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > deepest) deepest = depth;
      if (deepest > stop_above) return deepest;
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return deepest;
}

Expected<Json> ParseJsonWithDepthLimit(std::string_view text, int max_depth) {
  if (JsonNestingDepth(text, max_depth) > max_depth)
    return Fail(ErrorCode::kInvalidArgument,
                fmt::format("nested more than {} levels deep", max_depth));
  Json value = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (value.is_discarded()) return Fail(ErrorCode::kInvalidArgument, "not valid JSON");
  return value;
}

}  // namespace gpusweep
