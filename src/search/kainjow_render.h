// kainjow_render.h — renders a checked template with kainjow mustache.
//
// How JSON reaches kainjow: maps become kainjow objects (dotted access and section
// scopes work natively), lists become kainjow lists (sections iterate), strings and
// numbers become strings (numbers as JSON prints them), booleans stay booleans, null
// becomes false. kainjow renders nothing for a variable tag whose value is an object
// or list, and its context cannot tell a variable lookup from a section lookup, so
// before rendering every variable tag {{x}} / {{{x}}} / {{&x}} is rewritten to
// {{<US>x}} (US = '\x1F', which no name contains). Our basic_context resolves a name
// with that marker like the plain name, then returns the JSON node's text instead:
// the raw string, or compact JSON for numbers, booleans, null, lists and maps
// (optionally shell-quoted). Section tags keep their names and get kainjow data.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "gpusweep/json.h"
#include "gpusweep/status.h"
#include "search/mustache_tags.h"

namespace gpusweep::search {

enum class ValueQuoting {
  kRaw,    // substitute values as they are
  kShell,  // substitute each value POSIX single-quoted
};

// The text a variable tag renders for `value`: strings raw, anything else compact
// JSON (invalid UTF-8 replaced by U+FFFD rather than failing).
std::string FormatValue(const Json& value);

// Renders `text` (whose tags are `tags`, from ScanMustacheTags) with `context`.
// Error{kInvalidConfig} "<what>: ..." if kainjow rejects the template.
Expected<std::string> RenderWithKainjow(std::string_view text,
                                        const std::vector<MustacheTag>& tags,
                                        const Json& context, ValueQuoting quoting,
                                        std::string_view what);

}  // namespace gpusweep::search
