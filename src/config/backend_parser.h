// backend_parser.h — the `backend:` section (local processes or SLURM jobs).
//
// Contract: returns a validated BackendConfig or a located Error{kInvalidConfig}.
// Only static checks happen here; whether the partition, account and QOS exist is
// asked of SLURM when a run starts (sbatch --test-only, see backend/slurm_runner.h).
#pragma once

#include "config/yaml_reader.h"
#include "gpusweep/config.h"

namespace gpusweep::config_detail {

// `value` is the node under `backend:`, or nullptr when the key is absent (local).
Expected<BackendConfig> ParseBackend(const Value* value);

}  // namespace gpusweep::config_detail
