#include "run/gpu_slots.h"

#include <fmt/format.h>

#include "gpusweep/trial.h"

namespace gpusweep {
namespace {

// Seconds between scans for the processes of running trials (see Tick).
constexpr double kAttributionInterval = 1.0;

const char* EventKind(GpuNotice::Kind kind) {
  switch (kind) {
    case GpuNotice::Kind::kQuarantined: return "gpu_quarantined";
    case GpuNotice::Kind::kRecovered: return "gpu_recovered";
    case GpuNotice::Kind::kForeignMemory: return "gpu_foreign_memory";
    case GpuNotice::Kind::kLowMemory: return "gpu_low_memory";
  }
  return "gpu";
}

}  // namespace

GpuSlots::GpuSlots(const std::vector<int>& gpus, const ResourcesConfig& resources,
                   RunServices& services, RunObserver& observer,
                   std::vector<JournalWrite>& pending)
    : pool_(gpus, GpuSharingFrom(resources)),
      sharing_(GpuSharingFrom(resources)),
      services_(services),
      observer_(observer),
      pending_(pending),
      run_started_(services.wall_clock()) {}

void GpuSlots::Tick() {
  if (pool_.total() == 0 || services_.gpu_probe == nullptr) return;
  if (!announced_) {
    announced_ = true;
    Json detail{{"gpus", pool_.gpus()}, {"trials_per_gpu", sharing_.trials_per_gpu}};
    if (sharing_.memory_per_trial) detail["gpu_memory_per_trial"] = *sharing_.memory_per_trial;
    Record("gpu_pool", std::move(detail));
  }
  const double now = services_.monotonic_clock();
  Expected<std::vector<GpuMemoryReading>> readings = services_.gpu_probe->ReadMemory(pool_.gpus());
  if (readings) {
    // A listed process no trial is known to own: a trial's child (or a foreign one).
    // Listing the trials' processes scans /proc, so at most once a second.
    if (!pool_.AllAttributed(*readings) && now - last_attribution_ >= kAttributionInterval) {
      last_attribution_ = now;
      for (const auto& [trial, pid] : running_)
        pool_.Attribute(trial, services_.processes->TrialProcesses(pid));
    }
    pool_.Observe(*readings, now);
  } else if (!warned_read_failure_) {
    warned_read_failure_ = true;  // GPUs released from now on wait, then are quarantined
    observer_.OnWarning(fmt::format("GPU memory could not be read: {}", readings.error().message));
    Record("gpu_read_failed", Json{{"message", readings.error().message}});
  }
  pool_.Settle(now);
  Tell(pool_.TakeNotices());
}

void GpuSlots::Started(int trial, ProcessId pid) {
  running_[trial] = pid;
  pool_.Attribute(trial, {static_cast<int>(pid)});
}

void GpuSlots::Release(const TrialRecord& record, GpuPool::TrialRan ran) {
  running_.erase(record.number);
  const std::optional<std::uint64_t> peak =
      pool_.Release(record.number, services_.monotonic_clock(), ran);
  if (!peak) return;
  Json detail{{"trial", record.number}, {"attempt", record.attempt}, {"peak_bytes", *peak}};
  if (sharing_.memory_per_trial) {
    detail["declared_bytes"] = *sharing_.memory_per_trial;
    if (*peak > *sharing_.memory_per_trial)
      observer_.OnWarning(fmt::format(
          "trial {} used {} of GPU memory, more than the {} it declared "
          "(resources.gpu_memory_per_trial): trials sharing its GPU may run out of memory",
          record.number, FormatByteSize(*peak), FormatByteSize(*sharing_.memory_per_trial)));
  }
  Record("trial_gpu_memory", std::move(detail));
}

std::optional<std::string> GpuSlots::Stuck() const {
  if (!pool_.AllQuarantined()) return std::nullopt;
  std::string why;
  for (const auto& [gpu, message] : quarantine_) why += (why.empty() ? "" : "; ") + message;
  return fmt::format("every GPU is quarantined ({}); free that memory (nvidia-smi shows who "
                     "holds it) and run the same command again to resume",
                     why);
}

void GpuSlots::Record(const std::string& kind, Json detail) {
  JournalWrite write;
  write.kind = JournalWrite::Kind::kAppendEvent;
  write.time = services_.wall_clock();
  write.event_kind = kind;
  detail["run"] = run_started_;
  write.detail = std::move(detail);
  pending_.push_back(std::move(write));
}

void GpuSlots::Tell(const std::vector<GpuNotice>& notices) {
  for (const GpuNotice& notice : notices) {
    if (notice.kind == GpuNotice::Kind::kQuarantined) quarantine_[notice.gpu] = notice.message;
    if (notice.kind == GpuNotice::Kind::kRecovered) quarantine_.erase(notice.gpu);
    observer_.OnWarning(notice.message);
    Json detail{{"gpu", notice.gpu}, {"bytes", notice.bytes}, {"pids", notice.pids},
                {"message", notice.message}};
    if (notice.trial >= 0) detail["trial"] = notice.trial;
    Record(EventKind(notice.kind), std::move(detail));
  }
}

}  // namespace gpusweep
