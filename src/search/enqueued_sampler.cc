// EnqueuedFirst (samplers.h): enqueued settings run first, completed by the sampler.
#include <utility>

#include "search/samplers.h"
#include "search/splitmix64.h"

namespace gpusweep::search {

namespace {
constexpr std::uint64_t kEnqueueFillSalt = 0xE4C0E0EDF111ULL;
}  // namespace

EnqueuedFirst::EnqueuedFirst(std::unique_ptr<Sampler> inner, SearchSpace space,
                             std::vector<Params> enqueued, Numbering numbering)
    : inner_(std::move(inner)),
      space_(std::move(space)),
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
  const Params& setting = enqueued_[static_cast<std::size_t>(number)];
  for (const auto& [name, value] : setting.items()) suggestion.params[name] = value;
  if (IsConditional(space_)) {
    // The setting may choose another branch than the sampler did: keep the leaves active
    // under the merged values; one the setting activates that neither has is drawn
    // from its prior (a stream of the trial number, so the trial replays).
    SplitMix64 stream = TrialStream(kEnqueueFillSalt, static_cast<std::uint64_t>(number));
    Params merged = Json::object();
    for (const ParamSpec& p : space_.params) {
      const std::uint64_t bits = stream.Next();
      if (!IsActive(p, merged)) continue;
      const auto given = setting.find(p.name);
      const auto drawn = suggestion.params.find(p.name);
      merged[p.name] = given != setting.end()               ? *given
                       : drawn != suggestion.params.end() ? *drawn
                                                          : ParamValueFromBits(p, bits);
    }
    suggestion.params = std::move(merged);
  }
  suggestion.number = number;
  suggestion.repeat = 0;
  return suggestion;
}

}  // namespace gpusweep::search
