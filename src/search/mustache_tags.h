// mustache_tags.h — a scanner that lists the tags of a Mustache template.
//
// It follows the tokenisation of kainjow mustache (the renderer we use) exactly: a tag
// starts at the next opening delimiter, a triple mustache {{{x}}} is recognised only
// with the default delimiters, contents are trimmed, "=" starts a set-delimiter tag.
// rendering needs it to check names statically (kainjow keeps its parse tree private)
// and to rewrite variable tags (see render.cc).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "gpusweep/status.h"

namespace gpusweep::search {

enum class TagKind {
  kVariable,       // {{x}}, {{{x}}}, {{&x}}
  kSectionBegin,   // {{#x}}
  kInvertedBegin,  // {{^x}}
  kSectionEnd,     // {{/x}}
  kComment,        // {{! ...}}
  kSetDelimiter,   // {{=<% %>=}}
};

struct MustacheTag {
  TagKind kind = TagKind::kVariable;
  std::string name;         // trimmed, sigil removed; empty for comments/set-delimiter
  std::size_t begin = 0;    // offset of the opening delimiter in the template
  std::size_t end = 0;      // offset just past the closing delimiter
  std::string open, close;  // the delimiters in effect before this tag (not "{{{")
};

// Scans `text`. Error{kInvalidConfig} "<what>:<line>:<col>: ..." on an unclosed tag, an
// unclosed or mismatched section, an empty or malformed name ("a..b"), a bad
// set-delimiter tag or a partial ({{>x}}, unsupported).
Expected<std::vector<MustacheTag>> ScanMustacheTags(std::string_view text,
                                                    std::string_view what);

// "<what>:<line>:<column>" of byte `offset` in `text` (1-based; columns count bytes).
std::string TextLocation(std::string_view what, std::string_view text, std::size_t offset);

}  // namespace gpusweep::search
