#include "run/reattach.h"

namespace gpusweep {

std::vector<AttachedJob> ReattachJobs(ProcessRunner& runner, std::vector<TrialRecord>& recorded) {
  std::vector<AttachedJob> attached;
  std::erase_if(recorded, [&](const TrialRecord& record) {
    if (record.state != TrialState::kRunning) return false;
    const std::optional<ProcessId> id = runner.Reattach(record);
    if (!id) return false;
    attached.push_back(AttachedJob{*id, record, std::nullopt, std::nullopt});
    return true;
  });
  return attached;
}

}  // namespace gpusweep
