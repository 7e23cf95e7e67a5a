#include "backend/slurm_text.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>

#include <fmt/format.h>

#include "gpusweep/experiment_files.h"

namespace gpusweep {
namespace {

// Single-quoted for bash: ' becomes '\''.
std::string ShellQuote(std::string_view text) {
  std::string quoted = "'";
  for (char c : text) {
    if (c == '\'') quoted += "'\\''";
    else quoted += c;
  }
  return quoted + "'";
}

std::string Trim(std::string_view text) {
  const std::size_t start = text.find_first_not_of(" \t\r");
  if (start == std::string_view::npos) return {};
  const std::size_t end = text.find_last_not_of(" \t\r");
  return std::string(text.substr(start, end - start + 1));
}

std::vector<std::string> Split(std::string_view line, char separator) {
  std::vector<std::string> fields;
  std::size_t start = 0;
  while (true) {
    const std::size_t end = line.find(separator, start);
    fields.push_back(Trim(line.substr(start, end - start)));
    if (end == std::string_view::npos) return fields;
    start = end + 1;
  }
}

template <class F>
void ForEachLine(std::string_view text, F&& f) {
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    if (end > start) f(text.substr(start, end - start));
    start = end + 1;
  }
}

std::optional<int> ToInt(std::string_view text) {
  int value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || text.empty()) return std::nullopt;
  return value;
}

ProcessExit FromStatus(int status) {
  ProcessExit exit;
  if (status > 128 && status < 128 + 65) {  // the shell's way of saying "killed by N"
    exit.signaled = true;
    exit.signal = status - 128;
  } else {
    exit.exit_code = status;
  }
  return exit;
}

// SLURM's "N" or "N:S" (exit code, signal).
std::optional<ProcessExit> FromSlurmExitCode(std::string_view text) {
  const std::size_t colon = text.find(':');
  const std::optional<int> code = ToInt(text.substr(0, colon));
  if (!code) return std::nullopt;
  ProcessExit exit;
  if (colon != std::string_view::npos) {
    if (std::optional<int> signal = ToInt(text.substr(colon + 1)); signal && *signal > 0) {
      exit.signaled = true;
      exit.signal = *signal;
      return exit;
    }
  }
  return FromStatus(*code);
}

ProcessExit JobEnded(JobEnd end, std::string detail) {
  ProcessExit exit;
  exit.signaled = true;
  exit.signal = 9;  // SIGKILL: SLURM ends what is left of a job that way
  exit.job_end = end;
  exit.job_detail = std::move(detail);
  return exit;
}

}  // namespace

std::string SlurmJobNamePrefix(std::string_view scope) { return fmt::format("gs-{}-", scope); }

std::string SlurmJobName(std::string_view scope, int trial, int attempt) {
  return fmt::format("{}{}.{}", SlurmJobNamePrefix(scope), trial, attempt);
}

std::string SlurmMinutes(double seconds) {
  return std::to_string(std::max<long long>(1, static_cast<long long>(std::ceil(seconds / 60))));
}

std::vector<std::string> SbatchArguments(const SlurmConfig& slurm,
                                         std::optional<double> time_limit_seconds,
                                         const std::string& job_name,
                                         const SpawnRequest& request,
                                         const std::filesystem::path& script) {
  const std::string log = std::filesystem::absolute(request.log_path).string();
  std::vector<std::string> args{"--parsable",
                                "--job-name=" + job_name,
                                "--chdir=" + std::filesystem::absolute(request.cwd).string(),
                                "--output=" + log,
                                "--error=" + log,
                                "--open-mode=append",
                                "--export=ALL",
                                "--nodes=1",
                                "--ntasks=1",
                                "--no-requeue"};
  if (!slurm.partition.empty()) args.push_back("--partition=" + slurm.partition);
  if (!slurm.account.empty()) args.push_back("--account=" + slurm.account);
  if (!slurm.qos.empty()) args.push_back("--qos=" + slurm.qos);
  if (time_limit_seconds) args.push_back("--time=" + SlurmMinutes(*time_limit_seconds));
  if (request.gpus > 0) args.push_back(fmt::format("--gres=gpu:{}", request.gpus));
  args.push_back(fmt::format("--cpus-per-task={}", slurm.cpus_per_trial));
  args.insert(args.end(), slurm.extra_args.begin(), slurm.extra_args.end());
  args.push_back(script.string());
  return args;
}

std::filesystem::path ExitRecordPath(const std::filesystem::path& dir, std::string_view job_id) {
  return TrialFiles{dir}.exit_record(job_id);
}

std::string JobScript(const std::vector<std::string>& argv, const std::filesystem::path& dir) {
  std::string command;
  for (const std::string& arg : argv) command += (command.empty() ? "" : " ") + ShellQuote(arg);
  const std::string record = ShellQuote((dir / TrialFiles::kExitRecordPrefix).string());
  return fmt::format(
      "#!/bin/bash\n"
      "# Written by gpusweep: one trial's SLURM job (docs/slurm.md). Runs the trial's\n"
      "# command, then leaves its exit status in gpusweep-exit.$SLURM_JOB_ID, so the\n"
      "# controller learns how it ended even after SLURM has forgotten the job.\n"
      "# Trapped, not ignored: the trial must get scancel's signals with their default\n"
      "# action, while this script lives on to write the record.\n"
      "trap 'gpusweep_signalled=1' TERM INT HUP\n"
      "{}\n"
      "status=$?\n"
      "record={}\"$SLURM_JOB_ID\"\n"
      "printf '%d\\n' \"$status\" > \"$record.tmp\" && mv -f \"$record.tmp\" \"$record\"\n"
      "exit \"$status\"\n",
      command, record);
}

std::optional<int> ParseExitRecord(std::string_view text) {
  if (text.empty() || text.back() != '\n') return std::nullopt;  // not written to the end
  return ToInt(Trim(text.substr(0, text.size() - 1)));
}

std::vector<SqueueRow> ParseSqueue(std::string_view text) {
  std::vector<SqueueRow> rows;
  ForEachLine(text, [&](std::string_view line) {
    std::vector<std::string> fields = Split(line, '|');
    if (fields.size() < 4 || fields[0].empty()) return;
    const int restarts = fields.size() > 4 ? ToInt(fields[4]).value_or(0) : 0;
    rows.push_back(SqueueRow{fields[0], fields[1], fields[2], fields[3], restarts});
  });
  return rows;
}

std::vector<SqueueRow> ParseSacct(std::string_view text) {
  std::vector<SqueueRow> rows;
  ForEachLine(text, [&](std::string_view line) {
    std::vector<std::string> fields = Split(line, '|');
    if (fields.size() < 3 || fields[0].empty()) return;
    std::string state = fields[1].substr(0, fields[1].find(' '));  // "CANCELLED by 0"
    rows.push_back(SqueueRow{fields[0], state, "", fields[2]});
  });
  return rows;
}

bool IsFinalState(std::string_view state) {
  static constexpr std::array<std::string_view, 11> kFinal{
      "COMPLETED", "FAILED",    "CANCELLED", "TIMEOUT",      "NODE_FAIL", "OUT_OF_MEMORY",
      "PREEMPTED", "BOOT_FAIL", "DEADLINE",  "SPECIAL_EXIT", "REVOKED"};
  return std::find(kFinal.begin(), kFinal.end(), state) != kFinal.end();
}

ProcessExit ClassifyJobEnd(std::string_view job_id, std::string_view state,
                           std::optional<int> recorded, std::string_view exit_code,
                           bool cancelled_by_us) {
  if (state == "TIMEOUT" || state == "DEADLINE")
    return JobEnded(JobEnd::kTimeLimit,
                    fmt::format("SLURM time limit reached (job {}, {})", job_id, state));
  if (state == "OUT_OF_MEMORY")
    return JobEnded(JobEnd::kOutOfMemory,
                    fmt::format("out of memory: SLURM's memory limit ended it (job {})", job_id));
  if (state == "NODE_FAIL" || state == "BOOT_FAIL")
    return JobEnded(JobEnd::kNodeFailure,
                    fmt::format("its node failed (job {}, {}); runs again as a new attempt",
                                job_id, state));
  if (state == "PREEMPTED")
    return JobEnded(JobEnd::kPreempted,
                    fmt::format("preempted by SLURM (job {}); runs again as a new attempt", job_id));
  if ((state == "CANCELLED" || state == "REVOKED") && !cancelled_by_us)
    return JobEnded(JobEnd::kCancelled,
                    fmt::format("cancelled outside gpusweep (scancel or an administrator; job {})",
                                job_id));
  if (recorded) return FromStatus(*recorded);
  if (state == "CANCELLED") return JobEnded(JobEnd::kNone, "");  // ours: SIGKILL'ed by scancel
  if (state.empty())
    return JobEnded(JobEnd::kLost,
                    fmt::format("SLURM no longer knows job {} and it left no exit record; runs "
                                "again as a new attempt",
                                job_id));
  if (std::optional<ProcessExit> exit = FromSlurmExitCode(exit_code)) return *exit;
  return JobEnded(JobEnd::kLost, fmt::format("job {} ended {} without an exit code; runs again "
                                             "as a new attempt",
                                             job_id, state));
}

std::string DescribeSlurmPlacement(const SlurmConfig& slurm, const std::vector<int>& gpus_per_trial,
                                   int max_jobs) {
  const std::string partition =
      slurm.partition.empty() ? "the default partition" : "partition " + slurm.partition;
  std::string per_trial;
  if (gpus_per_trial.empty()) {
    per_trial = fmt::format("{} CPU{} per trial, no GPUs", slurm.cpus_per_trial,
                            slurm.cpus_per_trial == 1 ? "" : "s");
  } else {
    const auto [fewest, most] = std::minmax_element(gpus_per_trial.begin(), gpus_per_trial.end());
    per_trial = *fewest == *most ? fmt::format("gres gpu:{} per trial", *most)
                                 : fmt::format("gres gpu:{}..{} per trial", *fewest, *most);
  }
  return fmt::format("SLURM ({}, {}, at most {} job{} at once)", partition, per_trial, max_jobs,
                     max_jobs == 1 ? "" : "s");
}

ProcessExit RequeuedJobEnd(std::string_view job_id) {
  return JobEnded(JobEnd::kPreempted,
                  fmt::format("SLURM requeued job {} (preempted, its node failed, or scontrol "
                              "requeue); runs again as a new attempt",
                              job_id));
}

void PollSchedule::Quiet(double now) {
  interval_ = std::min(max_, interval_ * 1.5);
  next_ = now + interval_;
}

}  // namespace gpusweep
