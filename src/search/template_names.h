// template_names.h — static check that a Mustache template only names what exists.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "gpusweep/json.h"
#include "gpusweep/status.h"
#include "search/mustache_tags.h"

namespace gpusweep::search {

// Checks every variable and section tag of `tags` (scanned from `text`) against
// `context`, for every way the template could render: names inside sections are
// checked even when the section would be skipped, and inside a section over a list the
// name must resolve for EVERY item (falling back to the enclosing scopes as kainjow
// does). Lookup mirrors kainjow: innermost scope first; a dotted name a.b.c must
// resolve completely inside one scope. Error{kInvalidConfig}:
// "<what>:<line>:<col>: unknown name 'lr2' in {{lr2}}; available: lr, ...; did you
// mean 'lr'?"
// `optional`: names that may be missing (conditional leaves, render.h): a section over
// a missing one is skipped unchecked, an inverted one renders in the enclosing scope.
Status CheckTemplateNames(std::string_view text, const std::vector<MustacheTag>& tags,
                          const Json& context, std::string_view what,
                          std::span<const std::string> optional = {});

}  // namespace gpusweep::search
