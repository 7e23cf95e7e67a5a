#include "search/template_names.h"

#include <algorithm>
#include <optional>
#include <string>

#include <fmt/format.h>

#include "common/did_you_mean.h"

namespace gpusweep::search {
namespace {

// The values a scope may hold: one per list item when iterating, else one.
using Frame = std::vector<const Json*>;

constexpr std::size_t kMaxListedNames = 40;
constexpr int kMaxSuggestionDepth = 4;

std::vector<std::string> SplitName(const std::string& name) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  for (std::size_t dot; (dot = name.find('.', start)) != std::string::npos; start = dot + 1)
    parts.push_back(name.substr(start, dot - start));
  parts.push_back(name.substr(start));
  return parts;
}

const Json* Walk(const Json& scope, const std::vector<std::string>& parts) {
  const Json* value = &scope;
  for (const std::string& part : parts) {
    if (!value->is_object()) return nullptr;
    const auto it = value->find(part);
    if (it == value->end()) return nullptr;
    value = &*it;
  }
  return value;
}

void AddUnique(std::vector<std::string>& names, std::string name) {
  if (std::find(names.begin(), names.end(), name) == names.end())
    names.push_back(std::move(name));
}

void AddDottedPaths(const Json& value, const std::string& prefix, int depth,
                    std::vector<std::string>& out) {
  if (!value.is_object() || depth == 0) return;
  for (const auto& [key, child] : value.items()) {
    std::string path = prefix.empty() ? key : prefix + "." + key;
    AddDottedPaths(child, path, depth - 1, out);
    AddUnique(out, std::move(path));
  }
}

class NameChecker {
 public:
  NameChecker(std::string_view text, const Json& context, std::string_view what,
              std::span<const std::string> optional)
      : text_(text), what_(what), optional_(optional), frames_{Frame{&context}} {}

  Status Check(const MustacheTag& tag) {
    if (skipping_ > 0) {  // inside a section over an absent optional name: never rendered
      if (tag.kind == TagKind::kSectionBegin || tag.kind == TagKind::kInvertedBegin) ++skipping_;
      if (tag.kind == TagKind::kSectionEnd) --skipping_;
      return {};
    }
    switch (tag.kind) {
      case TagKind::kVariable:
        return Resolve(tag).has_value() ? Status{} : UnknownName(tag);
      case TagKind::kSectionBegin:
      case TagKind::kInvertedBegin: {
        std::optional<Frame> values = Resolve(tag);
        if (!values && IsOptional(tag.name)) {
          if (tag.kind == TagKind::kSectionBegin) {
            skipping_ = 1;
            return {};
          }
          frames_.push_back(Frame{&EmptyObject()});  // renders; names resolve outside
          return {};
        }
        if (!values) return UnknownName(tag);
        frames_.push_back(tag.kind == TagKind::kSectionBegin ? SectionScope(*values)
                                                             : std::move(*values));
        return {};
      }
      case TagKind::kSectionEnd:
        frames_.pop_back();  // the scanner guarantees balance
        return {};
      case TagKind::kComment:
      case TagKind::kSetDelimiter:
        return {};
    }
    return {};
  }

 private:
  // Every value `tag.name` can take, or nullopt if some render path would miss it.
  std::optional<Frame> Resolve(const MustacheTag& tag) const {
    if (tag.name == ".") return frames_.back();
    const std::vector<std::string> parts = SplitName(tag.name);
    Frame found;
    for (std::size_t depth = frames_.size(); depth-- > 0;) {
      bool missed = false;  // some scope value lacks it: the enclosing scope must have it
      for (const Json* scope : frames_[depth]) {
        if (const Json* v = Walk(*scope, parts)) found.push_back(v);
        else missed = true;
      }
      if (!missed) return found;
    }
    return std::nullopt;
  }

  // The scope inside {{#x}}: each item of a non-empty list, else the value itself.
  static Frame SectionScope(const Frame& values) {
    Frame scope;
    for (const Json* v : values) {
      if (v->is_array() && !v->empty()) {
        for (const Json& item : *v) scope.push_back(&item);
      } else {
        scope.push_back(v);
      }
    }
    return scope;
  }

  std::vector<std::string> VisibleNames() const {
    std::vector<std::string> names;
    for (auto frame = frames_.rbegin(); frame != frames_.rend(); ++frame)
      for (const Json* scope : *frame)
        if (scope->is_object())
          for (const auto& [key, unused] : scope->items()) AddUnique(names, key);
    return names;
  }

  std::optional<std::string> Suggest(const std::string& name) const {
    std::vector<std::string> candidates;
    for (auto frame = frames_.rbegin(); frame != frames_.rend(); ++frame)
      for (const Json* scope : *frame) AddDottedPaths(*scope, "", kMaxSuggestionDepth, candidates);
    std::vector<std::string_view> views(candidates.begin(), candidates.end());
    return ClosestMatch(name, views);
  }

  Status UnknownName(const MustacheTag& tag) const {
    std::vector<std::string> names = VisibleNames();
    std::string available = names.empty() ? "(nothing)" : "";
    for (std::size_t i = 0; i < names.size() && i < kMaxListedNames; ++i)
      available += (i ? ", " : "") + names[i];
    if (names.size() > kMaxListedNames) available += ", ...";
    std::string message = fmt::format(
        "{}: unknown name '{}' in {}; available: {}", TextLocation(what_, text_, tag.begin),
        tag.name, text_.substr(tag.begin, tag.end - tag.begin), available);
    if (auto suggestion = Suggest(tag.name)) message += fmt::format("; did you mean '{}'?", *suggestion);
    return Fail(ErrorCode::kInvalidConfig, std::move(message));
  }

  static const Json& EmptyObject() {
    static const Json empty = Json::object();
    return empty;
  }

  // A conditional leaf's name, as written or as read inside the sections of its groups.
  bool IsOptional(const std::string& name) const {
    for (const std::string& leaf : optional_)
      if (leaf == name || (leaf.size() > name.size() && leaf.ends_with(name) &&
                           leaf[leaf.size() - name.size() - 1] == '.'))
        return true;
    return false;
  }

  std::string_view text_, what_;
  std::span<const std::string> optional_;
  std::vector<Frame> frames_;  // innermost scope last
  int skipping_ = 0;           // depth inside a skipped section
};

}  // namespace

Status CheckTemplateNames(std::string_view text, const std::vector<MustacheTag>& tags,
                          const Json& context, std::string_view what,
                          std::span<const std::string> optional) {
  NameChecker checker(text, context, what, optional);
  for (const MustacheTag& tag : tags) GS_TRY(checker.Check(tag));
  return {};
}

}  // namespace gpusweep::search
