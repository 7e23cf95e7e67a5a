// `gpusweep show <trial>`: everything known about one trial.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <ctime>
#include <set>
#include <string>

#include <fmt/format.h>

#include "gpusweep/cv.h"
#include "gpusweep/experiment_files.h"
#include "gpusweep/report.h"
#include "report/cv_views.h"
#include "report/table.h"
#include "report/text.h"

namespace gpusweep {
namespace {

using report::Align;

constexpr size_t kMaxResultRows = 50;  // `show` is for a glance; export has everything

// ISO-8601 local time with an extended offset, "2024-03-01T14:05:09+01:00".
std::string IsoLocalTime(double unix_seconds) {
  const std::time_t t = static_cast<std::time_t>(std::floor(unix_seconds));
  std::tm local{};
  if (localtime_r(&t, &local) == nullptr) return "-";
  char buf[64];
  if (std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &local) == 0) return "-";
  // Not %z: it gives "+0100", and ISO-8601's extended format wants "+01:00".
  const long offset_minutes = std::labs(local.tm_gmtoff) / 60;
  return fmt::format("{}{}{:02d}:{:02d}", buf, local.tm_gmtoff < 0 ? '-' : '+',
                     offset_minutes / 60, offset_minutes % 60);
}

std::string OutcomeText(const TrialRecord& t) {
  if (t.term_signal) return fmt::format("killed by {} ({})", SignalName(*t.term_signal),
                                        *t.term_signal);
  if (t.exit_code) return fmt::format("exit code {}", *t.exit_code);
  return "";
}

// Result keys in order of first appearance; "step" is its own column.
std::vector<std::string> ResultKeys(const std::vector<IntermediateResult>& results) {
  std::vector<std::string> keys;
  for (const IntermediateResult& r : results) {
    if (!r.values.is_object()) continue;
    for (const auto& [key, value] : r.values.items())
      if (key != "step" && std::find(keys.begin(), keys.end(), key) == keys.end())
        keys.push_back(key);
  }
  return keys;
}

void AppendResults(std::string& out, const std::vector<IntermediateResult>& results,
                   const ReportContext& ctx) {
  if (results.empty()) {
    out += "Intermediate results: none\n";
    return;
  }
  const size_t first = results.size() > kMaxResultRows ? results.size() - kMaxResultRows : 0;
  out += first == 0 ? fmt::format("Intermediate results ({}):\n", results.size())
                    : fmt::format("Intermediate results (last {} of {}):\n",
                                  results.size() - first, results.size());

  std::set<int> attempts;
  for (const IntermediateResult& r : results) attempts.insert(r.attempt);
  const bool show_attempt = attempts.size() > 1;
  const std::vector<std::string> keys = ResultKeys(results);

  std::vector<report::Column> columns;
  if (show_attempt) columns.push_back({"ATTEMPT", Align::kRight});
  columns.push_back({"STEP", Align::kRight});
  for (const std::string& key : keys) columns.push_back({key, Align::kRight});
  report::Table table(std::move(columns));
  for (size_t i = first; i < results.size(); ++i) {
    const IntermediateResult& r = results[i];
    std::vector<report::Segment> cells;
    if (show_attempt) cells.push_back({std::to_string(r.attempt)});
    cells.push_back({std::to_string(r.step)});
    for (const std::string& key : keys) {
      const bool has = r.values.is_object() && r.values.contains(key);
      cells.push_back(
          {has ? report::FormatValue(r.values.at(key), report::Precision::kShort) : "-"});
    }
    table.AddRow(std::move(cells));
  }
  report::AppendTable(out, table, ctx.width, ctx.color);
}

void AppendLogTail(std::string& out, const std::string& log_tail) {
  if (log_tail.empty()) {
    out += "Last output: none\n";
    return;
  }
  out += "Last output:\n";
  out += log_tail;
  if (log_tail.back() != '\n') out += '\n';
}

}  // namespace

std::string FormatTrial(const TrialRecord& trial, const std::vector<IntermediateResult>& results,
                        const std::string& log_tail, const ReportContext& ctx,
                        const std::vector<std::string>& decisions,
                        const std::vector<TrialRecord>& trials) {
  std::string out;
  auto field = [&](std::string_view label, const std::string& value) {
    out += fmt::format("{:<11}{}\n", label, value);
  };
  out += fmt::format("Trial #{} of {}\n", trial.number, ctx.experiment_name);
  report::StyledLine state(fmt::format("{:<11}", "State"));
  state.Add(std::string(ToString(trial.state)), report::StateColor(trial.state));
  report::AppendLine(out, state, /*width=*/0, ctx.color);
  field("Attempt", std::to_string(trial.attempt));
  if (ctx.cv.enabled() && trial.number >= 0) out += report::FormatCvFold(trial, trials, ctx);
  const std::string resource = ctx.scheduler ? ctx.scheduler->resource : "budget";
  const std::optional<double> reached = report::ReachedResource(trial, resource);
  const bool stopped_short = trial.state == TrialState::kPruned && reached && trial.budget &&
                             *reached < *trial.budget;
  if (trial.budget)
    field("Budget", fmt::format("{} {}{}{}{}", resource, report::FormatNumber(*trial.budget),
                                stopped_short ? " planned" : "",
                                trial.rung > 0 ? fmt::format(" (rung {})", trial.rung) : "",
                                trial.bracket > 0 ? fmt::format(" (bracket {})", trial.bracket)
                                                  : ""));
  if (trial.repeat > 0) field("Repeat", std::to_string(trial.repeat));
  if (trial.job_id.empty()) {
    field("GPUs", report::GpusText(trial.gpus));
  } else {  // SLURM chose the devices; the job's own CUDA_VISIBLE_DEVICES names them
    field("SLURM job", trial.job_id);
    field("GPUs", fmt::format("{} (SLURM's choice)", trial.gpus.size()));
  }
  field("Started", trial.start_time > 0 ? IsoLocalTime(trial.start_time) : "-");
  field("Ended", trial.end_time > 0 ? IsoLocalTime(trial.end_time) : "-");
  const auto duration = report::TrialDuration(trial, ctx.now);
  field("Duration", duration ? FormatDuration(*duration) : "-");
  if (trial.state == TrialState::kPruned && trial.failure_reason.starts_with(kNotRun)) {
    field("Not run", trial.failure_reason.substr(kNotRun.size()));  // cv: a failed configuration
  } else if (trial.state == TrialState::kPruned) {
    // Its exit status only says how it took the stop request; where it was stopped
    // is what matters.
    field("Stopped", fmt::format("{}by {}: {}",
                                 reached ? fmt::format("at {} {} ", resource,
                                                       report::FormatNumber(*reached))
                                         : "",
                                 ctx.scheduler ? ctx.scheduler->type
                                 : ctx.cv.enabled() ? "cross-validation"
                                                    : "the scheduler",
                                 report::StopReason(trial)));
  } else {
    if (const std::string outcome = OutcomeText(trial); !outcome.empty()) field("Outcome", outcome);
    if (!trial.failure_reason.empty()) field("Reason", trial.failure_reason);
  }
  field("Objective", fmt::format("{} = {}", ctx.metric.name, report::ObjectiveText(trial.objective)));
  field("Directory", ExperimentFiles{ctx.experiment_dir}.trial_dir(trial.number).string());
  out += "Params:\n";
  out += report::ParamLines(trial.params);
  if (!decisions.empty()) {
    out += "Scheduler decisions:\n";
    for (const std::string& line : decisions) out += fmt::format("  {}\n", line);
  }
  AppendResults(out, results, ctx);
  AppendLogTail(out, log_tail);
  return out;
}

}  // namespace gpusweep
