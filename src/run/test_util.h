// test_util.h — helpers shared by the run and cli modules' tests.
#pragma once

#include "common/temp_dir_for_tests.h"

namespace gpusweep {
using test_support::ReadFile;
using test_support::TempDir;
using test_support::WriteFile;
}  // namespace gpusweep
