// nni_param.h — NNI's flat search-space entries, `{_type: ..., _value: [...]}`, read as
// NNI means them (https://nni.readthedocs.io, "Search Space"):
//   choice [v, ...]                -> choice
//   randint [lower, upper]         -> int lower..upper - 1 (NNI excludes upper)
//   uniform / loguniform [lo, hi]  -> uniform / loguniform
//   quniform / qloguniform [lo, hi, q] -> the same with q and clip: true
//                                     (NNI: clip(round(x / q) * q, lo, hi))
//   normal / lognormal [mu, sigma] -> normal / lognormal (lognormal: exp(normal))
//   qnormal / qlognormal [mu, sigma, q] -> the same with q (not clipped)
// A choice among sub-spaces (values with `_name`) is a nested space (issue 22, part B)
// and refused here with what to write.
//
// Contract: fills `param` (name and line already set) or a located Error{kInvalidConfig}.
#pragma once

#include "config/yaml_reader.h"
#include "gpusweep/config.h"

namespace gpusweep::config_detail {

// Whether the mapping is written in NNI's form (has `_type` or `_value`).
bool IsNniParam(const Mapping& spec);

Status ParseNniParam(const Mapping& spec, ParamSpec& param);

}  // namespace gpusweep::config_detail
