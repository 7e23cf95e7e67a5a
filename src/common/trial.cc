#include "gpusweep/trial.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>

#include <fmt/format.h>

namespace gpusweep {

void AddPrunedTrial(EarlyStoppingSavings& savings, const TrialRecord& trial,
                    const std::string& resource, double max_resource) {
  if (trial.state != TrialState::kPruned) return;
  ++savings.pruned;
  std::optional<double> reached;
  if (const auto it = trial.last_metrics.find(resource);
      it != trial.last_metrics.end() && it->is_number() && it->get<double>() > 0)
    reached = it->get<double>();
  else if (trial.budget && *trial.budget > 0)
    reached = trial.budget;
  if (!reached || max_resource <= *reached) return;
  const double saved = max_resource - *reached;
  savings.resource_saved += saved;
  if (trial.gpus.empty()) savings.cpu_resource_saved += saved;
  else savings.gpu_resource_saved += saved * static_cast<double>(trial.gpus.size());
}

namespace {
constexpr std::array<std::pair<TrialState, std::string_view>, 6> kStateNames{{
    {TrialState::kRunning, "running"},
    {TrialState::kCompleted, "completed"},
    {TrialState::kFailed, "failed"},
    {TrialState::kInterrupted, "interrupted"},
    {TrialState::kPruned, "pruned"},
    {TrialState::kPaused, "paused"},
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

TrialRecord RankingRecord(const TrialRecord& t, const std::vector<std::string>& metrics) {
  TrialRecord r;
  r.number = t.number;
  r.repeat = t.repeat;
  r.attempt = t.attempt;
  r.state = t.state;
  r.objective = t.objective;
  r.start_time = t.start_time;
  r.end_time = t.end_time;
  r.last_metrics = Json::object();
  if (t.last_metrics.is_object())
    for (const std::string& name : metrics)
      if (auto it = t.last_metrics.find(name); it != t.last_metrics.end() && it->is_number())
        r.last_metrics[name] = *it;
  return r;
}

bool SpoilsItsGroup(const TrialRecord& t) {
  return t.state == TrialState::kFailed || t.state == TrialState::kPruned ||
         (t.state == TrialState::kCompleted && (!t.objective || std::isnan(*t.objective)));
}

RankingRows RankingRowsOf(const std::vector<TrialRecord>& trials, const std::vector<std::string>& metrics) {
  RankingRows rows;
  rows.metrics = metrics;
  for (const TrialRecord& t : trials) {
    if (t.state != TrialState::kCompleted) continue;
    rows.numbers.push_back(t.number);
    rows.objectives.push_back(t.objective);
    for (const std::string& name : metrics) {
      const auto it = t.last_metrics.is_object() ? t.last_metrics.find(name) : t.last_metrics.end();
      rows.values.push_back(it != t.last_metrics.end() && it->is_number()
                                ? it->get<double>()
                                : std::numeric_limits<double>::quiet_NaN());
    }
  }
  return rows;
}

TrialRecord FinishedRecord(const TrialRecord& t, const std::vector<std::string>& metrics) {
  TrialRecord r = RankingRecord(t, metrics);
  r.params = Json();
  r.gpus = t.gpus;  // CPU trials: empty, nothing allocated
  r.failure_reason = t.failure_reason;
  r.exit_code = t.exit_code;
  r.term_signal = t.term_signal;
  r.bracket = t.bracket;
  r.rung = t.rung;
  r.budget = t.budget;
  return r;
}

std::string FormatByteSize(std::uint64_t bytes) {
  constexpr double kMiB = 1024.0 * 1024;
  if (bytes >= 1024ull * 1024 * 1024) return fmt::format("{:.1f} GiB", bytes / (kMiB * 1024));
  return fmt::format("{:.0f} MiB", bytes / kMiB);
}

std::string FormatDuration(double seconds) {
  if (!std::isfinite(seconds)) return "-";
  const long long total = std::max(0LL, std::llround(seconds));
  if (total < 60) return fmt::format("{}s", total);
  if (total < 3600) return fmt::format("{}m{:02d}s", total / 60, total % 60);
  return fmt::format("{}h{:02d}m", total / 3600, (total % 3600) / 60);
}

std::string SignalName(int signal) {
  const char* abbreviation = ::sigabbrev_np(signal);
  return abbreviation ? fmt::format("SIG{}", abbreviation) : fmt::format("signal {}", signal);
}

}  // namespace gpusweep
