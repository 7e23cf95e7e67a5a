// pbt_lineage.h — which trial's checkpoint each segment of a population-based training
// experiment continued, read from the journal (for `status`, `best` and the dashboard).
//
// The journal holds what is needed: every segment is a trial, and every segment's
// job_started event names the trial whose checkpoint it continued ("parent";
// run/scheduler_journal.h). Segment 0's jobs are the only ones without a parent, so they
// number the population: trial k is member k % population, segment k / population
// (src/policy/pbt_policy.h).
//
// Contract: pure functions of the events given; events that are not job_started, or
// carry no job, are ignored.
#pragma once

#include <map>
#include <vector>

#include "gpusweep/journal.h"

namespace gpusweep {

struct PbtLineage {
  std::map<int, int> parents;  // trial -> the trial it continued from (the last start's)
  int population = 0;          // 0: no segment has started yet
};

// `population`: scheduler.population of the recorded config (RecordedPbtPopulation);
// 0 where unknown, and then the segment-0 trials started so far (which is short of it
// while a run is still starting its members).
PbtLineage ReadPbtLineage(const std::vector<SchedulerEventRecord>& events, int population);

// Adds `events` (later than those already read) to `lineage`, for a reader that follows
// a run: the dashboard. ReadPbtLineage is this from a lineage holding only the population.
void AddPbtLineage(const std::vector<SchedulerEventRecord>& events, PbtLineage& lineage);

// The trials whose checkpoints `trial`'s weights went through, first segment first,
// ending with `trial` (a donor's earlier segments after an exploit).
std::vector<int> LineageOf(int trial, const PbtLineage& lineage);

}  // namespace gpusweep
