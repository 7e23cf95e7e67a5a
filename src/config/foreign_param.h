// foreign_param.h — Ray Tune's, Hyperopt's and Optuna's names for a parameter type.
//
// People port search spaces by copying the other tool's words: `type: randint`,
// `type: hp.choice`, `type: suggest_float`, or a whole call such as
// `lr: tune.loguniform(1e-4, 1e-1)`. A word whose meaning is the same as one of ours is
// accepted under `type:` (prefixed or not: tune., hp., trial., optuna.distributions.):
//   uniform, loguniform (not Hyperopt's), choice, uniformint (Hyperopt: uniform with
//   q: 1, so the bounds get half the mass, as scope.int(quniform) gives), qrandint with
//   q 1, quniform / qloguniform (q rounds to multiples, Hyperopt's meaning; unprefixed
//   only when the bounds are multiples of q, where Hyperopt, Ray and NNI agree), normal,
//   lognormal, qnormal, qlognormal (Hyperopt: mu, sigma, q), suggest_float /
//   FloatDistribution (log: true -> loguniform), suggest_uniform, suggest_loguniform,
//   suggest_int / IntDistribution (int, log: true allowed), IntUniformDistribution,
//   IntLogUniformDistribution, suggest_categorical, CategoricalDistribution.
// Every other known word is an error that shows the gpusweep mapping to write, computed
// from the bounds given (Ray's and Hyperopt's randint exclude the upper bound, so
// `randint, low: 0, high: 10` becomes `{type: int, low: 0, high: 9}`; Hyperopt's
// loguniform takes natural-log exponents, so its bounds become e^low and e^high; Ray's
// qrandint(1, 10, 3) is the multiples {3, 6, 9}: `{type: int, low: 3, high: 9, step: 3}`;
// Optuna's discrete-uniform q counts from low: step; hp.pchoice is a choice with weights;
// Ray's randn(mean, sd) is {type: normal, mu, sigma}).
// A call (`tune.loguniform(1e-4, 1e-1)`) under `type:` or as a parameter's whole value
// is always an error showing the mapping, since it is not our syntax (as a value it
// would silently be a constant string).
#pragma once

#include <optional>
#include <string_view>

#include "config/yaml_reader.h"
#include "gpusweep/config.h"

namespace gpusweep::config_detail {

// A parameter kind; for kInt also whether it is drawn on a log scale.
struct ResolvedKind {
  ParamKind kind = ParamKind::kConstant;
  bool log = false;
  double q = 0;  // the rounding the word implies where q: is absent (W&B's q_uniform: 1)
};

// `type: <word>` where word is not one of ours. nullopt: no other tool's word either
// (the caller answers with a did-you-mean). Otherwise the kind of a true synonym, or an
// error located at `type_value` whose hint is the mapping to write instead.
std::optional<Expected<ResolvedKind>> ResolveForeignType(const Value& type_value,
                                                         const Mapping& spec,
                                                         std::string_view param);

// A parameter whose whole value is a string that reads as another tool's call
// ("tune.loguniform(1e-4, 1e-1)"): an error located at it, showing the mapping to write.
// Any other value: no error.
Status CheckForeignCallValue(const Value& value, std::string_view param);

// The gpusweep mapping for another tool's call ("hp.quniform('x', 1, 10, 1)" ->
// "{type: uniform, low: 1, high: 10, q: 1}"); nullopt when it is not one.
std::optional<std::string> ForeignCallMapping(std::string_view call);

}  // namespace gpusweep::config_detail
