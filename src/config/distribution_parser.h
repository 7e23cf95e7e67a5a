// distribution_parser.h — the keys of ParamSpec's distribution block (config.h):
// normal and log-normal (`mu`, `sigma`, optional `low`/`high` bounds), rounding to
// multiples of q (`q`, `clip`), and a choice's `weights` (W&B: `probabilities`).
//
// Contract: each function reads its keys from a parameter's mapping into `param` or
// returns a located Error{kInvalidConfig} naming the key, what is wrong and what to
// write. CheckShapeForSampler refuses, at the key's line, a shape the sampler cannot
// honour (docs/samplers.md) with what to write instead.
#pragma once

#include "config/yaml_reader.h"
#include "gpusweep/config.h"

namespace gpusweep::config_detail {

// kNormal / kLogNormal: mu and sigma (defaults 0 and 1, as W&B's), bounds if given.
Status ParseNormal(const Mapping& spec, ParamSpec& param);

// `q:` (> 0; `default_q` where absent, e.g. 1 for W&B's q_uniform) and `clip:`.
Status ParseRounding(const Mapping& spec, ParamSpec& param, double default_q);

// kChoice, after its values: `weights:` or `probabilities:`, one per value, >= 0,
// summing to 1 (within 1e-6; then normalised exactly).
Status ParseWeights(const Mapping& spec, ParamSpec& param);

// What `sampler` cannot do with the shape: a grid enumerates no normal, q-rounded or
// weighted parameter; tpe, gp and nsga2 model a choice without its weights.
Status CheckShapeForSampler(const Mapping& spec, const ParamSpec& param, SamplerKind sampler);

// kNormal or kLogNormal.
bool IsNormalKind(ParamKind kind);

}  // namespace gpusweep::config_detail
