#include "web/live_importance.h"

#include <algorithm>

#include "importance/importance.h"

namespace gpusweep::web {

LiveImportance::LiveImportance(SearchSpace space, std::chrono::milliseconds min_interval,
                               double cost_factor)
    : space_(std::move(space)), min_interval_(min_interval), cost_factor_(cost_factor) {}

Expected<Json> LiveImportance::Compute(const TrialsSnapshot& snapshot) const {
  GS_ASSIGN_OR_RETURN(std::vector<importance::ParamImportance> ranked,
                      importance::FanovaImportances(snapshot.trials, space_));
  Json params = Json::array();
  for (const auto& p : ranked) params.push_back(Json{{"name", p.name}, {"importance", p.importance}});
  const auto completed = std::count_if(snapshot.trials.begin(), snapshot.trials.end(),
                                       [](const TrialRecord& t) {
                                         return t.state == TrialState::kCompleted && t.objective;
                                       });
  return Json{{"method", "fanova"},
              {"trials", completed},
              {"of", std::max<std::size_t>(snapshot.sampled_from, static_cast<std::size_t>(completed))},
              {"revision", snapshot.revision},
              {"params", std::move(params)}};
}

Expected<Json> LiveImportance::Get(std::int64_t revision,
                                   const std::function<TrialsSnapshot()>& snapshot) {
  auto answer = [revision](Json result) {
    result["current"] = result["revision"].get<std::int64_t>() >= revision;
    return result;
  };
  std::unique_lock lock(mutex_);
  while (true) {
    if (latest_ && (*latest_)["revision"].get<std::int64_t>() >= revision) return answer(*latest_);
    if (!computing_ && (!latest_ || Clock::now() >= next_allowed_)) break;
    if (latest_) return answer(*latest_);  // stale, but a page need not wait for the forest
    computed_.wait(lock);                  // the first result is on its way
  }
  computing_ = true;
  lock.unlock();
  const Clock::time_point start = Clock::now();
  const TrialsSnapshot trials = snapshot();
  Expected<Json> result = Compute(trials);
  const Clock::time_point end = Clock::now();
  lock.lock();
  computing_ = false;
  const auto cost = std::chrono::duration_cast<std::chrono::milliseconds>((end - start) * cost_factor_);
  next_allowed_ = end + std::max(min_interval_, cost);
  if (result) latest_ = *result;
  computed_.notify_all();
  if (!result) return result;
  return answer(std::move(*result));
}

}  // namespace gpusweep::web
