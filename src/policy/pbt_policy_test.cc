// Population-based training as a policy: numbering, exploit by quantile, donors need a
// checkpoint, failures end a member, async never waits, sync waits for its generation,
// and the same calls give the same decisions.
#include "policy/pbt_policy.h"

#include <map>
#include <set>

#include <gtest/gtest.h>

#include "search/param_specs_for_tests.h"

namespace gpusweep {
namespace {

using test_support::Choice;
using test_support::Real;

SchedulerConfig Pbt(int population, double interval, double max, bool synchronous = false,
                    double quantile = 0.25) {
  SchedulerConfig config;
  config.kind = SchedulerKind::kPbt;
  config.max_resource = max;
  config.pbt.population = population;
  config.pbt.perturbation_interval = interval;
  config.pbt.synchronous = synchronous;
  config.pbt.quantile = quantile;
  return config;
}

std::unique_ptr<PbtPolicy> Make(const SchedulerConfig& config, std::uint64_t seed = 3) {
  SamplerConfig sampler;
  sampler.kind = SamplerKind::kRandom;
  sampler.trials = config.pbt.population;
  sampler.seed = seed;
  const SearchSpace space{{Real("lr", ParamKind::kLogUniform, 1e-4, 1e-1), Choice("act", {"a", "b", "c"})}};
  auto policy = MakePbtPolicy(config, sampler, space, Mode::kMax);
  EXPECT_TRUE(policy.has_value()) << policy.error().message;
  return std::move(*policy);
}

Job Start(PbtPolicy& policy) {
  const Job job = policy.NextJob({});
  if (job.kind == Job::Kind::kStart) policy.JobStarted(job);
  return job;
}

Decision Finish(PbtPolicy& policy, Job job, std::optional<double> value, bool checkpoint = true) {
  job.checkpoint = checkpoint;
  return policy.OnJobFinished(job, value);
}

TEST(PbtPolicyTest, MembersRunInSegmentsNumberedByMemberAndSegment) {
  auto policy = Make(Pbt(3, 2, 5));  // segments end at 2, 4, 5
  EXPECT_EQ(policy->segments(), 3);
  EXPECT_EQ(policy->total_trials(), 9);
  EXPECT_EQ(policy->style(), TrialStyle::kBudgeted);
  EXPECT_TRUE(policy->journaled());
  EXPECT_TRUE(policy->checkpoints());
  std::vector<Job> first;
  for (int m = 0; m < 3; ++m) {
    first.push_back(Start(*policy));
    EXPECT_EQ(first.back().trial, m);
    EXPECT_EQ(first.back().budget, 2);
    EXPECT_FALSE(first.back().parent);
    EXPECT_EQ(*first.back().params, policy->Suggest(m, {}).params);
  }
  EXPECT_EQ(policy->NextJob({}).kind, Job::Kind::kWait);  // every member is running
  // Member 1 finishes first: with no one to compare with, it continues at once (async).
  const Decision d = Finish(*policy, first[1], 0.5);
  EXPECT_EQ(d.verdict, Verdict::kComplete);
  EXPECT_NE(d.reason.find("too few members"), std::string::npos) << d.reason;
  const Job next = Start(*policy);
  EXPECT_EQ(next.trial, 4);  // member 1, segment 1
  EXPECT_EQ(next.budget, 4);
  EXPECT_EQ(next.parent, 1);
  EXPECT_EQ(*next.params, *first[1].params);
  TrialRecord seventh;
  seventh.number = 7;
  EXPECT_EQ(policy->TrialEnv(seventh),
            (std::vector<std::pair<std::string, std::string>>{{"GPUSWEEP_PBT_MEMBER", "1"},
                                                             {"GPUSWEEP_PBT_SEGMENT", "2"}}));
}

// Synchronous, so every member is ranked against the whole generation.
TEST(PbtPolicyTest, TheBottomQuantileCopiesATopMemberWithACheckpointAndExplores) {
  auto policy = Make(Pbt(8, 1, 3, /*synchronous=*/true));  // q = 2
  std::vector<Job> jobs;
  for (int m = 0; m < 8; ++m) jobs.push_back(Start(*policy));
  // Values: member m scores m; the top two are 7 and 6, and 7 never checkpointed.
  for (int m = 0; m < 8; ++m) {
    Finish(*policy, jobs[m], m, /*checkpoint=*/m != 7);
    if (m < 7) {
      EXPECT_EQ(policy->NextJob({}).kind, Job::Kind::kWait) << "the generation waits";
    }
  }
  std::map<int, Job> next;
  for (int i = 0; i < 8; ++i) {
    const Job job = Start(*policy);
    ASSERT_EQ(job.kind, Job::Kind::kStart);
    next[policy->MemberOf(job.trial)] = job;
  }
  for (int m = 0; m < 8; ++m) {
    if (m < 2) {  // bottom 2: their parent is member 6's segment (7 has no checkpoint)
      EXPECT_EQ(next[m].parent, 6) << m;
      EXPECT_NE(*next[m].params, *jobs[6].params) << "explored";
    } else {
      EXPECT_EQ(next[m].parent, m) << m;
      EXPECT_EQ(*next[m].params, *jobs[m].params) << m;
    }
  }
  ASSERT_EQ(policy->steps().size(), 8u);
  for (const PbtStep& step : policy->steps()) {
    if (step.member >= 2) continue;
    EXPECT_EQ(step.donor_trial, 6);
    EXPECT_EQ(step.rank, 8 - step.member);
    EXPECT_NE(step.reason.find("exploits member 6"), std::string::npos) << step.reason;
  }
}

TEST(PbtPolicyTest, AMemberThatNeverCheckpointedIsNeverADonor) {
  for (std::uint64_t seed = 0; seed < 20; ++seed) {
    auto policy = Make(Pbt(4, 1, 2, true, 0.5), seed);  // q = 2: top two, bottom two
    std::vector<Job> jobs;
    for (int m = 0; m < 4; ++m) jobs.push_back(Start(*policy));
    for (int m = 0; m < 4; ++m) Finish(*policy, jobs[m], m, /*checkpoint=*/false);
    for (int i = 0; i < 4; ++i) {
      const Job job = Start(*policy);
      EXPECT_EQ(job.parent, policy->MemberOf(job.trial)) << "continues its own";
      EXPECT_EQ(*job.params, *jobs[policy->MemberOf(job.trial)].params);
    }
    for (const PbtStep& step : policy->steps()) {
      EXPECT_FALSE(step.donor_trial);
      if (step.member < 2) {
        EXPECT_NE(step.reason.find("none of the top 2 left a checkpoint"), std::string::npos);
      }
    }
  }
}

TEST(PbtPolicyTest, AFailedSegmentEndsItsMemberAndNoOneCopiesIt) {
  auto policy = Make(Pbt(2, 1, 3));
  const Job a = Start(*policy), b = Start(*policy);
  const Decision failed = Finish(*policy, a, std::nullopt);
  EXPECT_EQ(failed.verdict, Verdict::kStop);
  ASSERT_EQ(policy->Eliminated().size(), 2u);  // member 0's segments 1 and 2 never run
  EXPECT_EQ(policy->Eliminated()[0].trial, 2);
  EXPECT_EQ(policy->Eliminated()[1].trial, 4);
  Finish(*policy, b, 0.3);
  const Job next = Start(*policy);
  EXPECT_EQ(next.trial, 3);
  EXPECT_EQ(next.parent, 1);
  Finish(*policy, next, 0.4);
  const Job last = Start(*policy);
  EXPECT_EQ(last.trial, 5);
  EXPECT_EQ(Finish(*policy, last, 0.5).verdict, Verdict::kComplete);
  EXPECT_EQ(policy->NextJob({}).kind, Job::Kind::kDone);
}

TEST(PbtPolicyTest, AsynchronousMembersNeverWaitForEachOther) {
  auto policy = Make(Pbt(3, 1, 4));
  const Job slow = Start(*policy);
  Job fast = Start(*policy);
  const Job third = Start(*policy);
  // Member 1 runs all its segments while members 0 and 2 are still in segment 0.
  for (int s = 1; s < 4; ++s) {
    Finish(*policy, fast, 1.0 * s);
    fast = Start(*policy);
    EXPECT_EQ(fast.trial, s * 3 + 1);
  }
  Finish(*policy, fast, 9);
  EXPECT_EQ(policy->NextJob({}).kind, Job::Kind::kWait);
  Finish(*policy, slow, 0.1);  // member 0 at resource 1: ranked with member 1's value there
  const Job after = Start(*policy);
  EXPECT_EQ(after.trial, 3);
  EXPECT_EQ(after.parent, 1) << "bottom of 2 at resource 1: copies member 1";
  EXPECT_TRUE(third.kind == Job::Kind::kStart);
  // An interrupted job is handed out again, the same.
  policy->OnJobInterrupted(after);
  const Job again = Start(*policy);
  EXPECT_EQ(again.trial, after.trial);
  EXPECT_EQ(again.params, after.params);
  EXPECT_EQ(again.parent, after.parent);
}

// A whole population driven by a value function of (params, resource); returns every
// job started, in order.
std::vector<Job> Drive(PbtPolicy& policy, int slots, int interrupt_every) {
  std::vector<Job> started;
  std::vector<Job> running;
  int calls = 0;
  while (true) {
    while (static_cast<int>(running.size()) < slots) {
      const Job job = Start(policy);
      if (job.kind != Job::Kind::kStart) break;
      started.push_back(job);
      running.push_back(job);
    }
    if (running.empty()) break;
    const Job job = running.front();  // oldest first
    running.erase(running.begin());
    if (interrupt_every > 0 && ++calls % interrupt_every == 0) {
      policy.OnJobInterrupted(job);
      continue;
    }
    const double lr = job.params->at("lr").get<double>();
    Finish(policy, job, -std::abs(std::log10(lr) + 2) + job.budget * 0.01, job.trial % 3 != 0);
  }
  return started;
}

TEST(PbtPolicyTest, TheSameCallsGiveTheSameDecisions) {
  for (bool synchronous : {false, true}) {
    auto one = Make(Pbt(6, 1, 5, synchronous)), two = Make(Pbt(6, 1, 5, synchronous));
    const std::vector<Job> a = Drive(*one, 3, 7), b = Drive(*two, 3, 7);
    ASSERT_EQ(a.size(), b.size());
    for (std::size_t i = 0; i < a.size(); ++i) {
      EXPECT_EQ(a[i].trial, b[i].trial);
      EXPECT_EQ(a[i].params, b[i].params);
      EXPECT_EQ(a[i].parent, b[i].parent);
    }
    EXPECT_EQ(one->NextJob({}).kind, Job::Kind::kDone);
    int exploits = 0;
    for (const PbtStep& step : one->steps()) exploits += step.donor_trial.has_value();
    EXPECT_GT(exploits, 0) << "synchronous " << synchronous;
  }
}

TEST(PbtPolicyTest, AReplayRunsOneMemberWithTheSchedulesParamsAndItsOwnCheckpoints) {
  SchedulerConfig config = Pbt(1, 2, 5);  // segments end at 2, 4, 5
  config.pbt.replay = {Json{{"lr", 0.01}, {"act", "a"}}, Json{{"lr", 0.02}, {"act", "a"}},
                       Json{{"lr", 0.004}, {"act", "c"}}};
  auto policy = Make(config);
  ASSERT_EQ(policy->total_trials(), 3);
  for (int segment = 0; segment < 3; ++segment) {
    EXPECT_EQ(policy->Suggest(segment, {}).params, config.pbt.replay[segment]);
    const Job job = Start(*policy);
    ASSERT_EQ(job.kind, Job::Kind::kStart);
    EXPECT_EQ(job.trial, segment);
    EXPECT_EQ(*job.params, config.pbt.replay[segment]);
    EXPECT_EQ(job.parent, segment == 0 ? std::nullopt : std::optional<int>(segment - 1));
    EXPECT_EQ(Finish(*policy, job, 0.1 * segment).verdict, Verdict::kComplete);
  }
  EXPECT_EQ(policy->NextJob({}).kind, Job::Kind::kDone);
  for (const PbtStep& step : policy->steps()) EXPECT_FALSE(step.donor_trial);
}

}  // namespace
}  // namespace gpusweep
