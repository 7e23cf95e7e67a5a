// nested_space.h — groups, dotted names, choices over sub-spaces and `when:` under
// `search_space:` (docs/config.md, "Nested and conditional parameters").
//
// Contract: turns the `search_space:` mapping into leaves with full dotted names and
// their conditions (ParamSpec::when), in declaration order, or a located
// Error{kInvalidConfig}. How a mapping is read:
//   - a parameter spec (it names a kind: type:/distribution:, or W&B's values:/value:)
//     is a leaf, parsed by search_space_parser.h's ParseLeafParam;
//   - W&B's nested form {parameters: {...}} is the group of what it holds;
//   - any other mapping is a group: its entries are parameters (scalars: constants),
//     a `when:` entry conditions all of them;
//   - a dotted name (model.encoder.depth) is the same as writing the groups; a name that
//     would nest under a leaf (`a: 1` with `a.b: ...`) is an error at its line;
//   - a choice value that is a mapping holding parameter specs is a sub-space (Hyperopt's
//     hp.choice over dicts, NNI's nested choice with _name): its other entries are the
//     choice's value, its specs leaves "<choice>.<name>" active only when that value is
//     chosen; a choice value that is itself a spec is refused (it would reach trials as
//     literal data).
// A `when:` names earlier choice, int or constant leaves (a sibling in the same group
// first, else a full dotted name) with the value or list of values they must have.
// Samplers other than grid, random, sobol and tpe refuse a conditional space here.
#pragma once

#include <vector>
#include <string>

#include "config/yaml_reader.h"
#include "gpusweep/config.h"

namespace gpusweep::config_detail {

// One value of a choice: `literal` is what the choice's leaf takes; `subspace` the entries
// of a sub-space (empty for a plain value), whose leaves are active when it is chosen.
struct ChoiceValue {
  Json literal;
  std::vector<Mapping::Entry> subspace;
};

// Reads element `element` of a choice's values (see above).
Expected<ChoiceValue> ReadChoiceValue(const Value& element);
// Reads every element of `list` (the choice's values, written at `values`) into
// param.values and `branches`; a value equal to an earlier one is an error at it.
Status ReadChoiceValues(const Value& values, const std::vector<Value>& list, ParamSpec& param,
                        std::vector<ChoiceValue>& branches);

Expected<SearchSpace> ParseNestedSearchSpace(const Value& value, SamplerKind sampler,
                                             std::vector<std::string>& warnings);

}  // namespace gpusweep::config_detail
