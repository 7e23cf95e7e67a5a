// live_importance.h — parameter importance of a running experiment, kept current as
// trials finish without letting the forest eat the machine or hold up a page.
//
// fANOVA over 7,000 trials takes a second or more of CPU, so it is never recomputed
// per request: the newest result is kept with the trials revision it reflects, and a
// request that finds it stale recomputes it (on its own thread, outside any lock) only
// when no other computation runs and the throttle allows; meanwhile every request gets
// the newest result there is, marked `current: false`, so a page asks again later.
// Thread-safe.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <vector>

#include "gpusweep/config.h"
#include "gpusweep/json.h"
#include "gpusweep/status.h"
#include "gpusweep/trial.h"

namespace gpusweep::web {

// The trials as of one revision of LiveExperiment: the completed ones importance reads,
// or a sample of them (`sampled_from` > trials.size(): how many there were).
struct TrialsSnapshot {
  std::int64_t revision = 0;
  std::vector<TrialRecord> trials;
  std::size_t sampled_from = 0;
};

class LiveImportance {
 public:
  // A recomputation starts no sooner than max(`min_interval`, `cost_factor` x the last
  // computation's duration) after the last one ended: a sweep whose forest takes 1 s
  // spends at most 1/(1 + cost_factor) of one core on it, however fast trials finish.
  explicit LiveImportance(SearchSpace space,
                          std::chrono::milliseconds min_interval = std::chrono::seconds(2),
                          double cost_factor = 4);

  // {method: "fanova", trials: n completed used, of: how many completed trials they were
  //  chosen from (the snapshot's sampled_from; = trials when not sampled), revision: of
  //  the trials it reflects,
  //  current: revision == `revision`, params: [{name, importance}] most important first}.
  // `revision`: the experiment's trials revision now; `snapshot` copies its trials
  // (called only when a recomputation starts). Waits only when there is no result yet
  // and another thread is computing the first. Errors: FanovaImportances's.
  Expected<Json> Get(std::int64_t revision, const std::function<TrialsSnapshot()>& snapshot);

 private:
  using Clock = std::chrono::steady_clock;
  Expected<Json> Compute(const TrialsSnapshot& snapshot) const;

  const SearchSpace space_;
  const std::chrono::milliseconds min_interval_;
  const double cost_factor_;
  std::mutex mutex_;
  std::condition_variable computed_;
  bool computing_ = false;
  std::optional<Json> latest_;  // with "revision"
  Clock::time_point next_allowed_{};
};

}  // namespace gpusweep::web
