// gpu_pool.cc — exclusive whole-GPU allocation. Non-blocking by design: the scheduler
// polls TryAcquire, so there is no semaphore to deadlock on when a trial needs several
// GPUs and others hold some of them.
#include <algorithm>

#include <fmt/format.h>

#include "gpusweep/resources.h"

namespace gpusweep {

GpuPool::GpuPool(std::vector<int> gpus) : gpus_(std::move(gpus)) {
  std::sort(gpus_.begin(), gpus_.end());
  gpus_.erase(std::unique(gpus_.begin(), gpus_.end()), gpus_.end());
  busy_.assign(gpus_.size(), false);
}

int GpuPool::total() const { return static_cast<int>(gpus_.size()); }

int GpuPool::free_count() const {
  return static_cast<int>(std::count(busy_.begin(), busy_.end(), false));
}

std::optional<std::vector<int>> GpuPool::TryAcquire(int count) {
  if (count < 0 || count > free_count()) return std::nullopt;
  std::vector<int> acquired;
  acquired.reserve(count);
  // gpus_ is ascending, so the first free ones are the lowest-numbered.
  for (std::size_t i = 0; i < gpus_.size() && static_cast<int>(acquired.size()) < count; ++i) {
    if (!busy_[i]) {
      busy_[i] = true;
      acquired.push_back(gpus_[i]);
    }
  }
  return acquired;
}

void GpuPool::Release(const std::vector<int>& gpus) {
  for (int gpu : gpus) {
    const auto it = std::lower_bound(gpus_.begin(), gpus_.end(), gpu);
    if (it != gpus_.end() && *it == gpu) busy_[it - gpus_.begin()] = false;
  }
}

Status CheckGpuDemand(const std::vector<int>& gpus_per_trial_by_trial, int available) {
  for (std::size_t trial = 0; trial < gpus_per_trial_by_trial.size(); ++trial) {
    const int needed = gpus_per_trial_by_trial[trial];
    const std::string who = gpus_per_trial_by_trial.size() == 1
                                ? std::string("each trial")
                                : fmt::format("trial {}", trial);
    if (needed < 0) {
      return Fail(ErrorCode::kInvalidArgument,
                  fmt::format("{} asks for {} GPUs; a GPU count must be >= 0", who, needed));
    }
    if (needed > available) {
      return Fail(ErrorCode::kResource,
                  fmt::format("{} needs {} GPU{} but only {} {} available; lower "
                              "gpus_per_trial or add GPUs",
                              who, needed, needed == 1 ? "" : "s", available,
                              available == 1 ? "is" : "are"));
    }
  }
  return {};
}

}  // namespace gpusweep
