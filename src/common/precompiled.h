// precompiled.h — the standard and header-only library headers nearly every gpusweep
// file includes, precompiled once per build (CMakeLists.txt, GPUSWEEP_PCH) instead of
// parsed again in each of the build's compile steps. Only headers that are stable and
// third-party belong here: a project header would rebuild everything when it changes.
// Files still include what they use; a build with -DGPUSWEEP_PCH=OFF checks that.
#pragma once

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>
#include <tl/expected.hpp>
