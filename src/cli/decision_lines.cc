#include "cli/decision_lines.h"

#include <ctime>

#include <fmt/format.h>

#include "gpusweep/nas.h"
#include "gpusweep/render.h"
#include "run/scheduler_journal.h"

namespace gpusweep {
namespace {

std::string ClockTime(double unix_seconds) {
  const std::time_t t = static_cast<std::time_t>(unix_seconds);
  std::tm local{};
  localtime_r(&t, &local);
  char text[16];
  std::strftime(text, sizeof text, "%H:%M:%S", &local);
  return text;
}

std::string ValueText(const Json& value) {
  return value.is_number() ? fmt::format("{:.6g}", value.get<double>()) : "no value";
}

// How a job and a decision name where they are: the resource with the budget and rung,
// or (NAS) the evaluation's stage.
struct Where {
  std::string resource;
  std::string stage;  // non-empty: stands for all of the above

  // "up to epoch 3 (rung 1)", or the stage.
  std::string Job(const Json& job) const {
    if (!stage.empty()) return stage;
    return fmt::format("up to {} {} (rung {})", resource,
                       BudgetJson(job.value("budget", 0.0)).dump(), job.value("rung", 0));
  }
  std::string Decision(const gpusweep::Decision& decision) const {
    if (!stage.empty()) return stage;
    return fmt::format("rung {} ({} {})", decision.rung, resource,
                       BudgetJson(decision.resource).dump());
  }
};

std::vector<std::string> Lines(const std::vector<SchedulerEventRecord>& events, const Where& at) {
  std::vector<std::string> lines;
  bool stopped = false;  // a report's stop decision already said why
  for (const SchedulerEventRecord& event : events) {
    const std::string when = ClockTime(event.time);
    const Json job = event.detail.value("job", Json::object());
    if (event.kind == "job_started") {
      // A job that continues another trial's state (population-based training) names it.
      const std::string from = job.contains("parent") && job["parent"].is_number_integer()
                                   ? fmt::format(", from trial {}'s checkpoint", job["parent"].get<int>())
                                   : "";
      lines.push_back(fmt::format("{}  {}: runs {}{}", when,
                                  job.value("kind", "") == "promote" ? "promoted" : "started",
                                  at.Job(job), from));
    } else if (event.kind == "job_interrupted") {
      lines.push_back(fmt::format("{}  interrupted: the job {} runs again", when, at.Job(job)));
    } else if (std::optional<Decision> decision = DecisionOf(event)) {
      if (decision->verdict == Verdict::kStop && event.kind == "job_finished" && stopped) continue;
      stopped = decision->verdict == Verdict::kStop;
      const std::string where =
          decision->rung >= 0 && event.kind != "trial_ended"
              ? fmt::format("{}: {} -> ", at.Decision(*decision),
                            ValueText(event.detail["decision"].value("value", Json())))
              : "";
      lines.push_back(fmt::format("{}  {}{}{}{}", when, where, ToString(decision->verdict),
                                  decision->reason.empty() ? "" : ": ", decision->reason));
    }
  }
  return lines;
}

}  // namespace

std::vector<std::string> DecisionLines(const std::vector<SchedulerEventRecord>& events,
                                       const std::string& resource) {
  return Lines(events, Where{resource, ""});
}

std::vector<std::string> DecisionLinesAt(const std::vector<SchedulerEventRecord>& events,
                                         const std::string& where) {
  return Lines(events, Where{"", where});
}

std::vector<std::string> TrialDecisionLines(const std::vector<SchedulerEventRecord>& events,
                                            const std::string& resource,
                                            const TrialRecord& trial) {
  // A NAS evaluation's jobs have no budget: its stage says where it is.
  const std::string stage = NasStageText(trial.params);
  return stage.empty() ? DecisionLines(events, resource) : DecisionLinesAt(events, stage);
}

}  // namespace gpusweep
