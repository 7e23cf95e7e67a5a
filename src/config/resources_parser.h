// resources_parser.h — the `resources:` section (GPUs, CPU slots, concurrency).
//
// Contract: returns validated ResourcesConfig or a located Error{kInvalidConfig}.
// Only static checks happen here (no NVML): a GPU list without duplicates, per-trial
// counts that fit that list, and a per-trial list with one entry per trial.
#pragma once

#include <cstdint>

#include "config/yaml_reader.h"
#include "gpusweep/config.h"

namespace gpusweep::config_detail {

// `value` is the node under `resources:`, or nullptr when the key is absent.
// `total_trials` is what the sampler will run (TotalTrials), for gpus_per_trial lists.
Expected<ResourcesConfig> ParseResources(const Value* value, std::uint64_t total_trials);

}  // namespace gpusweep::config_detail
