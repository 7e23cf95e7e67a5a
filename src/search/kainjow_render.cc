#include "search/kainjow_render.h"

#include <exception>
#include <map>
#include <unordered_map>

#include <fmt/format.h>
#include <kainjow/mustache.hpp>

#include "gpusweep/render.h"

namespace gpusweep::search {
namespace {

using Data = kainjow::mustache::data;
using NodeIndex = std::unordered_map<const Data*, const Json*>;

constexpr char kVariableMarker = '\x1F';

Data ToData(const Json& value) {
  switch (value.type()) {
    case Json::value_t::object: {
      Data object(Data::type::object);
      for (const auto& [key, child] : value.items()) object[key] = ToData(child);
      return object;
    }
    case Json::value_t::array: {
      Data list(Data::type::list);
      for (const Json& item : value) list.push_back(ToData(item));
      return list;
    }
    case Json::value_t::string: return Data(value.get_ref<const std::string&>());
    case Json::value_t::boolean: return Data(value.get<bool>());
    case Json::value_t::null: return Data(false);
    default: return Data(FormatValue(value));  // numbers (and binary, never used)
  }
}

// Maps every node of the finished kainjow tree to its JSON node (addresses are stable:
// the tree is not modified after this).
void IndexNodes(const Data& data, const Json& value, NodeIndex& index) {
  index[&data] = &value;
  if (value.is_object()) {
    for (const auto& [key, child] : value.items()) IndexNodes(*data.get(key), child, index);
  } else if (value.is_array()) {
    for (std::size_t i = 0; i < value.size(); ++i)
      IndexNodes(data.list_value()[i], value[i], index);
  }
}

// kainjow's own context lookup, plus marked names rendering JSON text (see header).
class JsonContext final : public kainjow::mustache::basic_context<std::string> {
 public:
  JsonContext(const NodeIndex& index, ValueQuoting quoting) : index_(index), quoting_(quoting) {}

  void push(const Data* data) override { stack_.push_back(data); }
  void pop() override { stack_.pop_back(); }

  const Data* get(const std::string& name) const override {
    if (name.empty() || name.front() != kVariableMarker) return Lookup(name);
    const Data* node = Lookup(name.substr(1));
    if (node == nullptr) return nullptr;
    const auto cached = rendered_.find(node);
    if (cached != rendered_.end()) return &cached->second;
    const auto json = index_.find(node);
    if (json == index_.end()) return nullptr;
    std::string text = FormatValue(*json->second);
    if (quoting_ == ValueQuoting::kShell) text = ShellQuote(text);
    return &rendered_.emplace(node, Data(text)).first->second;
  }

  const Data* get_partial(const std::string&) const override { return nullptr; }

 private:
  // Innermost scope first; a dotted name must resolve completely in one scope.
  const Data* Lookup(const std::string& name) const {
    if (name == ".") return stack_.empty() ? nullptr : stack_.back();
    for (auto scope = stack_.rbegin(); scope != stack_.rend(); ++scope) {
      const Data* value = *scope;
      for (std::size_t start = 0; value != nullptr;) {
        const std::size_t dot = name.find('.', start);
        value = value->get(name.substr(start, dot - start));
        if (dot == std::string::npos) break;
        start = dot + 1;
      }
      if (value != nullptr) return value;
    }
    return nullptr;
  }

  const NodeIndex& index_;
  ValueQuoting quoting_;
  std::vector<const Data*> stack_;
  mutable std::map<const Data*, Data> rendered_;  // owns what get() returns for variables
};

std::string MarkVariableTags(std::string_view text, const std::vector<MustacheTag>& tags) {
  std::string marked;
  marked.reserve(text.size() + tags.size());
  std::size_t copied = 0;
  for (const MustacheTag& tag : tags) {
    if (tag.kind != TagKind::kVariable) continue;
    marked.append(text.substr(copied, tag.begin - copied));
    marked += tag.open;
    marked += kVariableMarker;
    marked += tag.name;
    marked += tag.close;
    copied = tag.end;
  }
  marked.append(text.substr(copied));
  return marked;
}

}  // namespace

std::string FormatValue(const Json& value) {
  if (value.is_string()) return value.get<std::string>();
  return value.dump(-1, ' ', false, Json::error_handler_t::replace);
}

Expected<std::string> RenderWithKainjow(std::string_view text,
                                        const std::vector<MustacheTag>& tags,
                                        const Json& context, ValueQuoting quoting,
                                        std::string_view what) {
  try {
    kainjow::mustache::mustache tmpl(MarkVariableTags(text, tags));
    if (!tmpl.is_valid())
      return Fail(ErrorCode::kInvalidConfig, fmt::format("{}: {}", what, tmpl.error_message()));
    tmpl.set_custom_escape([](const std::string& s) { return s; });
    const Data root = ToData(context);
    NodeIndex index;
    IndexNodes(root, context, index);
    JsonContext scope(index, quoting);
    scope.push(&root);
    std::string rendered = tmpl.render(scope);
    if (!tmpl.is_valid())
      return Fail(ErrorCode::kInvalidConfig, fmt::format("{}: {}", what, tmpl.error_message()));
    return rendered;
  } catch (const std::exception& e) {
    return Fail(ErrorCode::kInvalidConfig, fmt::format("{}: cannot render: {}", what, e.what()));
  }
}

}  // namespace gpusweep::search
