// decision_lines.h — the scheduler's journaled decisions about one trial, as the lines
// `gpusweep show` prints under "Scheduler decisions:".
#pragma once

#include <string>
#include <vector>

#include "gpusweep/journal.h"

namespace gpusweep {

// One line per job start, rung decision, job end, interruption and final settlement,
// oldest first, e.g. "14:05:09  rung 1 (epoch 3): 0.8123 -> stop: rank 4 of 9 ...".
// Reports that led to no decision are left out. `resource` names the step key.
std::vector<std::string> DecisionLines(const std::vector<SchedulerEventRecord>& events,
                                       const std::string& resource);
// The same for a trial whose jobs have no budget (a NAS evaluation): `where` (e.g.
// "block 1, round 2 (data 4000, epochs 1)") stands for the resource, budget and rung.
std::vector<std::string> DecisionLinesAt(const std::vector<SchedulerEventRecord>& events,
                                         const std::string& where);
// What `show` and the dashboard's trial page print for `trial`: DecisionLinesAt its NAS
// stage for a NAS evaluation, else DecisionLines with `resource`.
std::vector<std::string> TrialDecisionLines(const std::vector<SchedulerEventRecord>& events,
                                            const std::string& resource,
                                            const TrialRecord& trial);

}  // namespace gpusweep
