#include "web/charted_trials.h"

#include <algorithm>
#include <cassert>

namespace gpusweep::web {
namespace {

// A run that ends normally leaves only these; the others are what a live page watches.
bool Settled(TrialState state) {
  return state == TrialState::kCompleted || state == TrialState::kFailed ||
         state == TrialState::kPruned;
}

}  // namespace

std::uint64_t ChartedTrials::SampleHash(int number) {
  std::uint64_t z = static_cast<std::uint64_t>(number) + 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

std::size_t ChartedTrials::StrideFor(std::size_t recorded) {
  if (recorded <= kMaxHeld) return 1;
  constexpr std::size_t kSampled = kMaxHeld - kBestHeld;
  return (recorded + kSampled - 1) / kSampled;
}

void ChartedTrials::Add(int number, std::vector<int>& joined) {
  assert(number >= 0);
  const auto at = static_cast<std::size_t>(number);
  if (at >= held_.size()) held_.resize(at + 1, false);
  if (held_[at]) return;
  held_[at] = true;
  ++count_;
  joined.push_back(number);
}

std::vector<int> ChartedTrials::Update(const std::vector<TrialRecord>& records,
                                       const std::vector<int>& best_first) {
  const std::size_t stride = StrideFor(records.size());
  const bool first = stride_ == 0;
  // Grown past its bound, or sampled at another stride: chosen anew, never shrunk in place.
  if (first || stride != stride_ || count_ > kMaxHeld * 5 / 4) {
    if (!first) ++generation_;
    held_.clear();
    count_ = 0;
    stride_ = stride;
  }
  recorded_ = records.size();
  known_.assign(records.empty() ? 0 : static_cast<std::size_t>(records.back().number) + 1, false);
  std::vector<int> joined;
  for (const TrialRecord& trial : records) {
    known_[static_cast<std::size_t>(trial.number)] = true;
    if (SampleHash(trial.number) % stride_ == 0 || !Settled(trial.state))
      Add(trial.number, joined);
  }
  best_ = stride_ > 1 ? std::min(kBestHeld, best_first.size()) : 0;
  for (std::size_t i = 0; i < best_; ++i) Add(best_first[i], joined);
  return joined;
}

Json ChartedTrials::Describe() const {
  return Json{{"held", count_},
              {"recorded", recorded_},
              {"stride", stride_ == 0 ? 1 : stride_},
              {"best", best_}};
}

}  // namespace gpusweep::web
