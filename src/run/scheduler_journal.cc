#include "run/scheduler_journal.h"

#include <cmath>
#include <map>

#include <fmt/format.h>

#include "run/evaluation.h"

namespace gpusweep {
namespace {

constexpr std::string_view kJobStarted = "job_started";
constexpr std::string_view kReport = "report";
constexpr std::string_view kJobFinished = "job_finished";
constexpr std::string_view kJobInterrupted = "job_interrupted";
constexpr std::string_view kTrialEnded = "trial_ended";

Json ValueJson(std::optional<double> value) {
  return value && std::isfinite(*value) ? Json(*value) : Json();
}

std::optional<double> ValueFrom(const Json& json) {
  if (json.is_number()) return json.get<double>();
  return std::nullopt;
}

std::string_view JobKindName(Job::Kind kind) {
  switch (kind) {
    case Job::Kind::kStart: return "start";
    case Job::Kind::kPromote: return "promote";
    case Job::Kind::kWait: return "wait";
    case Job::Kind::kDone: return "done";
  }
  return "done";
}

Json JobJson(const Job& job) {
  Json json{{"kind", JobKindName(job.kind)}, {"trial", job.trial}, {"bracket", job.bracket},
            {"rung", job.rung},              {"budget", job.budget}};
  // Only jobs that carry them (population-based training), so every other journal's
  // events stay as they were.
  if (job.params) json["params"] = *job.params;
  if (job.parent) json["parent"] = *job.parent;
  if (job.checkpoint) json["checkpoint"] = *job.checkpoint;
  return json;
}

Json DecisionJson(const Decision& decision) {
  return Json{{"bracket", decision.bracket},   {"rung", decision.rung},
              {"resource", decision.resource}, {"value", ValueJson(decision.value)},
              {"verdict", ToString(decision.verdict)}, {"reason", decision.reason}};
}

Error Malformed(const SchedulerEventRecord& event, std::string_view problem) {
  return Error{ErrorCode::kJournal,
               fmt::format("scheduler event {} ({} of trial {}): {}", event.seq, event.kind,
                           event.trial, problem)};
}

Expected<Job> JobFrom(const SchedulerEventRecord& event) {
  const Json& job = event.detail.contains("job") ? event.detail["job"] : Json();
  if (!job.is_object()) return tl::unexpected(Malformed(event, "no job"));
  try {
    Job out;
    const std::string kind = job.at("kind").get<std::string>();
    out.kind = kind == "promote" ? Job::Kind::kPromote : Job::Kind::kStart;
    out.trial = job.at("trial").get<int>();
    out.bracket = job.at("bracket").get<int>();
    out.rung = job.at("rung").get<int>();
    out.budget = job.at("budget").get<double>();
    if (job.contains("params")) {
      if (!job["params"].is_object()) return tl::unexpected(Malformed(event, "params is not an object"));
      out.params = job["params"];
    }
    if (job.contains("parent")) out.parent = job["parent"].get<int>();
    if (job.contains("checkpoint")) out.checkpoint = job["checkpoint"].get<bool>();
    return out;
  } catch (const Json::exception& e) {
    return tl::unexpected(Malformed(event, e.what()));
  }
}

}  // namespace

SchedulerEventRecord JobStartedEvent(const Job& job, double time) {
  return SchedulerEventRecord{0, time, job.trial, std::string(kJobStarted),
                              Json{{"job", JobJson(job)}}};
}

SchedulerEventRecord ReportEvent(int trial, double resource, std::optional<double> value,
                                 const std::optional<Decision>& decision, double time) {
  return ReportEvent(trial, resource, Evaluation{value, {}, 0}, decision, time);
}

SchedulerEventRecord ReportEvent(int trial, double resource, const Evaluation& evaluation,
                                 const std::optional<Decision>& decision, double time) {
  Json detail{{"resource", resource}, {"value", ValueJson(evaluation.value)}};
  WriteEvaluation(evaluation, detail);
  if (decision) detail["decision"] = DecisionJson(*decision);
  return SchedulerEventRecord{0, time, trial, std::string(kReport), std::move(detail)};
}

SchedulerEventRecord JobFinishedEvent(const Job& job, std::optional<double> value,
                                      const Decision& decision, double time) {
  return JobFinishedEvent(job, Evaluation{value, {}, 0}, decision, time);
}

SchedulerEventRecord JobFinishedEvent(const Job& job, const Evaluation& evaluation,
                                      const Decision& decision, double time) {
  Json detail{{"job", JobJson(job)}, {"value", ValueJson(evaluation.value)}};
  WriteEvaluation(evaluation, detail);
  detail["decision"] = DecisionJson(decision);
  return SchedulerEventRecord{0, time, job.trial, std::string(kJobFinished), std::move(detail)};
}

SchedulerEventRecord JobInterruptedEvent(const Job& job, double time) {
  return SchedulerEventRecord{0, time, job.trial, std::string(kJobInterrupted),
                              Json{{"job", JobJson(job)}}};
}

SchedulerEventRecord TrialEndedEvent(int trial, const std::string& reason, double time) {
  return SchedulerEventRecord{0, time, trial, std::string(kTrialEnded),
                              Json{{"verdict", "stop"}, {"reason", reason}}};
}

Expected<SchedulerReplay> ReplaySchedulerEvents(JobCalls& scheduler,
                                                const std::vector<SchedulerEventRecord>& events,
                                                double now, const std::set<int>& followed) {
  std::map<int, JobInFlight> unfinished;  // trial -> job started and not yet ended
  for (const SchedulerEventRecord& event : events) {
    if (event.kind == kReport) {
      const Json& resource = event.detail.contains("resource") ? event.detail["resource"] : Json();
      if (!resource.is_number()) return tl::unexpected(Malformed(event, "no resource"));
      scheduler.OnEvaluatedReport(event.trial, resource.get<double>(),
                                  ReadEvaluation(event.detail));
      std::optional<Decision> decision = DecisionOf(event);
      if (auto job = unfinished.find(event.trial); job != unfinished.end() && decision &&
                                                   decision->verdict == Verdict::kStop)
        job->second.stopped = std::move(decision);
      continue;
    }
    if (event.kind == kTrialEnded) continue;
    GS_ASSIGN_OR_RETURN(Job job, JobFrom(event));
    if (event.kind == kJobStarted) {
      scheduler.JobStarted(job);
      unfinished[job.trial] = JobInFlight{job, std::nullopt};
    } else if (event.kind == kJobFinished) {
      scheduler.OnJobEvaluated(job, ReadEvaluation(event.detail));
      unfinished.erase(job.trial);
    } else if (event.kind == kJobInterrupted) {
      scheduler.OnJobInterrupted(job);
      unfinished.erase(job.trial);
    } else {
      return tl::unexpected(Malformed(event, "unknown kind"));
    }
  }
  SchedulerReplay replay;
  for (auto& [trial, in_flight] : unfinished) {
    if (followed.contains(trial)) {
      replay.in_flight.emplace(trial, std::move(in_flight));
      continue;
    }
    scheduler.OnJobInterrupted(in_flight.job);
    replay.recovered.push_back(JobInterruptedEvent(in_flight.job, now));
  }
  return replay;
}

std::optional<Decision> DecisionOf(const SchedulerEventRecord& event) {
  const Json& detail = event.detail;
  if (event.kind == kTrialEnded) {
    Decision d;
    d.trial = event.trial;
    d.verdict = Verdict::kStop;
    d.reason = detail.value("reason", "");
    return d;
  }
  if (!detail.contains("decision") || !detail["decision"].is_object()) return std::nullopt;
  const Json& json = detail["decision"];
  Decision d;
  d.trial = event.trial;
  d.bracket = json.value("bracket", 0);
  d.rung = json.value("rung", -1);
  d.resource = json.value("resource", 0.0);
  d.value = ValueFrom(json.value("value", Json()));
  const std::string verdict = json.value("verdict", "");
  for (Verdict v : {Verdict::kContinue, Verdict::kStop, Verdict::kPause, Verdict::kPromote,
                    Verdict::kComplete})
    if (ToString(v) == verdict) d.verdict = v;
  d.reason = json.value("reason", "");
  return d;
}

}  // namespace gpusweep
