// config_test_util.h — a temporary directory for tests that need real files.
#pragma once

#include "common/temp_dir_for_tests.h"

namespace gpusweep::config_test {

using test_support::TempDir;

}  // namespace gpusweep::config_test
