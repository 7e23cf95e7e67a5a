// nni_param.h — NNI's flat search-space entries, `{_type: ..., _value: [...]}`, read as
// NNI means them (https://nni.readthedocs.io, "Search Space"):
//   choice [v, ...]                -> choice
//   randint [lower, upper]         -> int lower..upper - 1 (NNI excludes upper)
//   uniform / loguniform [lo, hi]  -> uniform / loguniform
//   quniform / qloguniform [lo, hi, q] -> the same with q and clip: true
//                                     (NNI: clip(round(x / q) * q, lo, hi))
//   normal / lognormal [mu, sigma] -> normal / lognormal (lognormal: exp(normal))
//   qnormal / qlognormal [mu, sigma, q] -> the same with q (not clipped)
// A choice among sub-spaces (NNI's nested choice: values with `_name` and their own
// `_type` entries) is read as nested_space.h reads a choice of sub-spaces: each value's
// plain entries ({_name: Conv}) are what the choice takes, its entries with a spec are
// leaves "<choice>.<name>" active only when it is chosen (into `branches`), so a trial
// gets {_name: Conv, kernel_size: 3} as NNI gives it.
//
// Contract: fills `param` (name and line already set) or a located Error{kInvalidConfig}.
#pragma once

#include <vector>

#include "config/nested_space.h"
#include "config/yaml_reader.h"
#include "gpusweep/config.h"

namespace gpusweep::config_detail {

// Whether the mapping is written in NNI's form (has `_type` or `_value`).
bool IsNniParam(const Mapping& spec);

Status ParseNniParam(const Mapping& spec, ParamSpec& param, std::vector<ChoiceValue>& branches);

}  // namespace gpusweep::config_detail
