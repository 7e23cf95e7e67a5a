// gpu_slots.h — the trial loop's side of the GPU pool (resources.h, GpuPool): once per
// loop iteration it tells the pool which processes belong to which running trial
// (ProcessRunner::TrialProcesses), hands it an NVML memory reading (GpuProbe::ReadMemory)
// and lets it settle released GPUs; it turns the pool's notices into warnings and
// journal events. Nothing here blocks: a GPU waiting for a finished trial's memory is
// looked at again on the next wake-up of the loop.
//
// Journal events (Journal::LoadEvents), each detail with "run" (this run's start, Unix
// seconds), "gpu", "trial", "bytes", "pids" and "message" where they apply:
//   gpu_pool            once per run: {run, gpus, trials_per_gpu, gpu_memory_per_trial}
//   gpu_quarantined     a finished trial's memory was not freed within the timeout
//   gpu_recovered       a quarantined GPU is clean again
//   gpu_foreign_memory  a process gpusweep did not start holds memory on a GPU
//   gpu_low_memory      a GPU with a free slot was passed over for lack of free memory
//   trial_gpu_memory    a GPU trial ended: {trial, attempt, peak_bytes, declared_bytes}
//   gpu_read_failed     NVML could not read memory (once per run): {message}
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "gpusweep/experiment.h"
#include "gpusweep/journal.h"
#include "gpusweep/resources.h"
#include "run/runner.h"

namespace gpusweep {

class GpuSlots {
 public:
  // `pending` and `observer` are where events and warnings go (the loop's group commit);
  // they must outlive this object. `gpus`: the allowed GPU indices.
  GpuSlots(const std::vector<int>& gpus, const ResourcesConfig& resources,
           RunServices& services, RunObserver& observer, std::vector<JournalWrite>& pending);

  // Once per loop iteration, before trials are launched.
  void Tick();

  std::optional<std::vector<int>> TryAcquire(int count, int trial) {
    return pool_.TryAcquire(count, trial);
  }
  void Started(int trial, ProcessId pid);  // its leader is running
  // The trial's attempt ended (or never started: `ran` kNo); journals its peak memory.
  void Release(const TrialRecord& record, GpuPool::TrialRan ran);

  int free_count() const { return pool_.free_count(); }
  // Some GPU will change by itself soon (memory being freed): poll, do not give up.
  bool Waiting() const { return pool_.Waiting(); }
  // Every GPU is quarantined: why, for the error that ends the run; nullopt otherwise.
  std::optional<std::string> Stuck() const;

 private:
  void Record(const std::string& kind, Json detail);  // an event in the next commit
  void Tell(const std::vector<GpuNotice>& notices);

  GpuPool pool_;
  GpuSharing sharing_;
  RunServices& services_;
  RunObserver& observer_;
  std::vector<JournalWrite>& pending_;
  double run_started_;                   // Unix seconds: the run these events belong to
  bool announced_ = false;               // gpu_pool written
  bool warned_read_failure_ = false;
  double last_attribution_ = -1e300;     // monotonic seconds of the last process scan
  std::map<int, ProcessId> running_;     // trial -> its leader
  std::map<int, std::string> quarantine_;  // GPU -> why
};

}  // namespace gpusweep
