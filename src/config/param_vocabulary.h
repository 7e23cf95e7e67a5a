// param_vocabulary.h — other tools' words for a search-space parameter, mapped to ours.
//
// Users port sweeps from Optuna, Ray Tune and W&B Sweeps. Where another tool's word has
// one meaning here, it is accepted; where it would mean something else (W&B's
// `log_uniform` takes exponents), the error names what to write instead. Accepted:
//   type:         float (with log: true -> loguniform), categorical -> choice, integer -> int
//   distribution: W&B's constant, categorical (probabilities -> weights), uniform,
//                 int_uniform, log_uniform_values, q_uniform and q_log_uniform_values
//                 (uniform / loguniform with q, default 1), normal, q_normal, log_normal,
//                 q_log_normal (mu, sigma; q default 1); instead of type:. log: true adds
//                 the log scale (uniform -> loguniform, int_uniform -> int log); log: false
//                 with a log_* distribution is refused. log_uniform and q_log_uniform take
//                 exponents: refused with the bounds computed (e^min, e^max)
//   no type:      values: [...] -> choice, value: x -> constant, min/max -> int when both
//                 are integers, else uniform (W&B's inference)
//   type:         Ray Tune's, Hyperopt's and Optuna's words, see foreign_param.h
//   keys:         min/max (W&B), lower/upper (Ray Tune) -> low/high, choices -> values,
//                 probabilities -> weights. q is its own key (round to multiples of q),
//                 never step (which counts from low)
#pragma once

#include <string_view>

#include "config/foreign_param.h"
#include "config/yaml_reader.h"
#include "gpusweep/config.h"

namespace gpusweep::config_detail {

// The parameter kind a mapping asks for (type:, distribution:, log:, or W&B's inference
// from values:/value:; Ray Tune's, Hyperopt's and Optuna's words under type:, see
// foreign_param.h). Errors are located, with a did-you-mean naming our word, or the
// mapping to write for parameter `param`.
Expected<ResolvedKind> ResolveParamKind(const Mapping& spec, std::string_view param);

// The value under `key` (one of low, high, values, step, value) or under another tool's
// name for it (see above); nullptr when neither is there. Error when both are given.
Expected<const Value*> FindParamKey(const Mapping& spec, std::string_view key);

// Checks that every key of `spec` is valid for `kind` (ours, their synonyms, and type,
// distribution, log where they apply), with a did-you-mean otherwise.
Status CheckParamKeys(const Mapping& spec, ParamKind kind);

}  // namespace gpusweep::config_detail
