#include "run/reattach.h"

namespace gpusweep {

std::vector<AttachedJob> ReattachJobs(ProcessRunner& runner, std::vector<TrialRecord>& recorded) {
  std::vector<AttachedJob> attached;
  std::erase_if(recorded, [&](const TrialRecord& record) {
    if (record.state != TrialState::kRunning) return false;
    const std::optional<ProcessRunner::Reattached> job = runner.Reattach(record);
    if (!job) return false;
    attached.push_back(AttachedJob{job->id, record, job->ended, std::nullopt, std::nullopt});
    return true;
  });
  return attached;
}

}  // namespace gpusweep
