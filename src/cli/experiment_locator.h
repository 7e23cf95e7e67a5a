// experiment_locator.h — finding an experiment directory and its metadata for the
// commands that read results (status, best, export, show).
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include "gpusweep/status.h"

namespace gpusweep {

// The experiment to read: `given` if set; else `cwd` if it holds gpusweep.db; else the
// most recently modified <cwd>/runs/*/ holding gpusweep.db. Error{kNotFound} saying
// where it looked and how to name one.
Expected<std::filesystem::path> LocateExperiment(const std::optional<std::string>& given,
                                                 const std::filesystem::path& cwd);

}  // namespace gpusweep
