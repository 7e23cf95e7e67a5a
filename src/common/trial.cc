#include "gpusweep/trial.h"

#include <array>

#include <fmt/format.h>

namespace gpusweep {
namespace {
constexpr std::array<std::pair<TrialState, std::string_view>, 4> kStateNames{{
    {TrialState::kRunning, "running"},
    {TrialState::kCompleted, "completed"},
    {TrialState::kFailed, "failed"},
    {TrialState::kInterrupted, "interrupted"},
}};
}  // namespace

std::string_view ToString(TrialState state) {
  for (const auto& [s, name] : kStateNames)
    if (s == state) return name;
  return "unknown";
}

std::optional<TrialState> TrialStateFromString(std::string_view text) {
  for (const auto& [s, name] : kStateNames)
    if (name == text) return s;
  return std::nullopt;
}

std::string TrialDirName(int number) { return fmt::format("{:04d}", number); }

}  // namespace gpusweep
