// install_paths.h — where gpusweep finds the files it ships beside the binary.
#pragma once

#include <filesystem>

namespace gpusweep {

// The folder trials get first on PYTHONPATH (it holds gpusweep.py).
std::filesystem::path PythonHelperDir();

}  // namespace gpusweep
