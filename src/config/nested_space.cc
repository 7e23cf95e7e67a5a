// Groups, dotted names, choices over sub-spaces and `when:` (contract in nested_space.h).
#include "config/nested_space.h"

#include <fmt/format.h>

#include <array>
#include <map>
#include <optional>
#include <utility>

#include "common/did_you_mean.h"
#include "config/param_vocabulary.h"
#include "config/python_value.h"
#include "config/search_space_parser.h"

namespace gpusweep::config_detail {
namespace {

constexpr std::array<std::string_view, 3> kReservedNames{"trial", "config_dir",
                                                         "experiment_dir"};
// Keys of a parameter spec, ours and other tools' (param_vocabulary.h), NNI's included.
constexpr std::array<std::string_view, 17> kSpecKeys{
    "type",  "distribution", "values",     "value", "low", "high",  "min",   "max",   "lower",
    "upper", "choices",      "categories", "step",  "q",   "log",   "_type", "_value"};

bool IsSpecKey(std::string_view key) {
  for (std::string_view spec_key : kSpecKeys)
    if (key == spec_key) return true;
  return false;
}

// A mapping that asks for a parameter kind and says more than the kind: a spec.
// ({type: relu} alone stays a value, as a list of layer dicts has it.)
bool IsSpec(const Mapping& m) {
  if (m.Find("_type") != nullptr || m.Find("_value") != nullptr) return true;  // NNI
  if (!ResolveParamKind(m, "").has_value()) return false;
  for (const Mapping::Entry& entry : m.entries())
    if (entry.name != "type" && entry.name != "distribution" && entry.name != "when") return true;
  return false;
}

// W&B's nested parameters: {parameters: {...}}, with our `when:` beside it allowed.
const Value* WandbNested(const Mapping& m) {
  const Value* held = m.Find("parameters");
  const std::size_t others = m.entries().size() - (m.Find("when") != nullptr ? 1 : 0);
  if (held == nullptr || others != 1) return nullptr;
  const Value& inner = *held;
  if (!inner.IsMapping()) return nullptr;
  Expected<Mapping> group = inner.ToMapping();  // a parameter named `parameters` stays one
  return group && !IsSpec(*group) ? &inner : nullptr;
}

// The group a full dotted name lies in, with its dot ("model." for "model.trees"; "" at
// the top): where a `when:` looks for siblings first.
std::string GroupOf(const std::string& name) {
  const std::size_t dot = name.rfind('.');
  return dot == std::string::npos ? "" : name.substr(0, dot + 1);
}

// Whether `value` is, or holds somewhere in its mappings, a parameter spec.
bool ContainsSpec(const Value& value) {
  if (!value.IsMapping()) return false;
  Expected<Mapping> m = value.ToMapping();
  if (!m) return false;
  if (WandbNested(*m) != nullptr || IsSpec(*m)) return true;
  for (const Mapping::Entry& entry : m->entries())
    if (entry.name != "when" && ContainsSpec(entry.value)) return true;
  return false;
}

// A mapping with a kind key and another spec key: meant as a spec even when it is not
// a valid one ({type: choise, values: [...]}).
bool LooksLikeSpec(const Mapping& m) {
  const bool kind = m.Find("type") || m.Find("distribution") || m.Find("_type");
  if (!kind) return false;
  for (const Mapping::Entry& entry : m.entries())
    if (entry.name != "type" && entry.name != "distribution" && IsSpecKey(entry.name)) return true;
  return false;
}

enum class EntryShape { kLeaf, kGroup };

// How the value of a search-space entry is read (nested_space.h).
EntryShape ShapeOf(const Value& value) {
  if (!value.IsMapping()) return EntryShape::kLeaf;
  Expected<Mapping> m = value.ToMapping();
  if (!m || m->entries().empty()) return EntryShape::kLeaf;  // the leaf parser says why
  if (WandbNested(*m) != nullptr) return EntryShape::kGroup;
  if (IsSpec(*m)) return EntryShape::kLeaf;
  for (const Mapping::Entry& entry : m->entries())
    if (entry.name != "when" && ContainsSpec(entry.value)) return EntryShape::kGroup;
  for (const Mapping::Entry& entry : m->entries())  // a spec with a mistake: say which
    if (IsSpecKey(entry.name) || EditDistance(entry.name, "type") <= 1) return EntryShape::kLeaf;
  return EntryShape::kGroup;  // a mapping of constants: each one a leaf
}

std::vector<std::string> SplitDots(const std::string& name) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  for (std::size_t dot; (dot = name.find('.', start)) != std::string::npos; start = dot + 1)
    parts.push_back(name.substr(start, dot - start));
  parts.push_back(name.substr(start));
  return parts;
}

// Two condition lists that can never hold together (leaves of one name in two
// sub-spaces of a choice): some parameter must take values from disjoint sets.
bool Exclusive(const std::vector<ParamCondition>& a, const std::vector<ParamCondition>& b) {
  for (const ParamCondition& x : a)
    for (const ParamCondition& y : b) {
      if (x.param != y.param) continue;
      bool overlap = false;
      for (const Json& u : x.values)
        for (const Json& v : y.values) overlap = overlap || u == v;
      if (!overlap) return true;
    }
  return false;
}

class SpaceWalker {
 public:
  SpaceWalker(SamplerKind sampler, std::vector<std::string>& warnings)
      : sampler_(sampler), warnings_(warnings) {}

  // The entries of `group` (its `when:` is already in `conditions`: WithWhen).
  Status Group(const Mapping& group, const std::string& prefix,
               const std::vector<ParamCondition>& conditions) {
    for (const Mapping::Entry& entry : group.entries())
      if (entry.name != "when") GS_TRY(Entry(entry, prefix, conditions));
    return {};
  }

  Status CheckSampler() const {
    if (!first_condition_ || sampler_ == SamplerKind::kGrid || sampler_ == SamplerKind::kRandom ||
        sampler_ == SamplerKind::kSobol || sampler_ == SamplerKind::kTpe)
      return {};
    return first_condition_->Invalid(
        fmt::format("the {} sampler cannot handle conditional parameters (a parameter active "
                    "only for some values of another)",
                    ToString(sampler_)),
        "use sampler type: tpe (tree-structured: each parameter modelled from the trials "
        "that had it), random, sobol or grid; or make the parameters unconditional");
  }

  SearchSpace Take() { return std::move(space_); }

 private:
  struct Name {
    bool group = false;
    bool branching = false;  // a choice with sub-spaces: its leaves are "<choice>.<name>"
    int line = 0;
    std::vector<std::vector<ParamCondition>> whens;  // of each leaf of this name
  };

  Status Entry(const Mapping::Entry& entry, const std::string& prefix,
               const std::vector<ParamCondition>& conditions) {
    const std::vector<std::string> parts = SplitDots(entry.name);
    for (const std::string& part : parts)
      if (!IsParamNameSegment(part))
        return entry.key.Invalid(
            fmt::format("'{}' is not a valid parameter name", entry.name),
            "use letters, digits and '_', not starting with a digit, and '.' between the "
            "names of groups (model.depth), so templates can write {{name}}");
    if (prefix.empty())
      for (std::string_view reserved : kReservedNames)
        if (parts.front() == reserved)
          return entry.key.Invalid(
              fmt::format("'{}' is reserved for a built-in template value", parts.front()),
              fmt::format("rename the parameter; reserved names: {}", JoinNames(kReservedNames)));
    std::string name = prefix;
    for (std::size_t i = 0; i + 1 < parts.size(); ++i) {  // model.encoder.depth: two groups
      name += parts[i];
      GS_TRY(AddGroup(name, entry.key));
      name += '.';
    }
    name += parts.back();
    if (ShapeOf(entry.value) == EntryShape::kGroup) {
      // `f: {lambda spec: ...}` reads as a mapping: a pasted Python function, not a group.
      GS_TRY(CheckPythonValue(entry.value, name));
      GS_TRY(AddGroup(name, entry.key));
      GS_ASSIGN_OR_RETURN(Mapping group, entry.value.ToMapping());
      GS_ASSIGN_OR_RETURN(std::vector<ParamCondition> within, WithWhen(group, name, conditions));
      if (const Value* inner = WandbNested(group)) {  // {parameters: {...}}, maybe a when: beside
        GS_ASSIGN_OR_RETURN(group, inner->ToMapping());
        GS_ASSIGN_OR_RETURN(within, WithWhen(group, name, std::move(within)));
      }
      return Group(group, name + ".", within);
    }
    return Leaf(entry, name, conditions);
  }

  // `conditions` and those of the `when:` of `m`, the mapping of parameter or group
  // `name`; its names are looked up among the siblings of `name` first (GroupOf), so
  // `model.trees` written dotted or inside `model:` means the same.
  Expected<std::vector<ParamCondition>> WithWhen(const Mapping& m, const std::string& name,
                                                 std::vector<ParamCondition> conditions) {
    if (const Value* when = m.Find("when")) {
      GS_ASSIGN_OR_RETURN(std::vector<ParamCondition> own, Conditions(*when, GroupOf(name)));
      conditions.insert(conditions.end(), own.begin(), own.end());
    }
    return conditions;
  }

  Status Leaf(const Mapping::Entry& entry, const std::string& name,
              std::vector<ParamCondition> conditions) {
    WarnAboutBareList(entry, sampler_, warnings_);
    std::vector<ChoiceValue> branches;
    GS_ASSIGN_OR_RETURN(ParamSpec param, ParseLeafParam(entry, name, sampler_, branches));
    if (entry.value.IsMapping()) {
      GS_ASSIGN_OR_RETURN(Mapping spec, entry.value.ToMapping());
      GS_ASSIGN_OR_RETURN(conditions, WithWhen(spec, name, std::move(conditions)));
    }
    param.when = conditions;
    bool branching = false;
    for (const ChoiceValue& branch : branches) branching = branching || !branch.subspace.empty();
    GS_TRY(AddLeaf(name, entry.key, param.when, branching));
    space_.params.push_back(std::move(param));
    for (const ChoiceValue& branch : branches) {
      if (branch.subspace.empty()) continue;
      std::vector<ParamCondition> within = conditions;
      within.push_back(ParamCondition{name, {branch.literal}, entry.key.line()});
      if (!first_condition_) first_condition_ = entry.value;
      for (const Mapping::Entry& sub : branch.subspace) GS_TRY(Entry(sub, name + ".", within));
    }
    return {};
  }

  Status AddGroup(const std::string& name, const Value& at) {
    const auto found = names_.find(name);
    if (found == names_.end()) {
      names_[name] = Name{true, false, at.line(), {}};
      return {};
    }
    // A choice's sub-space leaves are named "<choice>.<leaf>" by the choice itself; a
    // dotted name written elsewhere must not nest under it.
    if (found->second.group) return {};
    return at.Invalid(fmt::format("'{}' is a parameter (line {}), so it cannot also be a group "
                                  "of parameters",
                                  name, found->second.line),
                      "rename one of them, or put the parameter inside the group");
  }

  Status AddLeaf(const std::string& name, const Value& at, const std::vector<ParamCondition>& when,
                 bool branching) {
    const auto found = names_.find(name);
    if (found == names_.end()) {
      names_[name] = Name{false, branching, at.line(), {when}};
      return {};
    }
    if (found->second.group)
      return at.Invalid(fmt::format("'{}' is a group of parameters (line {}), so it cannot also "
                                    "be a parameter",
                                    name, found->second.line),
                        "rename one of them, or put the parameter inside the group");
    // The same name in two sub-spaces of a choice (Hyperopt's C of svm and of logreg):
    // never in one trial together, so each trial has one of them.
    bool exclusive = !found->second.branching && !branching;
    for (const std::vector<ParamCondition>& other : found->second.whens)
      exclusive = exclusive && Exclusive(other, when);
    if (exclusive) {
      found->second.whens.push_back(when);
      return {};
    }
    return at.Invalid(fmt::format("'{}' is already a parameter (line {})", name,
                                  found->second.line),
                      "give each parameter a name of its own");
  }

  // `when: {other: value}` or `when: {other: [v1, v2]}` inside group `prefix`.
  Expected<std::vector<ParamCondition>> Conditions(const Value& when, const std::string& prefix) {
    if (!first_condition_) first_condition_ = when;
    GS_ASSIGN_OR_RETURN(Mapping tests, when.ToMapping());
    if (tests.entries().empty())
      return when.Invalid("a when: with no conditions",
                          "write when: {<parameter>: <value>}, or remove it");
    std::vector<ParamCondition> out;
    for (const Mapping::Entry& test : tests.entries()) {
      GS_ASSIGN_OR_RETURN(const ParamSpec* target, Target(test, prefix));
      ParamCondition condition{target->name, {}, test.key.line()};
      GS_ASSIGN_OR_RETURN(Json wanted, test.value.ToJson());
      const bool one = !wanted.is_array() || FitToParam(*target, wanted).has_value();
      for (const Json& value : one ? Json::array({wanted}) : wanted) {
        Expected<Json> fit = FitToParam(*target, value);
        if (!fit)
          return test.value.Invalid(
              fmt::format("{} is not a value of '{}': {}", DumpForPeople(value), target->name,
                          fit.error().message),
              "name a value the parameter can take, or a list of them");
        condition.values.push_back(*fit);
      }
      out.push_back(std::move(condition));
    }
    return out;
  }

  // The leaf a condition names: a sibling (prefix + name) first, else the full name.
  Expected<const ParamSpec*> Target(const Mapping::Entry& test, const std::string& prefix) const {
    const ParamSpec* found = nullptr;
    for (const std::string& name : {prefix + test.name, test.name})
      for (const ParamSpec& p : space_.params)
        if (found == nullptr && p.name == name) found = &p;
    if (found == nullptr) {
      std::vector<std::string_view> names;
      for (const ParamSpec& p : space_.params) names.push_back(p.name);
      // A short name of a leaf in another group (`kind` for model.kind) is the likeliest
      // meaning; else the closest spelling.
      std::optional<std::string> close;
      for (const std::string_view n : names)
        if (!close && n.size() > test.name.size() && n.ends_with("." + test.name)) close = std::string(n);
      if (!close) close = ClosestMatch(test.name, names);
      return test.key.Invalid(
          fmt::format("'{}' is not a parameter declared before this one{}", test.name,
                      close ? fmt::format("; did you mean '{}'?", *close) : ""),
          "when: names an earlier choice, int or constant parameter: a sibling in the same "
          "group, or its full dotted name");
    }
    if (found->kind == ParamKind::kUniform || found->kind == ParamKind::kLogUniform)
      return test.key.Invalid(
          fmt::format("'{}' is continuous: a condition cannot list its values", found->name),
          "condition on a choice, int or constant parameter");
    return found;
  }

  SamplerKind sampler_;
  std::vector<std::string>& warnings_;
  SearchSpace space_;
  std::map<std::string, Name> names_;
  std::optional<Value> first_condition_;  // where the sampler check points
};

}  // namespace

Expected<ChoiceValue> ReadChoiceValue(const Value& element) {
  ChoiceValue out;
  if (!element.IsMapping()) {
    GS_ASSIGN_OR_RETURN(out.literal, element.ToJson());
    return out;
  }
  GS_ASSIGN_OR_RETURN(Mapping m, element.ToMapping());
  if (IsSpec(m) || WandbNested(m) != nullptr)
    return element.Invalid(
        "this value is a parameter spec, not a value: a choice does not draw from it, and "
        "trials would get the mapping itself",
        "to draw it when this value is chosen, make the value a sub-space with a name, e.g. "
        "- {name: a, x: <the spec>}; trials then get {name: a, x: <drawn>}");
  bool subspace = false;
  for (const Mapping::Entry& entry : m.entries()) subspace = subspace || ContainsSpec(entry.value);
  if (!subspace) {
    if (LooksLikeSpec(m)) {  // a spec with a mistake: its own error, never literal data
      Expected<ResolvedKind> kind = ResolveParamKind(m, "");
      if (!kind) return tl::unexpected(kind.error());
    }
    GS_ASSIGN_OR_RETURN(out.literal, element.ToJson());
    return out;
  }
  out.literal = Json::object();
  for (const Mapping::Entry& entry : m.entries()) {
    if (ContainsSpec(entry.value)) {
      out.subspace.push_back(entry);
      continue;
    }
    GS_ASSIGN_OR_RETURN(out.literal[entry.name], entry.value.ToJson());
  }
  return out;
}

Status ReadChoiceValues(const Value& values, const std::vector<Value>& list, ParamSpec& param,
                        std::vector<ChoiceValue>& branches) {
  for (const Value& element : list) {
    GS_ASSIGN_OR_RETURN(ChoiceValue value, ReadChoiceValue(element));
    for (std::size_t i = 0; i < param.values.size(); ++i)
      if (param.values[i] == value.literal)
        return element.Invalid(
            fmt::format("duplicates {}[{}]", values.path(), i),
            value.subspace.empty() ? "list each value once"
                                   : "sub-spaces are told apart by their fixed entries: give "
                                     "each one a key of its own, e.g. name: svm");
    param.values.push_back(value.literal);
    branches.push_back(std::move(value));
  }
  return {};
}

Expected<SearchSpace> ParseNestedSearchSpace(const Value& value, SamplerKind sampler,
                                             std::vector<std::string>& warnings) {
  if (value.IsNull()) return SearchSpace{};
  GS_ASSIGN_OR_RETURN(Mapping params, value.ToMapping());
  SpaceWalker walker(sampler, warnings);
  if (const Value* inner = WandbNested(params)) {  // search_space: {parameters: {...}}
    GS_ASSIGN_OR_RETURN(params, inner->ToMapping());
  }
  for (const Mapping::Entry& entry : params.entries())
    if (entry.name == "when")
      return entry.key.Invalid("a when: at the top of search_space: would condition every "
                               "parameter",
                               "put when: on a parameter or a group");
  GS_TRY(walker.Group(params, "", {}));
  GS_TRY(walker.CheckSampler());
  return walker.Take();
}

}  // namespace gpusweep::config_detail
