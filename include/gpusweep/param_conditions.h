// param_conditions.h — nested and conditional search spaces (docs/config.md, "Nested and
// conditional parameters"): which parameters a trial has, how many grid points a
// conditional space has, and how flat dotted parameter names nest in params.json.
//
// Contract. A search space is a list of leaves in declaration order, each with its full
// dotted name ("model.encoder.depth"). A leaf with conditions (ParamSpec::when) is active
// in a trial only when every condition holds: the named parameter is present in the trial
// (itself active) with one of the listed values. Conditions name parameters declared
// earlier, so a trial is built in declaration order and each leaf's activity is known from
// the leaves before it. A trial's params hold only its active leaves (journal, exports:
// flat dotted keys); params.json and templates see them nested (NestParams).
//
// Grid over a conditional space: the points are the active combinations only, in the
// order of the unconditional grid restricted to them (first declared parameter the most
// significant digit, the last the fastest; where a parameter's value decides which later
// leaves are active, each value's block is as long as its own subtree). Header-only (the
// config module counts trials with it, the search module enumerates them; neither links
// the other). Cost of a count: O(leaves x product of the cardinalities of the leaves that
// conditions name), which is small for the spaces people write (a few choices).
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "gpusweep/config.h"
#include "gpusweep/json.h"

namespace gpusweep {

// Whether `param` is active given the params of the leaves declared before it.
inline bool IsActive(const ParamSpec& param, const Params& earlier) {
  for (const ParamCondition& condition : param.when) {
    const auto it = earlier.find(condition.param);
    if (it == earlier.end()) return false;
    bool matched = false;
    for (const Json& value : condition.values) matched = matched || *it == value;
    if (!matched) return false;
  }
  return true;
}

inline bool IsConditional(const SearchSpace& space) {
  for (const ParamSpec& param : space.params)
    if (!param.when.empty()) return true;
  return false;
}

// `params` without the leaves that are inactive given the others (a sampler that drew
// every leaf, an enqueued setting completed by one): kept in order.
inline Params ActiveOnly(const SearchSpace& space, const Params& params) {
  Params out = Json::object();
  for (const ParamSpec& param : space.params) {
    const auto it = params.find(param.name);
    if (it != params.end() && IsActive(param, out)) out[param.name] = *it;
  }
  return out;
}

// Flat dotted keys nested: {"model.depth": 3, "model.width": 5, "lr": 0.1} becomes
// {"model": {"depth": 3, "width": 5}, "lr": 0.1}. A key whose prefix holds an object (a
// choice value that is a mapping, whose branch's leaves are "choice.leaf") is merged into
// it; the parser makes sure no prefix holds anything else. Keys without dots are copied.
inline Params NestParams(const Params& flat) {
  if (!flat.is_object()) return flat;
  Params out = Json::object();
  for (const auto& [key, value] : flat.items()) {
    Json* at = &out;
    std::size_t start = 0;
    for (std::size_t dot; (dot = key.find('.', start)) != std::string::npos; start = dot + 1) {
      Json& next = (*at)[key.substr(start, dot - start)];
      if (!next.is_object()) next = Json::object();  // null when new
      at = &next;
    }
    (*at)[key.substr(start)] = value;
  }
  return out;
}

namespace conditions_detail {

// Grid values of a leaf: choice values, int low..high by step, a constant's one value;
// 0 for continuous leaves (a grid refuses them).
inline std::uint64_t Cardinality(const ParamSpec& p) {
  switch (p.kind) {
    case ParamKind::kChoice: return p.values.size();
    case ParamKind::kConstant: return 1;
    case ParamKind::kInt: {
      if (p.int_step <= 0 || p.int_high < p.int_low) return 0;
      const std::uint64_t span =
          static_cast<std::uint64_t>(p.int_high) - static_cast<std::uint64_t>(p.int_low);
      const std::uint64_t steps = span / static_cast<std::uint64_t>(p.int_step);
      return steps == std::numeric_limits<std::uint64_t>::max() ? steps : steps + 1;
    }
    default: return 0;
  }
}

inline Json GridValue(const ParamSpec& p, std::uint64_t index) {
  if (p.kind == ParamKind::kChoice) return p.values[index];
  if (p.kind == ParamKind::kInt)
    return static_cast<std::int64_t>(static_cast<std::uint64_t>(p.int_low) +
                                     index * static_cast<std::uint64_t>(p.int_step));
  return p.constant;
}

inline std::uint64_t SaturatingMul(std::uint64_t a, std::uint64_t b) {
  constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();
  return (b != 0 && a > kMax / b) ? kMax : a * b;
}

inline std::uint64_t SaturatingAdd(std::uint64_t a, std::uint64_t b) {
  constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();
  return a > kMax - b ? kMax : a + b;
}

// Which leaves some condition names: only their values change what follows.
inline std::vector<bool> Referenced(const SearchSpace& space) {
  std::vector<bool> referenced(space.params.size(), false);
  for (const ParamSpec& param : space.params)
    for (const ParamCondition& condition : param.when)
      for (std::size_t i = 0; i < space.params.size(); ++i)
        if (space.params[i].name == condition.param) referenced[i] = true;
  return referenced;
}

// Active combinations of leaves i.. given `assigned` (the values of earlier leaves).
inline std::uint64_t CountFrom(const SearchSpace& space, const std::vector<bool>& referenced,
                               std::size_t i, Params& assigned) {
  if (i == space.params.size()) return 1;
  const ParamSpec& p = space.params[i];
  if (!IsActive(p, assigned)) return CountFrom(space, referenced, i + 1, assigned);
  const std::uint64_t n = Cardinality(p);
  if (!referenced[i]) {
    if (n == 0) return 0;
    return SaturatingMul(n, CountFrom(space, referenced, i + 1, assigned));
  }
  std::uint64_t total = 0;
  for (std::uint64_t v = 0; v < n; ++v) {
    assigned[p.name] = GridValue(p, v);
    total = SaturatingAdd(total, CountFrom(space, referenced, i + 1, assigned));
  }
  assigned.erase(p.name);
  return total;
}

}  // namespace conditions_detail

// Grid points of `space`: its active combinations (the product of cardinalities when no
// leaf has conditions). 0 when an active leaf is continuous. Saturates at UINT64_MAX.
inline std::uint64_t ActiveGridSize(const SearchSpace& space) {
  Params assigned = Json::object();
  return conditions_detail::CountFrom(space, conditions_detail::Referenced(space), 0, assigned);
}

// Grid point `index` (< ActiveGridSize(space)): the active leaves with their values.
inline Params ActiveGridPoint(const SearchSpace& space, std::uint64_t index) {
  using namespace conditions_detail;
  const std::vector<bool> referenced = Referenced(space);
  Params assigned = Json::object();
  for (std::size_t i = 0; i < space.params.size(); ++i) {
    const ParamSpec& p = space.params[i];
    if (!IsActive(p, assigned)) continue;
    const std::uint64_t n = Cardinality(p);
    if (!referenced[i]) {  // every value is followed by the same number of points
      const std::uint64_t rest = CountFrom(space, referenced, i + 1, assigned);
      assigned[p.name] = GridValue(p, (index / rest) % n);
      index %= rest;
      continue;
    }
    for (std::uint64_t v = 0; v < n; ++v) {
      assigned[p.name] = GridValue(p, v);
      const std::uint64_t block = CountFrom(space, referenced, i + 1, assigned);
      if (index < block || v + 1 == n) break;
      index -= block;
    }
  }
  return assigned;
}

}  // namespace gpusweep
