// param_specs_for_tests.h — one-line search-space parameters for the samplers' tests.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "gpusweep/config.h"

namespace gpusweep::test_support {

inline ParamSpec Choice(std::string name, std::vector<Json> values) {
  ParamSpec p;
  p.name = std::move(name);
  p.kind = ParamKind::kChoice;
  p.values = std::move(values);
  return p;
}

inline ParamSpec Int(std::string name, std::int64_t low, std::int64_t high,
                     std::int64_t step = 1) {
  ParamSpec p;
  p.name = std::move(name);
  p.kind = ParamKind::kInt;
  p.int_low = low;
  p.int_high = high;
  p.int_step = step;
  return p;
}

// kind: kUniform or kLogUniform.
inline ParamSpec Real(std::string name, ParamKind kind, double low, double high) {
  ParamSpec p;
  p.name = std::move(name);
  p.kind = kind;
  p.low = low;
  p.high = high;
  return p;
}

inline ParamSpec Constant(std::string name, Json value) {
  ParamSpec p;
  p.name = std::move(name);
  p.kind = ParamKind::kConstant;
  p.constant = std::move(value);
  return p;
}

}  // namespace gpusweep::test_support
