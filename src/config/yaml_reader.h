// yaml_reader.h — typed access to YAML nodes that fails with located messages.
//
// Contract: every failure is Error{kInvalidConfig} formatted as
//   <file>:<line>:<column>: <key.path>: <what is wrong>; <what would be valid>
// with 1-based line and column taken from yaml-cpp's Node::Mark(). Readers never throw
// (they only use yaml-cpp accessors that cannot throw on the nodes they are given).
#pragma once

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "gpusweep/config.h"
#include "gpusweep/json.h"
#include "gpusweep/status.h"

namespace gpusweep::config_detail {

// The file being parsed; its path as the user gave it prefixes every message.
struct YamlSource {
  std::string display_path;
};

// Error{kInvalidConfig} in the format above. An empty key_path reads "(top level)";
// a null mark (node without position) reads as 1:1; an empty hint drops "; <hint>"
// (for problems whose text already ends with one, like ParseDuration's).
tl::unexpected<Error> LocatedError(const YamlSource& source, const YAML::Mark& mark,
                                   std::string_view key_path, std::string_view problem,
                                   std::string_view hint);

class Mapping;

// A YAML node with its origin: the file and its key path ("search_space.lr.low",
// "command[2]"). Conversions fail with messages that say what was found.
class Value {
 public:
  Value(const YamlSource& source, YAML::Node node, std::string path);
  // As above, with the position messages should point at (see Mapping::From).
  Value(const YamlSource& source, YAML::Node node, std::string path, YAML::Mark mark);

  const YAML::Node& node() const { return node_; }
  const std::string& path() const { return path_; }
  const YamlSource& source() const { return *source_; }
  const YAML::Mark& mark() const { return mark_; }
  int line() const;  // 1-based; 0 if the node has no position
  YamlPosition position() const;  // 1-based line and column; 0, 0 without a position

  // The child at `key` of this mapping / `index` of this list, with extended path.
  Value Child(YAML::Node child, std::string_view key) const;
  Value Element(YAML::Node element, std::size_t index) const;

  // Error at this node: "<path>: <problem>; <hint>".
  tl::unexpected<Error> Invalid(std::string_view problem, std::string_view hint) const;
  // Error at this node: "<path>: found <Describe()>, expected <expected>; <hint>".
  tl::unexpected<Error> WrongType(std::string_view expected, std::string_view hint) const;

  bool IsNull() const { return node_.IsNull(); }
  bool IsScalar() const { return node_.IsScalar(); }  // false for null
  bool IsList() const { return node_.IsSequence(); }
  bool IsMapping() const { return node_.IsMap(); }

  // What the node is, for messages: "null", "a list", "a mapping",
  // "the string 'abc'", "the integer 5", "the number 2.5", "the boolean true".
  std::string Describe() const;

  // Any YAML value as JSON (see yaml_scalar.h for scalars). Fails on non-finite
  // floats, non-scalar or duplicate mapping keys, and nesting deeper than
  // kMaxJsonDepth (which is how a recursive alias like `&x [*x]` shows up).
  static constexpr int kMaxJsonDepth = 128;
  Expected<Json> ToJson() const { return ToJsonAtDepth(0, *this); }
  // The text of any non-null scalar ("3" for 3, "abc" for abc). Error: not a scalar,
  // or the text holds a NUL byte (as ToJson for strings).
  Expected<std::string> ToText() const;
  Expected<bool> ToBool() const;
  Expected<std::int64_t> ToInt() const;
  // An integer in [min, INT_MAX].
  Expected<int> ToIntAtLeast(int min) const;
  // An integer or float, finite; returned as double.
  Expected<double> ToNumber() const;
  // A scalar equal to one of `allowed` (returned as that element, so it lives as long
  // as `allowed`); suggests the closest one otherwise.
  Expected<std::string_view> ToEnum(std::span<const std::string_view> allowed) const;
  Expected<std::vector<Value>> ToList() const;
  Expected<Mapping> ToMapping() const;

 private:
  // `outermost` is the value ToJson was called on; too-deep errors point there.
  Expected<Json> ToJsonAtDepth(int depth, const Value& outermost) const;
  // Error unless the scalar's text is free of NUL bytes.
  Status RefuseNul() const;

  const YamlSource* source_;
  YAML::Node node_;
  std::string path_;
  YAML::Mark mark_;
};

// The entries of a YAML mapping in document order, keys checked to be unique scalars.
class Mapping {
 public:
  struct Entry {
    std::string name;
    Value key;
    Value value;
  };

  // Fails unless `value` is a mapping with unique scalar keys.
  static Expected<Mapping> From(const Value& value);

  const Value& self() const { return self_; }
  const std::vector<Entry>& entries() const { return entries_; }

  // Fails at the first key not in `valid`, with a did-you-mean suggestion.
  Status CheckKeys(std::span<const std::string_view> valid) const;
  // The value under `key`, or nullptr when absent.
  const Value* Find(std::string_view key) const;
  // The value under `key`; when absent, fails at this mapping with
  // "missing required key '<key>'; <hint>".
  Expected<Value> Require(std::string_view key, std::string_view hint) const;

 private:
  explicit Mapping(Value self) : self_(std::move(self)) {}
  Value self_;
  std::vector<Entry> entries_;
};

// For checks across sections (config/*_check.cc), given the top-level mapping: whether
// `section` is a mapping that writes `key`; and where an error about `section.key`
// should point: the key when written, else the section, else the top of the file.
bool WritesKey(const Mapping& top, std::string_view section, std::string_view key);
Value KeyOrSectionAt(const Mapping& top, std::string_view section, std::string_view key);

}  // namespace gpusweep::config_detail
