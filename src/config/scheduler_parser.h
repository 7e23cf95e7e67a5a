// scheduler_parser.h — the `scheduler:` section (early stopping / multi-fidelity).
//
// Contract: returns a validated SchedulerConfig or a located Error{kInvalidConfig}
// naming the key, what is wrong and what would be valid. Each scheduler type accepts
// only its own keys (did-you-mean for the rest). Checks that need the rendered
// command (whether trials read {{budget}}) happen when the run is planned.
#pragma once

#include "config/yaml_reader.h"
#include "gpusweep/config.h"

namespace gpusweep::config_detail {

// `value` is the node under `scheduler:`, or nullptr when the key is absent (then the
// scheduler is none). A plain string is shorthand for {type: <string>}.
Expected<SchedulerConfig> ParseScheduler(const Value* value);

}  // namespace gpusweep::config_detail
