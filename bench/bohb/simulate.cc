// The BOHB benchmark's event loop (see simulate.h).
#include "simulate.h"

#include <cassert>
#include <map>
#include <queue>
#include <tuple>

namespace gpusweep::bench {
namespace {

struct Running {
  double end = 0;
  std::uint64_t order = 0;  // ties end in launch order
  Job job;
  double budget = 0;
  bool operator>(const Running& other) const {
    return std::tie(end, order) > std::tie(other.end, other.order);
  }
};

TrialState StateAfter(Verdict verdict) {
  switch (verdict) {
    case Verdict::kComplete: return TrialState::kCompleted;
    case Verdict::kStop: return TrialState::kPruned;
    case Verdict::kPause:
    case Verdict::kPromote:
    case Verdict::kContinue: return TrialState::kPaused;
  }
  return TrialState::kPaused;
}

class Loop {
 public:
  Loop(SearchPolicy& policy, const MultiFidelityWorkload& workload, std::uint64_t seed)
      : policy_(policy), workload_(workload), seed_(seed) {}

  // Starts what the policy gives until `free` workers are busy or it has nothing now.
  int Launch(int free, double now) {
    while (free > 0) {
      const Job job = policy_.NextJob({});
      if (job.kind != Job::Kind::kStart && job.kind != Job::Kind::kPromote) break;
      if (job.kind == Job::Kind::kStart) StartTrial(job);
      policy_.JobStarted(job);
      TrialRecord& record = history_[where_.at(job.trial)];
      const double budget =
          policy_.style() == TrialStyle::kBudgeted && job.budget > 0 ? job.budget : workload_.max_resource;
      record.state = TrialState::kRunning;
      record.budget = budget;
      const double cost = budget - trained_[job.trial];
      assert(cost > 0);
      running_.push(Running{now + cost, order_++, job, budget});
      result_.busy += cost;
      --free;
    }
    return free;
  }

  bool Idle() const { return running_.empty(); }
  double NextEnd() const { return running_.top().end; }

  void FinishNext() {
    const Running done = running_.top();
    running_.pop();
    TrialRecord& record = history_[where_.at(done.job.trial)];
    const double value = workload_.Value(record.params, done.budget, seed_, done.job.trial);
    const Decision decision = policy_.OnJobFinished(done.job, value);
    trained_[done.job.trial] = done.budget;
    record.state = StateAfter(decision.verdict);
    record.objective = value;
    record.last_metrics = Json{{"value", value}};
    if (done.budget >= workload_.max_resource - 1e-9 && value > best_at_max_) {
      best_at_max_ = value;
      result_.incumbents.push_back(Incumbent{done.end, 1 - workload_.Final(record.params)});
    }
  }

  SimulationResult Result(bool ran_out) {
    result_.ran_out = ran_out;
    return result_;
  }

 private:
  void StartTrial(const Job& job) {
    TrialRecord record;
    record.number = job.trial;
    record.params = job.params ? *job.params : policy_.Suggest(job.trial, history_).params;
    where_[job.trial] = history_.size();
    history_.push_back(std::move(record));
    ++result_.started;
  }

  SearchPolicy& policy_;
  const MultiFidelityWorkload& workload_;
  std::uint64_t seed_;
  std::vector<TrialRecord> history_;  // in start order
  std::map<int, std::size_t> where_;  // trial -> index in history_
  std::map<int, double> trained_;     // trial -> steps trained (its checkpoint)
  std::priority_queue<Running, std::vector<Running>, std::greater<>> running_;
  std::uint64_t order_ = 0;
  double best_at_max_ = -1e300;
  SimulationResult result_;
};

}  // namespace

SimulationResult Simulate(SearchPolicy& policy, const MultiFidelityWorkload& workload,
                          std::uint64_t seed, int workers, double horizon) {
  Loop loop(policy, workload, seed);
  double now = 0;
  int free = workers;
  for (;;) {
    free = loop.Launch(free, now);
    if (loop.Idle()) return loop.Result(true);
    if (loop.NextEnd() > horizon) return loop.Result(false);
    now = loop.NextEnd();
    loop.FinishNext();
    ++free;
  }
}

double RegretAt(const SimulationResult& result, double t) {
  double regret = 1;
  for (const Incumbent& incumbent : result.incumbents) {
    if (incumbent.time > t) break;
    regret = incumbent.regret;
  }
  return regret;
}

}  // namespace gpusweep::bench
