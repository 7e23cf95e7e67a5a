// charted_trials.h — which trials of an experiment the dashboard's page holds.
//
// The page sorts, filters and draws every trial it holds, and that stays well under a
// second up to about 10,000 trials (bench/web: 345 ms warm). At 100,000 the trials
// answer alone was 33 MB, 1.4 s to parse, and the page never drew in 120 s; the points
// answer was 2,000,000 points. So the server sends a page at most about kMaxHeld trials
// of an experiment (and only their learning-curve points):
// - every trial while the experiment has no more than kMaxHeld;
// - beyond that, the kBestHeld best completed trials (in the order `status` ranks them),
//   every trial not yet settled (running, paused, interrupted: what a live page
//   watches), and one in `stride` of the trials, stride = ceil(recorded / (kMaxHeld -
//   kBestHeld)), so the history and the slices keep the whole run's shape. Which ones: a
//   trial whose SampleHash is a multiple of the stride, not whose number is: a grid or a
//   sweep that cycles a parameter with the trial number would alias with "every k-th"
//   (every held trial the same value of it; a new user's 30,000-trial check found
//   importance over such a sample dropping two parameters).
// While a run goes on the set only grows (a trial held stays held: a page never loses a
// row it shows), until it passes 5/4 of kMaxHeld or the stride changes; then it is
// chosen anew and `generation` counts up, which tells a page to drop what it holds and
// take the new set whole. With no more than kMaxHeld trials the stride is 1, the set is
// every trial and the generation never changes.
//
// Pure: fed the trial records and their ranking; no I/O. Not thread-safe (LiveExperiment
// holds its lock around it).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "gpusweep/json.h"
#include "gpusweep/trial.h"

namespace gpusweep::web {

class ChartedTrials {
 public:
  static constexpr std::size_t kMaxHeld = 10000;
  static constexpr std::size_t kBestHeld = 2000;

  // Updates the set for `records` (by number, ascending) given `best_first`, the numbers
  // of completed trials best first (at least the first kBestHeld of them, or all).
  // Returns the numbers that joined the set (in `records`' order): a page must be sent
  // their rows even if they did not change. After a new choice (the generation changed)
  // every held trial counts as joined.
  std::vector<int> Update(const std::vector<TrialRecord>& records,
                          const std::vector<int>& best_first);

  bool Holds(int number) const {
    return number >= 0 && static_cast<std::size_t>(number) < held_.size() && held_[number];
  }
  // Whether `number` was among the records of the last Update: a trial committed since
  // is not yet decided either way (its points may be read before its row).
  bool Knows(int number) const {
    return number >= 0 && static_cast<std::size_t>(number) < known_.size() && known_[number];
  }
  // Starts at 1; counts up each time the set is chosen anew.
  std::int64_t generation() const { return generation_; }
  std::size_t held() const { return count_; }
  std::size_t stride() const { return stride_; }

  // {held, recorded, stride, best}: what the page says of the trials it shows (stride 1:
  // every trial; best: how many were chosen as the best, 0 then).
  Json Describe() const;

  // The stride for `recorded` trials: 1 up to kMaxHeld.
  static std::size_t StrideFor(std::size_t recorded);
  // A fixed mix of the trial number (splitmix64's finalizer): where a sample of trials
  // is taken by number, taken by this instead, so it is spread like a random one but the
  // same on every refresh and every server.
  static std::uint64_t SampleHash(int number);

 private:
  void Add(int number, std::vector<int>& joined);

  std::vector<bool> held_;   // by trial number
  std::vector<bool> known_;  // by trial number: in the last Update's records
  std::size_t count_ = 0;
  std::size_t recorded_ = 0;
  std::size_t stride_ = 0;  // 0: never chosen
  std::size_t best_ = 0;    // how many of the best the last update added (0 at stride 1)
  std::int64_t generation_ = 1;
};

}  // namespace gpusweep::web
