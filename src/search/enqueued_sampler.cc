// EnqueuedFirst (samplers.h): enqueued settings run first, completed by the sampler.
#include <utility>

#include "search/samplers.h"

namespace gpusweep::search {

EnqueuedFirst::EnqueuedFirst(std::unique_ptr<Sampler> inner, std::vector<Params> enqueued,
                             Numbering numbering)
    : inner_(std::move(inner)),
      enqueued_(std::move(enqueued)),
      offset_(numbering == Numbering::kAfterEnqueued ? static_cast<int>(enqueued_.size()) : 0) {}

int EnqueuedFirst::total_trials() const { return inner_->total_trials() + offset_; }

Suggestion EnqueuedFirst::Suggest(int number, const std::vector<TrialRecord>& history) const {
  if (number >= static_cast<int>(enqueued_.size())) {
    Suggestion suggestion = inner_->Suggest(number - offset_, history);
    suggestion.number = number;
    return suggestion;
  }
  // The parameters the setting leaves out come from the sampler's own choice for this
  // trial (a grid: its point `number`, wrapped to its size).
  const int fill = offset_ > 0 ? number % inner_->total_trials() : number;
  Suggestion suggestion = inner_->Suggest(fill, history);
  for (const auto& [name, value] : enqueued_[static_cast<std::size_t>(number)].items())
    suggestion.params[name] = value;
  suggestion.number = number;
  suggestion.repeat = 0;
  return suggestion;
}

}  // namespace gpusweep::search
