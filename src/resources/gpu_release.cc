// gpu_release.cc — the pool's memory side: readings, per-trial peaks, foreign processes,
// and the check that hands a finished trial's GPU on only once its memory is free
// (the k-fold user's "the next fold fails because the last one's memory was not freed").
#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "gpusweep/resources.h"
#include "gpusweep/trial.h"
#include "resources/gpu_memory.h"

namespace gpusweep {
namespace {

// How long a listed process must stay unattributed before it is reported as foreign.
constexpr double kForeignAfterSeconds = 1.0;

std::string PidList(const GpuMemoryReading& reading, const std::vector<int>& pids) {
  std::vector<std::string> parts;
  for (const GpuProcessMemory& process : reading.processes)
    if (std::find(pids.begin(), pids.end(), process.pid) != pids.end())
      parts.push_back(process.used_bytes
                          ? fmt::format("pid {}: {}", process.pid, FormatByteSize(*process.used_bytes))
                          : fmt::format("pid {}", process.pid));
  return fmt::format("{}", fmt::join(parts, ", "));
}

}  // namespace

void GpuPool::Attribute(int trial, const std::vector<int>& pids) {
  for (Gpu& gpu : state_)
    for (Hold& hold : gpu.holds)
      if (hold.trial == trial && !hold.released_at) hold.pids.insert(pids.begin(), pids.end());
}

bool GpuPool::AllAttributed(const std::vector<GpuMemoryReading>& readings) const {
  for (const GpuMemoryReading& reading : readings)
    for (const GpuProcessMemory& process : reading.processes) {
      const bool known = std::any_of(state_.begin(), state_.end(), [&](const Gpu& gpu) {
        return std::any_of(gpu.holds.begin(), gpu.holds.end(),
                           [&](const Hold& hold) { return hold.pids.contains(process.pid); });
      });
      if (!known) return false;
    }
  return true;
}

void GpuPool::Observe(const std::vector<GpuMemoryReading>& readings, double now) {
  memory_refused_ = false;
  std::set<int> unowned;
  for (const GpuMemoryReading& reading : readings) {
    const auto it = std::lower_bound(gpus_.begin(), gpus_.end(), reading.index);
    if (it == gpus_.end() || *it != reading.index) continue;
    Gpu& gpu = state_[it - gpus_.begin()];
    have_readings_ = true;
    gpu.reading = reading;
    gpu.read_at = now;
    for (Hold& hold : gpu.holds) {
      if (hold.released_at) continue;
      hold.read = true;
      hold.current_bytes =
          gpu_memory::ListedBytes(reading, [&](int pid) { return hold.pids.contains(pid); });
      if (std::any_of(reading.processes.begin(), reading.processes.end(),
                      [&](const GpuProcessMemory& p) { return hold.pids.contains(p.pid); }))
        pids_match_ = true;
      hold.peak_bytes = std::max(hold.peak_bytes, hold.current_bytes);
    }
    for (const GpuProcessMemory& process : reading.processes) {
      const bool owned = std::any_of(gpu.holds.begin(), gpu.holds.end(), [&](const Hold& hold) {
        return hold.pids.contains(process.pid);
      });
      if (owned) continue;
      unowned.insert(process.pid);
      // No trial's for a second: a process gpusweep did not start (a trial's new child
      // is attributed within a second, see Attribute's caller).
      const auto seen = suspects_.find(process.pid);
      if (seen != suspects_.end() && now - seen->second >= kForeignAfterSeconds &&
          reported_foreign_.insert(process.pid).second)
        notices_.push_back(GpuNotice{
            GpuNotice::Kind::kForeignMemory, reading.index, -1, process.used_bytes.value_or(0),
            {process.pid},
            fmt::format("GPU {}: pid {} holds {}; gpusweep did not start it ({} of {} free)",
                        reading.index, process.pid,
                        process.used_bytes ? FormatByteSize(*process.used_bytes)
                                           : std::string("memory NVML cannot measure"),
                        FormatByteSize(reading.free_bytes), FormatByteSize(reading.total_bytes))});
    }
  }
  std::map<int, double> next;
  for (int pid : unowned) next[pid] = suspects_.contains(pid) ? suspects_[pid] : now;
  suspects_ = std::move(next);
}

std::optional<std::uint64_t> GpuPool::Release(int trial, double now, TrialRan ran) {
  std::optional<std::uint64_t> peak;
  for (Gpu& gpu : state_) {
    for (auto it = gpu.holds.begin(); it != gpu.holds.end();) {
      if (it->trial != trial || it->released_at) {
        ++it;
        continue;
      }
      if (it->read) peak = std::max(peak.value_or(0), it->peak_bytes);
      if (!have_readings_ || ran == TrialRan::kNo) {
        it = gpu.holds.erase(it);
        continue;
      }
      it->released_at = now;
      ++it;
    }
  }
  return peak;
}

void GpuPool::Settle(double now) {
  for (Gpu& gpu : state_) Check(gpu, now);
}

// The released holds of `gpu` whose memory is free leave; those past the timeout
// quarantine the GPU until they are free too.
void GpuPool::Check(Gpu& gpu, double now) {
  const int index = gpus_[&gpu - state_.data()];
  const bool was_quarantined = gpu.quarantined;
  int recovered_trial = -1;
  for (auto it = gpu.holds.begin(); it != gpu.holds.end();) {
    Hold& hold = *it;
    // Only a reading taken after the trial ended can show that its memory is free.
    if (!hold.released_at || !gpu.reading || gpu.read_at <= *hold.released_at) {
      if (hold.released_at && !hold.timed_out &&
          now - *hold.released_at >= sharing_.release_timeout_seconds) {
        hold.timed_out = true;
        notices_.push_back(GpuNotice{
            GpuNotice::Kind::kQuarantined, index, hold.trial, 0, {},
            fmt::format("GPU {} quarantined: its memory could not be read since trial {} "
                        "ended {} ago; the sweep goes on with the other GPUs",
                        index, hold.trial, FormatDuration(now - *hold.released_at))});
      }
      ++it;
      continue;
    }
    const GpuMemoryReading& reading = *gpu.reading;
    // The trial's processes, and processes that appeared while it ran that no other
    // trial on this GPU owns (a child it started and gpusweep never saw). Shared GPUs
    // whose NVML pids never matched a trial's (another PID namespace) cannot tell a
    // sibling's processes from this trial's: there only its own pids count.
    const bool strangers_count = sharing_.trials_per_gpu == 1 || pids_match_;
    std::vector<int> blocking;
    for (const GpuProcessMemory& process : reading.processes) {
      const bool others = std::any_of(gpu.holds.begin(), gpu.holds.end(), [&](const Hold& h) {
        return &h != &hold && h.pids.contains(process.pid);
      });
      if (hold.pids.contains(process.pid) ||
          (strangers_count && !hold.listed_before.contains(process.pid) && !others))
        blocking.push_back(process.pid);
    }
    const std::uint64_t unlisted = gpu_memory::UnlistedBytes(reading);
    const std::uint64_t allowed = hold.baseline ? *hold.baseline + sharing_.release_tolerance : unlisted;
    if (blocking.empty() && unlisted <= allowed) {
      if (hold.timed_out) recovered_trial = hold.trial;
      it = gpu.holds.erase(it);
      continue;
    }
    if (!hold.timed_out && now - *hold.released_at >= sharing_.release_timeout_seconds) {
      hold.timed_out = true;
      const std::uint64_t by_processes = gpu_memory::ListedBytes(reading, [&](int pid) {
        return std::find(blocking.begin(), blocking.end(), pid) != blocking.end();
      });
      const std::uint64_t excess = unlisted > allowed ? unlisted - *hold.baseline : 0;
      std::vector<std::string> held;
      if (!blocking.empty()) held.push_back(PidList(reading, blocking));
      if (excess > 0)
        held.push_back(fmt::format("{} used beyond its level before the trial that no "
                                   "listed process accounts for", FormatByteSize(excess)));
      notices_.push_back(GpuNotice{
          GpuNotice::Kind::kQuarantined, index, hold.trial, by_processes + excess, blocking,
          fmt::format("GPU {} quarantined: trial {} ended {} ago but {} of GPU memory is "
                      "still held ({}); no trial goes to GPU {} until it is freed, the sweep "
                      "goes on with the other GPUs",
                      index, hold.trial, FormatDuration(now - *hold.released_at),
                      FormatByteSize(by_processes + excess), fmt::join(held, "; "), index)});
    }
    ++it;
  }
  gpu.quarantined = std::any_of(gpu.holds.begin(), gpu.holds.end(),
                                [](const Hold& h) { return h.timed_out; });
  if (was_quarantined && !gpu.quarantined)
    notices_.push_back(GpuNotice{GpuNotice::Kind::kRecovered, index, recovered_trial, 0, {},
                                 fmt::format("GPU {} is in use again: the memory trial {} left "
                                             "behind was freed",
                                             index, recovered_trial)});
}

std::vector<GpuNotice> GpuPool::TakeNotices() {
  std::vector<GpuNotice> taken = std::move(notices_);
  notices_.clear();
  return taken;
}

bool GpuPool::Waiting() const {
  if (memory_refused_) return true;
  return std::any_of(state_.begin(), state_.end(), [](const Gpu& gpu) {
    return std::any_of(gpu.holds.begin(), gpu.holds.end(),
                       [](const Hold& h) { return h.released_at && !h.timed_out; });
  });
}

std::vector<int> GpuPool::Quarantined() const {
  std::vector<int> quarantined;
  for (std::size_t i = 0; i < state_.size(); ++i)
    if (state_[i].quarantined) quarantined.push_back(gpus_[i]);
  return quarantined;
}

bool GpuPool::AllQuarantined() const {
  return !state_.empty() &&
         std::all_of(state_.begin(), state_.end(), [](const Gpu& gpu) { return gpu.quarantined; });
}

}  // namespace gpusweep
