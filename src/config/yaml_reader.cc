#include "config/yaml_reader.h"

#include <fmt/format.h>

#include <climits>
#include <cmath>
#include <utility>

#include "common/did_you_mean.h"
#include "config/yaml_scalar.h"

namespace gpusweep::config_detail {

tl::unexpected<Error> LocatedError(const YamlSource& source, const YAML::Mark& mark,
                                   std::string_view key_path, std::string_view problem,
                                   std::string_view hint) {
  const int line = mark.is_null() ? 1 : mark.line + 1;
  const int column = mark.is_null() ? 1 : mark.column + 1;
  return Fail(ErrorCode::kInvalidConfig,
              fmt::format("{}:{}:{}: {}: {}{}{}", source.display_path, line, column,
                          key_path.empty() ? "(top level)" : key_path, problem,
                          hint.empty() ? "" : "; ", hint));
}

YamlPosition Value::position() const {
  if (mark_.is_null()) return {};
  return YamlPosition{mark_.line + 1, mark_.column + 1};
}

Value::Value(const YamlSource& source, YAML::Node node, std::string path)
    : Value(source, node, std::move(path), node.Mark()) {}

Value::Value(const YamlSource& source, YAML::Node node, std::string path, YAML::Mark mark)
    : source_(&source), node_(std::move(node)), path_(std::move(path)), mark_(mark) {}

int Value::line() const { return mark_.is_null() ? 0 : mark_.line + 1; }

Value Value::Child(YAML::Node child, std::string_view key) const {
  std::string path = path_.empty() ? std::string(key) : fmt::format("{}.{}", path_, key);
  return Value(*source_, std::move(child), std::move(path));
}

Value Value::Element(YAML::Node element, std::size_t index) const {
  return Value(*source_, std::move(element), fmt::format("{}[{}]", path_, index));
}

tl::unexpected<Error> Value::Invalid(std::string_view problem, std::string_view hint) const {
  return LocatedError(*source_, mark_, path_, problem, hint);
}

tl::unexpected<Error> Value::WrongType(std::string_view expected, std::string_view hint) const {
  return Invalid(fmt::format("found {}, expected {}", Describe(), expected), hint);
}

std::string Value::Describe() const {
  if (IsList()) return "a list";
  if (IsMapping()) return "a mapping";
  const Json value = ResolveScalar(node_);
  switch (value.type()) {
    case Json::value_t::null:
      return "null";
    case Json::value_t::boolean:
      return fmt::format("the boolean {}", value.get<bool>());
    case Json::value_t::string:
      return fmt::format("the string '{}'", value.get<std::string>());
    case Json::value_t::number_float:
      return fmt::format("the number {}", node_.Scalar());
    default:
      return fmt::format("the integer {}", node_.Scalar());
  }
}

Expected<Json> Value::ToJsonAtDepth(int depth, const Value& outermost) const {
  if (depth > kMaxJsonDepth)
    return outermost.Invalid(fmt::format("the value nests deeper than {} levels", kMaxJsonDepth),
                             "flatten it; an alias may not refer to the node that contains it");
  if (IsList()) {
    Json list = Json::array();
    for (std::size_t i = 0; i < node_.size(); ++i) {
      GS_ASSIGN_OR_RETURN(Json element, Element(node_[i], i).ToJsonAtDepth(depth + 1, outermost));
      list.push_back(std::move(element));
    }
    return list;
  }
  if (IsMapping()) {
    GS_ASSIGN_OR_RETURN(Mapping mapping, Mapping::From(*this));
    Json object = Json::object();
    for (const Mapping::Entry& entry : mapping.entries()) {
      GS_ASSIGN_OR_RETURN(object[entry.name], entry.value.ToJsonAtDepth(depth + 1, outermost));
    }
    return object;
  }
  Json value = ResolveScalar(node_);
  if (value.is_number_float() && !std::isfinite(value.get<double>()))
    return Invalid(fmt::format("{} cannot be stored as JSON", Describe()),
                   "use a finite number, or quote it to make it a string");
  if (value.is_string()) GS_TRY(RefuseNul());
  return value;
}

Status Value::RefuseNul() const {
  // A C string (argv, the environment) ends at a NUL: the value would reach the trial
  // silently cut short.
  if (node_.Scalar().find('\0') != std::string::npos)
    return Invalid("the string holds a NUL byte (\\0), which a command line or an "
                   "environment variable cannot carry",
                   "remove the \\0 escape from the string");
  return {};
}

Expected<std::string> Value::ToText() const {
  if (!IsScalar()) return WrongType("a string", "write a plain or quoted string");
  GS_TRY(RefuseNul());
  return node_.Scalar();
}

Expected<bool> Value::ToBool() const {
  const Json value = IsScalar() ? ResolveScalar(node_) : Json();
  if (!value.is_boolean()) return WrongType("a boolean", "use true or false");
  return value.get<bool>();
}

Expected<std::int64_t> Value::ToInt() const {
  const Json value = IsScalar() ? ResolveScalar(node_) : Json();
  if (!value.is_number_integer()) return WrongType("an integer", "write e.g. 1 or 16");
  return value.get<std::int64_t>();
}

Expected<int> Value::ToIntAtLeast(int min) const {
  const Json value = IsScalar() ? ResolveScalar(node_) : Json();
  const std::string expected = fmt::format("an integer >= {}", min);
  if (!value.is_number_integer()) return WrongType(expected, fmt::format("write e.g. {}", min + 1));
  const std::int64_t number = value.get<std::int64_t>();
  if (number < min || number > INT_MAX)
    return WrongType(expected, fmt::format("write an integer from {} to {}", min, INT_MAX));
  return static_cast<int>(number);
}

Expected<double> Value::ToNumber() const {
  const Json value = IsScalar() ? ResolveScalar(node_) : Json();
  if (!value.is_number() || !std::isfinite(value.get<double>()))
    return WrongType("a finite number", "write e.g. 0.5, 1e-3 or 10");
  return value.get<double>();
}

Expected<std::string_view> Value::ToEnum(std::span<const std::string_view> allowed) const {
  const std::string valid = fmt::format("valid values: {}", JoinNames(allowed));
  if (!IsScalar()) return WrongType(fmt::format("one of {}", JoinNames(allowed)), valid);
  const std::string& text = node_.Scalar();
  for (std::string_view candidate : allowed)
    if (text == candidate) return candidate;
  if (auto suggestion = ClosestMatch(text, allowed))
    return Invalid(fmt::format("unknown value '{}'; did you mean '{}'?", text, *suggestion), valid);
  return Invalid(fmt::format("unknown value '{}'", text), valid);
}

Expected<std::vector<Value>> Value::ToList() const {
  if (!IsList()) return WrongType("a list", "write [a, b] or one '- item' per line");
  std::vector<Value> elements;
  for (std::size_t i = 0; i < node_.size(); ++i) elements.push_back(Element(node_[i], i));
  return elements;
}

Expected<Mapping> Value::ToMapping() const { return Mapping::From(*this); }

Expected<Mapping> Mapping::From(const Value& value) {
  if (!value.IsMapping())
    return value.WrongType("a mapping", "write 'key: value' lines or {key: value}");
  Mapping mapping(value);
  for (auto it = value.node().begin(); it != value.node().end(); ++it) {
    const Value key(value.source(), it->first, value.path());
    if (!key.IsScalar()) return key.WrongType("a scalar key", "mapping keys must be plain strings");
    const std::string name = it->first.Scalar();
    if (const Value* first = mapping.Find(name))
      return key.Child(it->first, name)
          .Invalid(fmt::format("duplicate key '{}' (first at line {})", name, first->line()),
                   "keep only one of them");
    // yaml-cpp places an empty value ("key:" and nothing) at the next token, often on
    // a later line; the key is where the user should look.
    const bool empty_value = it->second.IsNull() && it->second.Mark().line > it->first.Mark().line;
    const Value child = value.Child(it->second, name);
    mapping.entries_.push_back(Entry{name, key.Child(it->first, name),
                                     Value(value.source(), it->second, child.path(),
                                           empty_value ? it->first.Mark() : it->second.Mark())});
  }
  return mapping;
}

Status Mapping::CheckKeys(std::span<const std::string_view> valid) const {
  for (const Entry& entry : entries_) {
    bool known = false;
    for (std::string_view candidate : valid) known = known || entry.name == candidate;
    if (known) continue;
    const std::string hint = fmt::format("valid keys: {}", JoinNames(valid));
    if (auto suggestion = ClosestMatch(entry.name, valid))
      return entry.key.Invalid(
          fmt::format("unknown key '{}'; did you mean '{}'?", entry.name, *suggestion), hint);
    return entry.key.Invalid(fmt::format("unknown key '{}'", entry.name), hint);
  }
  return {};
}

const Value* Mapping::Find(std::string_view key) const {
  for (const Entry& entry : entries_)
    if (entry.name == key) return &entry.value;
  return nullptr;
}

bool WritesKey(const Mapping& top, std::string_view section, std::string_view key) {
  const Value* at = top.Find(section);
  return at != nullptr && at->IsMapping() && at->node()[std::string(key)];
}

Value KeyOrSectionAt(const Mapping& top, std::string_view section, std::string_view key) {
  const Value* at = top.Find(section);
  if (at == nullptr) return top.self();
  if (at->IsMapping())
    if (const YAML::Node child = at->node()[std::string(key)]; child) return at->Child(child, key);
  return *at;
}

Expected<Value> Mapping::Require(std::string_view key, std::string_view hint) const {
  if (const Value* value = Find(key)) return *value;
  const Value missing = self_.Child(YAML::Node(), key);
  return LocatedError(self_.source(), self_.mark(), missing.path(),
                      fmt::format("missing required key '{}'", key), hint);
}

}  // namespace gpusweep::config_detail
