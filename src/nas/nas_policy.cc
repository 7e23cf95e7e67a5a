// MakeNasPolicy (gpusweep/nas.h): the tournament as one search policy.
#include <algorithm>
#include <climits>
#include <memory>

#include <fmt/format.h>

#include "gpusweep/nas.h"
#include "nas/tournament.h"

namespace gpusweep {
namespace {

using nas::Slot;
using nas::Tournament;

// The tournament as the experiment's search policy. Trial numbers are fixed up front
// (the stage plan); each trial's params are the tournament's replay of the history
// plus one draw of its own (Tournament::Suggest). Trials are released in number order,
// a group (a round, the winner refinement, a confirm, the retrain) only once every
// earlier group finished. State: which trials started and which finished (a function of
// the calls; journaled and replayed like a scheduler's).
class NasTournamentPolicy final : public SearchPolicy {
 public:
  explicit NasTournamentPolicy(std::unique_ptr<const Tournament> tournament)
      : tournament_(std::move(tournament)),
        started_(tournament_->plan().slots.size(), false),
        finished_(tournament_->plan().slots.size(), false) {}

  int total_trials() const override { return static_cast<int>(tournament_->plan().slots.size()); }
  TrialStyle style() const override { return TrialStyle::kBudgeted; }
  bool journaled() const override { return true; }

  // A round's evaluations start in number order; one whose resources are not free
  // waits for them.
  Job NextJob(const CanStart& can_start) const override {
    const auto& slots = tournament_->plan().slots;
    const int n = static_cast<int>(slots.size());
    int first_unfinished = 0;
    while (first_unfinished < n && finished_[first_unfinished]) ++first_unfinished;
    if (first_unfinished == n) return Job{Job::Kind::kDone};
    const int open_group = slots[first_unfinished].group;
    for (int k = first_unfinished; k < n && slots[k].group == open_group; ++k)
      if (!started_[k]) {
        if (!Startable(can_start, k)) return Job{Job::Kind::kWait};
        return Job{Job::Kind::kStart, k, 0, 0, 0};
      }
    return Job{Job::Kind::kWait};
  }

  void JobStarted(const Job& job) override { started_.at(job.trial) = true; }

  Suggestion Suggest(int number, const std::vector<TrialRecord>& history) const override {
    return Suggestion{number, 0, tournament_->Suggest(number, history)};
  }

  std::optional<Decision> OnReport(int, double, std::optional<double>) override {
    return std::nullopt;
  }

  Decision OnJobFinished(const Job& job, std::optional<double> value) override {
    finished_.at(job.trial) = true;
    const Slot& slot = tournament_->plan().slots.at(job.trial);
    Decision decision;
    decision.trial = job.trial;
    decision.value = value;
    decision.verdict = Verdict::kComplete;
    decision.reason = slot.stage == nas::Stage::kRound
                          ? fmt::format("block {} round {} evaluation", slot.block, slot.round)
                          : fmt::format("block {} {} evaluation", slot.block, ToString(slot.stage));
    return decision;
  }

  void OnJobInterrupted(const Job& job) override { started_.at(job.trial) = false; }

  FailureWords failure_words() const override {
    return FailureWords{"trial", "failed evaluations keep failed_score: the tournament decided "
                                 "with it; --retry-failed reruns only a failed retrain"};
  }

  // The retrain is the last group and no decision reads its result, so a failed one
  // (e.g. timed out on a CPU) can run again without changing what the search chose.
  // A failed evaluation cannot: the eliminations, later samples and confirms were
  // decided with its failed_score.
  bool Retriable(const TrialRecord& failed) const override {
    const auto& slots = tournament_->plan().slots;
    return failed.number >= 0 && failed.number < static_cast<int>(slots.size()) &&
           slots[failed.number].stage == nas::Stage::kRetrain;
  }

  // After the replay every finished retrain is marked finished; with --retry-failed
  // the failed ones start again, with their recorded params (the architecture chosen).
  std::vector<Decision> Restore(const std::vector<TrialRecord>& recorded,
                                FailedTrials failed) override {
    retried_ = 0;
    if (failed != FailedTrials::kRetry) return {};
    for (const TrialRecord& record : recorded)
      if (record.state == TrialState::kFailed && Retriable(record) && finished_.at(record.number)) {
        started_.at(record.number) = false;
        finished_.at(record.number) = false;
        ++retried_;
      }
    return {};
  }

  int ToRun(const std::vector<TrialRecord>& recorded) const override {
    return SearchPolicy::ToRun(recorded) + retried_;
  }

  std::vector<std::pair<std::string, std::string>> TrialEnv(const TrialRecord& trial) const override {
    return NasTrialEnv(trial.params);
  }

 private:
  std::unique_ptr<const Tournament> tournament_;
  std::vector<bool> started_;
  std::vector<bool> finished_;
  int retried_ = 0;  // failed retrains requeued by Restore (--retry-failed)
};

long Binomial(long n, long k) {  // saturating
  long result = 1;
  for (long i = 1; i <= k; ++i) {
    if (result > LONG_MAX / (n - k + i)) return LONG_MAX;
    result = result * (n - k + i) / i;
  }
  return result;
}

}  // namespace

long CountNasTopologies(int depth, int width, int max_depth) {
  long branches = 0;
  for (int from = 0; from <= depth - 3; ++from)
    for (int to = from + 2; to < depth; ++to) branches += std::min(to - from - 1, max_depth);
  long total = 0;
  for (int size = 0; size <= width; ++size) {
    if (branches == 0 && size > 0) break;
    const long multisets = Binomial(branches + size - 1, size);
    if (multisets == LONG_MAX || total > LONG_MAX - multisets) return LONG_MAX;
    total += multisets;
  }
  return total;
}

Expected<std::unique_ptr<SearchPolicy>> MakeNasPolicy(const NasConfig& config,
                                                      const Objective& objective) {
  const long topologies = CountNasTopologies(config.depth, config.width, config.max_depth);
  if (topologies > kMaxNasTopologies)
    return Fail(ErrorCode::kInvalidConfig,
                fmt::format("nas: depth {}, width {} and max_depth {} give {} topologies, more "
                            "than {}; lower width or max_depth (the seed's 4, 2, 3 give 15)",
                            config.depth, config.width, config.max_depth,
                            topologies == LONG_MAX ? std::string("too many")
                                                   : std::to_string(topologies),
                            kMaxNasTopologies));
  return std::unique_ptr<SearchPolicy>(
      std::make_unique<NasTournamentPolicy>(std::make_unique<const Tournament>(config, objective)));
}

std::vector<std::pair<std::string, std::string>> NasTrialEnv(const Params& params) {
  std::vector<std::pair<std::string, std::string>> env;
  auto add = [&](const char* key, const char* name) {
    const auto found = params.find(key);
    if (found == params.end()) return;
    env.emplace_back(name, found->is_string() ? found->get<std::string>() : found->dump());
  };
  add("nas_stage", "GPUSWEEP_NAS_STAGE");
  add("nas_block", "GPUSWEEP_NAS_BLOCK");
  add("nas_round", "GPUSWEEP_NAS_ROUND");
  add("data_size", "GPUSWEEP_DATA_SIZE");
  add("epochs", "GPUSWEEP_EPOCHS");
  return env;
}

std::string NasStageText(const Params& params) {
  const auto stage = params.find("nas_stage");
  if (stage == params.end() || !stage->is_string()) return "";
  const int data_size = params.value("data_size", 0);
  const std::string budget = fmt::format(
      "(data {}, epochs {})", data_size > 0 ? std::to_string(data_size) : std::string("all"),
      params.value("epochs", 0));
  const std::string name = stage->get<std::string>();
  if (name == "retrain") return "retrain " + budget;
  const std::string where =
      name == "round"    ? fmt::format("round {}", params.value("nas_round", 0))
      : name == "winner" ? std::string("winner refinement")
                         : name;
  return fmt::format("block {}, {} {}", params.value("nas_block", 0), where, budget);
}

}  // namespace gpusweep
