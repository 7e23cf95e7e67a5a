// A PBT experiment's lineage from its journal events (see pbt_lineage.h).
#include "view/pbt_lineage.h"

#include <algorithm>

namespace gpusweep {

void AddPbtLineage(const std::vector<SchedulerEventRecord>& events, PbtLineage& lineage) {
  for (const SchedulerEventRecord& event : events) {
    if (event.kind != "job_started" || !event.detail.contains("job")) continue;
    const Json& job = event.detail["job"];
    if (job.contains("parent") && job["parent"].is_number_integer())
      lineage.parents[event.trial] = job["parent"].get<int>();
    else  // segment 0 of a member (restarted after an interruption: counted once)
      lineage.population = std::max(lineage.population, event.trial + 1);
  }
}

PbtLineage ReadPbtLineage(const std::vector<SchedulerEventRecord>& events, int population) {
  PbtLineage lineage;
  lineage.population = population;
  AddPbtLineage(events, lineage);
  return lineage;
}

std::vector<int> LineageOf(int trial, const PbtLineage& lineage) {
  std::vector<int> chain{trial};
  for (auto it = lineage.parents.find(trial); it != lineage.parents.end() && chain.size() < 100000;
       it = lineage.parents.find(it->second))
    chain.push_back(it->second);
  std::reverse(chain.begin(), chain.end());
  return chain;
}

}  // namespace gpusweep
