// pbt_policy.h — population-based training (Jaderberg et al., "Population Based
// Training of Neural Networks", arXiv:1711.09846, 2017), asynchronous as in Ray Tune's
// PopulationBasedTraining by default, or by generation (synchronous: true).
//
// Shape. `population` members P each train max_resource in S = ceil(max_resource /
// perturbation_interval) segments. Segment s of member m is trial s*P + m: a budgeted
// job (it reads {{budget}}, the resource to reach, min((s+1)*interval, max_resource))
// with the params and the parent trial the policy gives it. Segment 0 starts from the
// sampler's draw for trial m and no parent; segment s > 0 continues from a checkpoint of
// segment s-1: the member's own, or a donor's after an exploit. The loop copies the
// parent's checkpoint into the new trial's directory before it starts
// (SearchPolicy::checkpoints(), docs/protocol.md "Population-based training").
//
// Decisions. When member m finishes segment s at resource r (asynchronous: at once;
// synchronous: once every live member finished s), the members that finished s are
// ranked by their value there (objective.h's Order; ties by member number). With n of
// them, q = ceil(n * quantile), at most floor(n / 2) (Ray's rule). A member ranked in the
// bottom q exploits: it takes the params and checkpoint of a member drawn uniformly from
// the top q whose segment s left a complete checkpoint (Job::checkpoint, reported by the
// loop; a member that never checkpointed is never a donor; with none, it continues its
// own), and explores them (pbt_explore.h). Every other member continues with its own
// params and checkpoint. A failed segment ends its member (its later segments never
// run: Eliminated). Every draw is from a stream seeded by (seed, the new trial number),
// so the same calls give the same decisions: the policy is journaled and replayed.
//
// Replay (PbtConfig::replay, written by `gpusweep best --replay`): one member whose
// segment s has the schedule's params s and continues its own segment s-1.
//
// Slots: a member waits only for its own previous segment (asynchronous) or its
// generation (synchronous); any member that can run does, lowest segment first.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "gpusweep/config.h"
#include "gpusweep/policy.h"
#include "gpusweep/sampler.h"

namespace gpusweep {

// What the policy decided after one segment, for the reason text, tests and `show`.
struct PbtStep {
  int member = 0;
  int segment = 0;        // the segment that ended
  double resource = 0;    // where it ended
  int rank = 0;           // 1-based among `ranked` members at that resource; 0: failed
  int ranked = 0;
  std::optional<int> donor_trial;  // set when it exploited
  Params before;          // the params the next segment would have had (its own)
  Params after;           // the params the next segment gets
  std::string reason;
};

class PbtPolicy final : public SearchPolicy {
 public:
  // `sampler` draws the initial population (trials 0..P-1); `resampler` (random over the
  // same space) the explore step's redraws; both != nullptr. config.kind == kPbt.
  PbtPolicy(const SchedulerConfig& config, SearchSpace space, Mode mode, std::uint64_t seed,
            std::unique_ptr<Sampler> sampler, std::unique_ptr<Sampler> resampler);

  int total_trials() const override { return population_ * segments_; }
  TrialStyle style() const override { return TrialStyle::kBudgeted; }
  bool journaled() const override { return true; }
  bool checkpoints() const override { return true; }

  Job NextJob(const CanStart& can_start) const override;
  Suggestion Suggest(int number, const std::vector<TrialRecord>& history) const override;
  void JobStarted(const Job& job) override;
  std::optional<Decision> OnReport(int trial, double resource, std::optional<double> value) override;
  Decision OnJobFinished(const Job& job, std::optional<double> value) override;
  void OnJobInterrupted(const Job& job) override;
  const std::vector<Decision>& Eliminated() const override { return eliminated_; }

  FailureWords failure_words() const override;
  Status AcceptRetryFailed() const override;
  std::vector<std::pair<std::string, std::string>> TrialEnv(const TrialRecord& trial) const override;

  int population() const { return population_; }
  int segments() const { return segments_; }
  int MemberOf(int trial) const { return trial % population_; }
  int SegmentOf(int trial) const { return trial / population_; }
  int TrialOf(int member, int segment) const { return segment * population_ + member; }
  double BudgetOf(int segment) const;
  // A replay (PbtConfig::replay): one member, the schedule's params, no exploit/explore.
  bool replaying() const { return !pbt_.replay.empty(); }
  // Every decision so far, in the order made.
  const std::vector<PbtStep>& steps() const { return steps_; }

 private:
  struct Member {
    int next = 0;            // the segment to start next (segments_: done)
    bool running = false;
    bool ready = true;       // its next segment's params and parent are decided
    bool ended = false;      // a segment failed: no more segments
    Params params;           // of segment `next`
    std::optional<int> parent;
  };
  struct Segment {            // a finished segment
    std::optional<double> value;
    bool checkpoint = false;
    Params params;
  };

  Job JobFor(int member) const;
  // Decides member m's segment s+1 once segment s finished; returns the step.
  PbtStep Decide(int member, int segment);
  // Members that finished `segment` with a value, best first.
  std::vector<int> Ranked(int segment) const;
  bool GenerationDone(int segment) const;
  void EndMember(int member, int segment);

  std::string resource_;
  double max_resource_ = 0;
  PbtConfig pbt_;
  SearchSpace space_;
  Mode mode_;
  std::uint64_t seed_;
  std::unique_ptr<Sampler> sampler_;
  std::unique_ptr<Sampler> resampler_;
  int population_ = 0;
  int segments_ = 0;
  std::vector<Member> members_;
  std::map<int, Segment> finished_;  // by trial number
  std::vector<PbtStep> steps_;
  std::vector<Decision> eliminated_;
};

// Builds the policy for `config` (scheduler.kind == kPbt, validated by the parser):
// the initial draws from config.sampler, redraws from a random sampler over the space.
Expected<std::unique_ptr<PbtPolicy>> MakePbtPolicy(const SchedulerConfig& scheduler,
                                                  const SamplerConfig& sampler,
                                                  const SearchSpace& space, Mode mode);

}  // namespace gpusweep
