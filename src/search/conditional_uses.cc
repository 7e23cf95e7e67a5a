// Plan-time check that templates read conditional leaves only where they are active
// (contract in gpusweep/render.h, CheckConditionalUses).
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "gpusweep/render.h"
#include "search/mustache_tags.h"

namespace gpusweep {
namespace {

// The leaf a name reads: the leaf itself or a part of its value (leaf.x), nullptr for
// anything else. With several leaves of the name (sub-spaces of one choice), the first.
// The longest such leaf name wins ("classifier.C" over the choice "classifier").
// `within`: the name was looked up inside the scope of the section named so, so only
// leaves beneath that name count (inside {{#C}} a name is not a part of C's number).
const ParamSpec* LeafRead(const SearchSpace& space, const std::string& name,
                          std::size_t within = 0) {
  const ParamSpec* read = nullptr;
  for (const ParamSpec& p : space.params) {
    if (within > 0 && p.name.size() <= within) continue;
    const bool reads = name == p.name || (name.size() > p.name.size() &&
                                          name.starts_with(p.name) && name[p.name.size()] == '.');
    if (reads && (read == nullptr || p.name.size() > read->name.size())) read = &p;
  }
  return read;
}

// Whether every trial that has `q` has `p`: q is p, or q's conditions include each of
// p's with a subset of its values (then p's conditions hold wherever q's do).
bool ActiveWherever(const ParamSpec& q, const ParamSpec& p) {
  if (q.name == p.name) return true;
  for (const ParamCondition& needed : p.when) {
    bool implied = false;
    for (const ParamCondition& have : q.when) {
      if (have.param != needed.param) continue;
      bool subset = true;
      for (const Json& v : have.values) {
        bool listed = false;
        for (const Json& w : needed.values) listed = listed || v == w;
        subset = subset && listed;
      }
      implied = implied || subset;
    }
    if (!implied) return false;
  }
  return true;
}

struct OpenSection {
  std::string name;  // full: the enclosing sections' names joined (their scopes)
  bool inverted = false;
};

// The full names a tag may mean, in Mustache's lookup order: inside the innermost
// section's scope first, then the enclosing ones', then as written.
// Each with the length of the section name it was looked up within (0: as written).
std::vector<std::pair<std::string, std::size_t>> FullNames(const std::string& name,
                                                           const std::vector<OpenSection>& open) {
  std::vector<std::pair<std::string, std::size_t>> names;
  for (auto s = open.rbegin(); s != open.rend(); ++s)
    if (!s->inverted) names.emplace_back(s->name + "." + name, s->name.size());
  names.emplace_back(name, 0);
  return names;
}

std::string ConditionText(const ParamSpec& p) {
  std::string text;
  for (const ParamCondition& c : p.when) {
    std::string values;
    for (const Json& v : c.values) values += (values.empty() ? "" : " or ") + DumpForPeople(v);
    text += fmt::format("{}{} is {}", text.empty() ? "" : " and ", c.param, values);
  }
  return text;
}

}  // namespace

std::vector<std::string> ConditionalNames(const SearchSpace& space) {
  std::vector<std::string> names;
  for (const ParamSpec& p : space.params)
    if (!p.when.empty()) names.push_back(p.name);
  return names;
}

Status CheckConditionalUses(std::string_view text, const SearchSpace& space,
                            std::string_view what) {
  if (!IsConditional(space)) return {};
  GS_ASSIGN_OR_RETURN(const std::vector<search::MustacheTag> tags,
                      search::ScanMustacheTags(text, what));
  std::vector<OpenSection> open;
  for (const search::MustacheTag& tag : tags) {
    const bool section = tag.kind == search::TagKind::kSectionBegin ||
                         tag.kind == search::TagKind::kInvertedBegin;
    if (tag.kind == search::TagKind::kSectionEnd) {
      open.pop_back();  // the scanner guarantees balance
      continue;
    }
    if (!section && tag.kind != search::TagKind::kVariable) continue;
    const auto names = FullNames(tag.name, open);
    const ParamSpec* read = nullptr;
    for (const auto& [name, within] : names)
      if (read == nullptr) read = LeafRead(space, name, within);
    if (section) {  // a section over the leaf tests it: allowed, and it guards what it holds
      open.push_back({read != nullptr ? read->name : names.front().first,
                      tag.kind == search::TagKind::kInvertedBegin});
      continue;
    }
    if (read == nullptr || read->when.empty()) continue;
    bool guarded = false;
    for (const OpenSection& s : open) {
      if (s.inverted) continue;
      const ParamSpec* q = LeafRead(space, s.name);
      guarded = guarded || (q != nullptr && ActiveWherever(*q, *read));
    }
    if (guarded) continue;
    return Fail(ErrorCode::kInvalidConfig,
                fmt::format("{}: {} reads '{}', which only some trials have (when {}); put it "
                            "inside a section that renders only where it is set: "
                            "{{{{#{}}}}}...{}...{{{{/{}}}}}",
                            search::TextLocation(what, text, tag.begin),
                            text.substr(tag.begin, tag.end - tag.begin), read->name,
                            ConditionText(*read), read->name,
                            text.substr(tag.begin, tag.end - tag.begin), read->name));
  }
  return {};
}

}  // namespace gpusweep
