// install_paths.h — where gpusweep finds the files it ships beside the binary.
#pragma once

#include <filesystem>
#include <string>

namespace gpusweep {

// The folder trials get first on PYTHONPATH (it holds gpusweep.py).
std::filesystem::path PythonHelperDir();

// How the commands gpusweep suggests ("See `gpusweep best DIR`") should name it:
// "gpusweep" when that is what PATH finds (this very binary), else this binary's
// absolute path (build/gpusweep run from a checkout), so the line can be copied as is.
std::string SuggestedProgram();

}  // namespace gpusweep
