// nas_parser.h — the `nas:` section (neural-architecture search; see docs/nas.md).
//
// Contract: returns a validated NasConfig or a located Error{kInvalidConfig}
// (file:line:column, key path, what is wrong, what would be valid). Only static checks
// happen here; the topology pool and the stage plan are the NAS engine's (src/nas).
#pragma once

#include "config/yaml_reader.h"
#include "gpusweep/nas_config.h"

namespace gpusweep::config_detail {

// `value` is the node under `nas:`.
Expected<NasConfig> ParseNas(const Value& value);

}  // namespace gpusweep::config_detail
