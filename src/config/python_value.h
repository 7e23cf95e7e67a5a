// python_value.h — a Python expression pasted where a value belongs.
//
// Sweeps written for Ray Tune, Hyperopt or Optuna hold Python: `range(1, 10)`,
// `[2 ** i for i in range(9)]`, `np.logspace(-5, -1, 5)`, `scope.int(hp.quniform(...))`,
// `lambda spec: ...`. YAML reads each as a string (or, for `lambda spec: x`, a mapping),
// which would silently be a constant. Each is refused with the literal to write,
// computed where the expression is a plain range, power list, logspace/linspace/arange
// or a Hyperopt call inside scope.int.
//
// Contract: an error located at the value, naming the parameter and what to write;
// no error for a value that is not such an expression.
#pragma once

#include <string_view>

#include "config/yaml_reader.h"

namespace gpusweep::config_detail {

// `value` is a parameter's whole value or a choice's `values:` (a string, a list whose
// element is a comprehension's body, or a mapping keyed `lambda ...`).
Status CheckPythonValue(const Value& value, std::string_view param);

}  // namespace gpusweep::config_detail
