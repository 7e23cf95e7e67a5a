// test_util.h — helpers for the schedule module's tests.
#pragma once

#include <memory>
#include <string>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "gpusweep/scheduler.h"

namespace gpusweep::schedule_detail {

inline SchedulerConfig RungConfig(SchedulerKind kind, double min, double max, double eta) {
  SchedulerConfig config;
  config.kind = kind;
  config.min_resource = min;
  config.max_resource = max;
  config.reduction_factor = eta;
  return config;
}

inline std::unique_ptr<Scheduler> Make(const SchedulerConfig& config, Mode mode,
                                       int configurations, TrialStyle style) {
  auto made = MakeScheduler(config, mode, configurations, style);
  EXPECT_TRUE(made.has_value()) << (made ? "" : made.error().message);
  return made ? std::move(*made) : nullptr;
}

inline std::string KindName(Job::Kind kind) {
  switch (kind) {
    case Job::Kind::kStart: return "start";
    case Job::Kind::kPromote: return "promote";
    case Job::Kind::kWait: return "wait";
    case Job::Kind::kDone: return "done";
  }
  return "?";
}

// "start 3 b0 r1 @3" — compact, so EXPECT_EQ failures read well.
inline std::string Describe(const Job& job) {
  if (job.kind == Job::Kind::kWait || job.kind == Job::Kind::kDone) return KindName(job.kind);
  return fmt::format("{} {} b{} r{} @{:g}", KindName(job.kind), job.trial, job.bracket, job.rung,
                     job.budget);
}

// Asks for the next job and, if it is one to run, launches it.
inline Job Launch(Scheduler& scheduler) {
  Job job = scheduler.NextJob();
  if (job.kind == Job::Kind::kStart || job.kind == Job::Kind::kPromote)
    scheduler.JobStarted(job);
  return job;
}

}  // namespace gpusweep::schedule_detail
