// PBT lineage and schedule lines for status and best (see pbt_lines.h).
#include "cli/pbt_lines.h"

#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "gpusweep/objective.h"

namespace gpusweep {
namespace {

std::string PbtNumber(double value) { return fmt::format("{:.6g}", value); }

std::string PbtParamsText(const Params& params) {
  std::string text;
  for (const auto& [name, value] : params.items()) {
    if (!text.empty()) text += ", ";
    text += name + "=" + (value.is_number_float() ? PbtNumber(value.get<double>()) : value.dump());
  }
  return text;
}

const TrialRecord* PbtFind(const std::vector<TrialRecord>& trials, int number) {
  for (const TrialRecord& trial : trials)
    if (trial.number == number) return &trial;
  return nullptr;
}

}  // namespace

std::string PbtPopulationLines(const std::vector<TrialRecord>& trials, const PbtLineage& lineage,
                               const MetricSpec& metric) {
  const int population = lineage.population;
  if (population == 0) return "";
  std::string out = fmt::format(
      "Population ({} member{}; each member's segments as trials, <-k: copied trial k's checkpoint):\n",
      population, population == 1 ? "" : "s");
  for (int member = 0; member < population; ++member) {
    std::string segments;
    const TrialRecord* latest = nullptr;
    for (int k = member; PbtFind(trials, k) != nullptr; k += population) {
      const TrialRecord* trial = PbtFind(trials, k);
      segments += (segments.empty() ? "" : " ") + std::to_string(k);
      if (auto parent = lineage.parents.find(k);
          parent != lineage.parents.end() && parent->second % population != member)
        segments += fmt::format("<-{}", parent->second);
      if (trial->state == TrialState::kCompleted) latest = trial;
    }
    const std::string value = latest && latest->objective
                                  ? fmt::format("{} {} (trial {})", metric.name,
                                                PbtNumber(*latest->objective), latest->number)
                                  : "no result yet";
    out += fmt::format("  member {:<3} {}   {}\n", member, segments, value);
  }
  return out;
}

PbtSchedule BestPbtSchedule(const std::vector<TrialRecord>& trials, const PbtLineage& lineage,
                            const MetricSpec& metric) {
  PbtSchedule schedule;
  const int population = lineage.population;
  if (population == 0) return schedule;
  for (const TrialRecord& trial : trials) {
    if (trial.state != TrialState::kCompleted || !trial.objective) continue;
    const TrialRecord* best = schedule.best;
    if (best == nullptr || trial.number / population > best->number / population ||
        (trial.number / population == best->number / population &&
         RanksBefore(metric.mode, trial.objective, best->objective)))
      schedule.best = &trial;
  }
  if (schedule.best == nullptr) return schedule;
  double from = 0;
  int previous = -1;  // the trial before in the lineage
  for (int k : LineageOf(schedule.best->number, lineage)) {
    const TrialRecord* trial = PbtFind(trials, k);
    if (trial == nullptr) continue;
    PbtScheduleSegment segment{k, from, trial->budget.value_or(from), trial->params, std::nullopt};
    if (previous >= 0 && k % population != previous % population) segment.copied_from = previous;
    from = segment.to;
    previous = k;
    schedule.segments.push_back(std::move(segment));
  }
  return schedule;
}

std::string PbtScheduleLines(const std::vector<TrialRecord>& trials, const PbtLineage& lineage,
                             const MetricSpec& metric, const std::string& resource) {
  const PbtSchedule schedule = BestPbtSchedule(trials, lineage, metric);
  if (schedule.best == nullptr) return "";
  const int population = lineage.population;
  std::string out = fmt::format("Schedule of the best member: member {}, trial {}, {} {}\n",
                                schedule.best->number % population, schedule.best->number,
                                metric.name, PbtNumber(*schedule.best->objective));
  for (const PbtScheduleSegment& segment : schedule.segments) {
    const std::string copied =
        segment.copied_from ? fmt::format("   (exploit: copied trial {} of member {})",
                                          *segment.copied_from, *segment.copied_from % population)
                            : "";
    out += fmt::format("  {} {}-{}  trial {:<4} member {:<3} {}{}\n", resource,
                       PbtNumber(segment.from), PbtNumber(segment.to), segment.trial,
                       segment.trial % population, PbtParamsText(segment.params), copied);
  }
  return out;
}

}  // namespace gpusweep
