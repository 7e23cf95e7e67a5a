// Population-based training as a search policy (see pbt_policy.h).
#include "policy/pbt_policy.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <random>

#include <fmt/format.h>

#include "gpusweep/objective.h"
#include "policy/pbt_explore.h"

namespace gpusweep {
namespace {

// The decision's own stream: std::seed_seq's mixing is specified by the standard, so
// the same (seed, trial) give the same draws everywhere.
std::mt19937_64 DecisionStream(std::uint64_t seed, int trial) {
  std::seed_seq seq{static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32),
                    static_cast<std::uint32_t>(trial), 0x70627431u /* "pbt1" */};
  return std::mt19937_64(seq);
}

std::string ValueText(std::optional<double> value) { return value ? fmt::format("{:g}", *value) : "-"; }

}  // namespace

PbtPolicy::PbtPolicy(const SchedulerConfig& config, SearchSpace space, Mode mode, std::uint64_t seed,
                     std::unique_ptr<Sampler> sampler, std::unique_ptr<Sampler> resampler)
    : resource_(config.resource),
      max_resource_(config.max_resource),
      pbt_(config.pbt),
      space_(std::move(space)),
      mode_(mode),
      seed_(seed),
      sampler_(std::move(sampler)),
      resampler_(std::move(resampler)) {
  assert(config.kind == SchedulerKind::kPbt && sampler_ && resampler_);
  assert(pbt_.population >= 1 && pbt_.perturbation_interval > 0 && !pbt_.factors.empty());
  population_ = pbt_.population;
  // 1e-9: 20 / 0.1 is 200.00000000000003 in doubles and must not add a segment.
  segments_ = std::max(1, static_cast<int>(std::ceil(max_resource_ / pbt_.perturbation_interval - 1e-9)));
  members_.resize(static_cast<std::size_t>(population_));
  for (int m = 0; m < population_; ++m) members_[m].params = sampler_->Suggest(m, {}).params;
  if (replaying()) {
    assert(population_ == 1 && static_cast<int>(pbt_.replay.size()) == segments_);
    members_[0].params = pbt_.replay[0];
  }
}

double PbtPolicy::BudgetOf(int segment) const {
  return std::min(static_cast<double>(segment + 1) * pbt_.perturbation_interval, max_resource_);
}

Job PbtPolicy::JobFor(int member) const {
  const Member& m = members_[member];
  Job job;
  job.kind = Job::Kind::kStart;
  job.trial = TrialOf(member, m.next);
  job.rung = m.next;
  job.budget = BudgetOf(m.next);
  job.params = m.params;
  job.parent = m.parent;
  return job;
}

Job PbtPolicy::NextJob(const CanStart& can_start) const {
  std::vector<int> candidates;
  bool unfinished = false;
  for (int m = 0; m < population_; ++m) {
    const Member& member = members_[m];
    if (member.ended || member.next >= segments_) {
      unfinished = unfinished || member.running;
      continue;
    }
    unfinished = true;
    if (!member.running && member.ready) candidates.push_back(m);
  }
  if (!unfinished) return Job{Job::Kind::kDone};
  // Laggards first: they hold back nobody in async mode and the generation in sync mode.
  std::stable_sort(candidates.begin(), candidates.end(),
                   [&](int a, int b) { return members_[a].next < members_[b].next; });
  for (int m : candidates)
    if (Startable(can_start, TrialOf(m, members_[m].next))) return JobFor(m);
  return Job{Job::Kind::kWait};
}

Suggestion PbtPolicy::Suggest(int number, const std::vector<TrialRecord>& history) const {
  // A segment's job carries its params; this is what a segment that never runs records
  // (and what planning renders): its member's initial draw.
  Suggestion suggestion = sampler_->Suggest(MemberOf(number), history);
  if (replaying() && SegmentOf(number) < segments_) suggestion.params = pbt_.replay[SegmentOf(number)];
  suggestion.number = number;
  return suggestion;
}

void PbtPolicy::JobStarted(const Job& job) {
  Member& member = members_.at(static_cast<std::size_t>(MemberOf(job.trial)));
  assert(SegmentOf(job.trial) == member.next && !member.running && !member.ended);
  member.running = true;
}

std::optional<Decision> PbtPolicy::OnReport(int, double, std::optional<double>) {
  return std::nullopt;  // budgeted: a segment is judged when it ends
}

void PbtPolicy::OnJobInterrupted(const Job& job) {
  members_.at(static_cast<std::size_t>(MemberOf(job.trial))).running = false;
}

std::vector<int> PbtPolicy::Ranked(int segment) const {
  std::vector<int> ranked;
  for (int m = 0; m < population_; ++m) {
    auto it = finished_.find(TrialOf(m, segment));
    if (it != finished_.end() && it->second.value) ranked.push_back(m);
  }
  std::stable_sort(ranked.begin(), ranked.end(), [&](int a, int b) {
    return RanksBefore(mode_, finished_.at(TrialOf(a, segment)).value,
                       finished_.at(TrialOf(b, segment)).value);
  });
  return ranked;
}

bool PbtPolicy::GenerationDone(int segment) const {
  return std::all_of(members_.begin(), members_.end(),
                     [&](const Member& m) { return m.ended || m.next > segment; });
}

PbtStep PbtPolicy::Decide(int member, int segment) {
  const int trial = TrialOf(member, segment);
  const Segment& own = finished_.at(trial);
  Member& next = members_[member];
  PbtStep step;
  step.member = member;
  step.segment = segment;
  step.resource = BudgetOf(segment);
  step.before = own.params;
  next.params = own.params;
  next.parent = trial;
  next.ready = true;
  if (replaying()) {  // the schedule decides; nothing is ranked
    next.params = pbt_.replay[segment + 1];
    step.after = next.params;
    step.reason = fmt::format("replay: segment {} continues its own checkpoint with the "
                              "schedule's params",
                              segment + 1);
    steps_.push_back(step);
    return step;
  }

  const std::vector<int> ranked = Ranked(segment);
  const int n = static_cast<int>(ranked.size());
  const int index = static_cast<int>(std::find(ranked.begin(), ranked.end(), member) - ranked.begin());
  assert(index < n);
  int q = static_cast<int>(std::ceil(n * pbt_.quantile - 1e-9));
  if (q > n / 2) q = n / 2;
  step.rank = index + 1;
  step.ranked = n;
  const std::string where = fmt::format("rank {} of {} at {} {:g}", index + 1, n, resource_, step.resource);
  if (q == 0 || index < n - q) {
    step.reason = q == 0 ? fmt::format("{}: too few members there to compare; continues", where)
                         : fmt::format("{}: not in the bottom {}; continues", where, q);
  } else {
    std::vector<int> donors;
    for (int i = 0; i < q; ++i)
      if (finished_.at(TrialOf(ranked[i], segment)).checkpoint) donors.push_back(ranked[i]);
    if (donors.empty()) {
      step.reason = fmt::format("{}: in the bottom {}, but none of the top {} left a checkpoint "
                                "there; continues its own",
                                where, q, q);
    } else {
      const int new_trial = TrialOf(member, segment + 1);
      std::mt19937_64 rng = DecisionStream(seed_, new_trial);
      const int donor = donors[std::min(donors.size() - 1,
                                        static_cast<std::size_t>((rng() >> 11) * 0x1.0p-53 *
                                                                 static_cast<double>(donors.size())))];
      const int donor_trial = TrialOf(donor, segment);
      const Segment& given = finished_.at(donor_trial);
      Explored explored = PbtExplore(pbt_, space_, given.params, *resampler_, new_trial, rng);
      next.params = explored.params;
      next.parent = donor_trial;
      step.donor_trial = donor_trial;
      step.reason = fmt::format("{}: in the bottom {}; exploits member {} (trial {}, {}), explores {}",
                                where, q, donor, donor_trial, ValueText(given.value),
                                DescribeChanges(explored.changes));
    }
  }
  step.after = next.params;
  steps_.push_back(step);
  return step;
}

void PbtPolicy::EndMember(int member, int segment) {
  members_[member].ended = true;
  for (int s = segment + 1; s < segments_; ++s) {
    Decision d;
    d.trial = TrialOf(member, s);
    d.rung = s;
    d.resource = BudgetOf(s);
    d.verdict = Verdict::kStop;
    d.reason = fmt::format("member {} ended: its segment {} (trial {}) failed", member, segment,
                           TrialOf(member, segment));
    eliminated_.push_back(std::move(d));
  }
}

Decision PbtPolicy::OnJobFinished(const Job& job, std::optional<double> value) {
  const int m = MemberOf(job.trial), s = SegmentOf(job.trial);
  Member& member = members_.at(static_cast<std::size_t>(m));
  assert(s == member.next);
  member.running = false;
  member.next = s + 1;
  member.ready = false;
  finished_[job.trial] = Segment{value, value.has_value() && job.checkpoint.value_or(false), member.params};

  Decision decision;
  decision.trial = job.trial;
  decision.rung = s;
  decision.resource = BudgetOf(s);
  decision.value = value;
  decision.verdict = Verdict::kComplete;
  if (!value) {
    EndMember(m, s);
    decision.verdict = Verdict::kStop;
    decision.reason = fmt::format("member {} ends: segment {} has no result", m, s);
  } else if (s + 1 >= segments_) {
    decision.reason = fmt::format("member {} finished at {} {:g}", m, resource_, decision.resource);
  } else if (!pbt_.synchronous) {
    decision.reason = Decide(m, s).reason;
  } else {
    decision.reason = fmt::format("waits for generation {} to finish", s);
  }
  if (pbt_.synchronous && s + 1 < segments_ && GenerationDone(s)) {
    // The generation's last member: everyone who finished s is decided now, together.
    std::string decided;
    for (int other = 0; other < population_; ++other) {
      Member& each = members_[other];
      if (each.ended || each.next != s + 1 || each.ready) continue;
      const PbtStep step = Decide(other, s);
      if (other == m) decision.reason = step.reason;
      else decided += fmt::format("; member {}: {}", other, step.reason);
    }
    decision.reason += fmt::format("; generation {} finished{}", s, decided);
  }
  return decision;
}

FailureWords PbtPolicy::failure_words() const {
  return FailureWords{"trial", "a failed segment ended its member; start a new experiment to retry"};
}

Status PbtPolicy::AcceptRetryFailed() const {
  return Fail(ErrorCode::kInvalidArgument,
              "--retry-failed cannot be used with population-based training: a failed segment "
              "ended its member, and the others already ranked against it; start a new "
              "experiment instead");
}

std::vector<std::pair<std::string, std::string>> PbtPolicy::TrialEnv(const TrialRecord& trial) const {
  return {{"GPUSWEEP_PBT_MEMBER", std::to_string(MemberOf(trial.number))},
          {"GPUSWEEP_PBT_SEGMENT", std::to_string(SegmentOf(trial.number))}};
}

Expected<std::unique_ptr<PbtPolicy>> MakePbtPolicy(const SchedulerConfig& scheduler,
                                                  const SamplerConfig& sampler,
                                                  const SearchSpace& space, Mode mode) {
  GS_ASSIGN_OR_RETURN(std::unique_ptr<Sampler> initial, MakeSampler(sampler, space, mode));
  SamplerConfig redraws;
  redraws.kind = SamplerKind::kRandom;
  redraws.seed = sampler.seed ^ 0x9E3779B97F4A7C15ULL;  // not the initial draws again
  const double segments = std::ceil(scheduler.max_resource / scheduler.pbt.perturbation_interval);
  redraws.trials = static_cast<int>(std::min(1e9, std::max(1.0, segments) * scheduler.pbt.population));
  GS_ASSIGN_OR_RETURN(std::unique_ptr<Sampler> resampler, MakeSampler(redraws, space, mode));
  return std::make_unique<PbtPolicy>(scheduler, space, mode, sampler.seed, std::move(initial),
                                     std::move(resampler));
}

}  // namespace gpusweep
