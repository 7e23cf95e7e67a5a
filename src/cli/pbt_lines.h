// pbt_lines.h — a population-based training experiment's lineage and schedule, as
// `status` and `best` print them (docs/config.md, "Population-based training").
//
// The journal holds what is needed: every segment is a trial (its params, budget and
// result), and every segment's job_started event names the trial whose checkpoint it
// continued ("parent"; run/scheduler_journal.h). Segment 0's jobs are the only ones
// without a parent, so they number the population: trial k is member k % population,
// segment k / population (src/policy/pbt_policy.h).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "view/pbt_lineage.h"
#include "gpusweep/metric.h"
#include "gpusweep/trial.h"

namespace gpusweep {

// "Population (...):" then one line per member: its segments' trials in order, "<-d"
// where a segment copied trial d's checkpoint (another member's), and its latest value.
std::string PbtPopulationLines(const std::vector<TrialRecord>& trials, const PbtLineage& lineage,
                               const MetricSpec& metric);

// One segment of the best member's lineage: its trial, the resource range it trained,
// its params, and the trial whose checkpoint it continued when that was another
// member's (an exploit).
struct PbtScheduleSegment {
  int trial = 0;
  double from = 0, to = 0;
  Params params;
  std::optional<int> copied_from;
};
struct PbtSchedule {
  const TrialRecord* best = nullptr;  // nullptr: nothing completed
  std::vector<PbtScheduleSegment> segments;
};

// The completed trial of the furthest segment with the best value, and its lineage.
PbtSchedule BestPbtSchedule(const std::vector<TrialRecord>& trials, const PbtLineage& lineage,
                            const MetricSpec& metric);

// The best member's whole schedule: the completed trial of the furthest segment with
// the best value, and for each segment of its lineage the resource range, trial,
// member, params and the checkpoint copied. Empty when nothing completed.
std::string PbtScheduleLines(const std::vector<TrialRecord>& trials, const PbtLineage& lineage,
                             const MetricSpec& metric, const std::string& resource);

}  // namespace gpusweep
