#include "backend/slurm_runner.h"

#include <sys/stat.h>

#include <csignal>
#include <chrono>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "backend/command.h"
#include "backend/slurm_text.h"
#include "process/signal_catcher.h"
#include "process/spawn.h"

#include "gpusweep/experiment_files.h"

namespace gpusweep {
namespace {

double Now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// When the job script wrote its exit record (Unix seconds): the job's end.
std::optional<double> ExitRecordTime(const std::filesystem::path& path) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) return std::nullopt;
  return static_cast<double>(info.st_mtim.tv_sec) + static_cast<double>(info.st_mtim.tv_nsec) * 1e-9;
}

std::optional<int> ReadExitRecord(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  std::stringstream text;
  text << in.rdbuf();
  return ParseExitRecord(text.str());
}

// The trial's environment as sbatch exports it: SLURM sets CUDA_VISIBLE_DEVICES for the
// GPUs it gives a job, so gpusweep's own placeholder mask must not reach a GPU job.
std::vector<std::string> JobEnvironment(const SpawnRequest& request) {
  std::vector<std::string> env;
  for (const std::string& entry : request.env)
    if (request.gpus == 0 || !entry.starts_with("CUDA_VISIBLE_DEVICES=")) env.push_back(entry);
  return env;
}

class SlurmProcessRunner final : public ProcessRunner {
 public:
  explicit SlurmProcessRunner(SlurmRunnerOptions options)
      : options_(std::move(options)),
        schedule_(options_.slurm.poll_interval_seconds, options_.slurm.max_poll_interval_seconds) {}

  ~SlurmProcessRunner() override {
    std::vector<std::string> ids;
    for (const auto& [id, job] : jobs_) ids.push_back(std::to_string(id));
    if (!ids.empty()) Scancel(ids, {});
  }

  Expected<ProcessId> Spawn(const SpawnRequest& request) override {
    const std::filesystem::path dir = std::filesystem::absolute(request.cwd);
    const std::filesystem::path script = TrialFiles{dir}.job_script();
    {
      std::ofstream out(script, std::ios::trunc);
      out << JobScript(request.argv, dir);
      if (!out.flush())
        return Fail(ErrorCode::kIo, fmt::format("{}: cannot write the job script", script.string()));
    }
    std::vector<std::string> argv{"sbatch"};
    const std::vector<std::string> args =
        SbatchArguments(options_.slurm, options_.time_limit_seconds,
                        SlurmJobName(options_.scope, request.trial, request.attempt), request,
                        script);
    argv.insert(argv.end(), args.begin(), args.end());
    GS_ASSIGN_OR_RETURN(CommandResult result,
                        RunCommand(argv, JobEnvironment(request), options_.command_timeout_seconds));
    // --parsable prints "id" or "id;cluster".
    const std::string id_text = result.out.substr(0, result.out.find_first_of(";\n"));
    int id = 0;
    if (result.exit_code != 0 || std::sscanf(id_text.c_str(), "%d", &id) != 1 || id <= 0)
      return Fail(ErrorCode::kProcess,
                  fmt::format("SLURM refused the job (sbatch exit {}): {}", result.exit_code,
                              LastLine(result)));
    jobs_[id] = Job{"SUBMITTED", dir, false};  // not PENDING until squeue says so
    schedule_.Changed(Now());
    return id;
  }

  WaitOutcome Wait(double timeout_seconds) override {
    WaitOutcome outcome;
    const double now = Now();
    std::optional<double> sleep;
    if (timeout_seconds <= 1e8) sleep = std::max(0.0, timeout_seconds);
    if (!jobs_.empty()) sleep = std::min(sleep.value_or(1e9), schedule_.SecondsUntilDue(now));
    signals_.SleepUntilSignal(sleep);
    outcome.interrupt_signal = signals_.TakeInterrupt();
    if (!jobs_.empty() && schedule_.Due(Now())) outcome.exited = Poll();
    return outcome;
  }

  void SignalGroup(ProcessId id, int sig) override {
    auto it = jobs_.find(id);
    if (it == jobs_.end()) return;
    Job& job = it->second;
    job.cancelled_by_us = true;
    schedule_.Changed(Now());
    const std::vector<std::string> ids{std::to_string(id)};
    // A pending job has no process to save a checkpoint: cancelling it is the whole stop
    // (and scancel --signal refuses a pending job anyway, hence the fallback below).
    if (sig == SIGKILL || job.state == "PENDING") {
      Scancel(ids, {});
      return;
    }
    const std::string name = SignalName(sig);
    if (!Scancel(ids, {"--full", "--signal=" + (name.starts_with("SIG") ? name.substr(3) : name)}))
      Scancel(ids, {});  // it was still pending after all
  }

  std::size_t running() const override { return jobs_.size(); }

  // Jobs whose exit record is written have ended (their last squeue state may be older):
  // read at shutdown, a file per job and no call to slurmctld. A requeued job's record
  // may be its first run's; RequeueEnd reports it.
  std::vector<ProcessEvent> TakeEnded() override {
    std::vector<ProcessEvent> ended;
    for (auto it = jobs_.begin(); it != jobs_.end();) {
      const std::string id = std::to_string(it->first);
      const std::optional<int> recorded = it->second.requeued
                                              ? std::nullopt
                                              : ReadExitRecord(ExitRecordPath(it->second.dir, id));
      if (!recorded) {
        ++it;
        continue;
      }
      ProcessExit exit = ClassifyJobEnd(id, it->second.state, recorded, "", it->second.cancelled_by_us);
      exit.end_time = ExitRecordTime(ExitRecordPath(it->second.dir, id));
      ended.push_back(ProcessEvent{it->first, std::move(exit)});
      it = jobs_.erase(it);
    }
    return ended;
  }

  int StopLeftovers(double /*grace_seconds*/) override {
    // Jobs of this experiment that nobody re-attached: a dead controller's, whose trials
    // run again. (Those that Reattach found are followed, not stopped.)
    Expected<CommandResult> listed = Run({"squeue", "--noheader", "--format=%i|%j"});
    if (!listed || listed->exit_code != 0) return 0;
    const std::string prefix = SlurmJobNamePrefix(options_.scope);
    std::vector<std::string> stale;
    std::istringstream lines(listed->out);
    for (std::string line; std::getline(lines, line);) {
      const std::size_t bar = line.find('|');
      if (bar == std::string::npos || !line.substr(bar + 1).starts_with(prefix)) continue;
      const std::string id = line.substr(0, bar);
      if (!jobs_.contains(std::atoi(id.c_str()))) stale.push_back(id);
    }
    if (!stale.empty()) Scancel(stale, {});
    return static_cast<int>(stale.size());
  }

  ContainmentKind containment() const override { return ContainmentKind::kTagged; }
  std::vector<int> TrialProcesses(ProcessId /*pid*/) const override { return {}; }

  std::string JobId(ProcessId id) const override {
    return jobs_.contains(id) ? std::to_string(id) : std::string();
  }

  std::optional<Reattached> Reattach(const TrialRecord& record) override {
    const std::filesystem::path dir = ExperimentFiles{options_.experiment_dir}.trial_dir(record.number);
    int id = 0;
    std::string state;
    bool ended = false;
    if (!record.job_id.empty()) {
      id = std::atoi(record.job_id.c_str());
      if (id <= 0) return std::nullopt;
      std::optional<std::vector<SqueueRow>> rows = Squeue({record.job_id});
      // No answer from SLURM: follow the job anyway, the next polls will tell.
      if (rows && !rows->empty()) state = rows->front().state;
      else if (rows && !ReadExitRecord(ExitRecordPath(dir, record.job_id)) && !Sacct(record.job_id))
        return std::nullopt;  // nothing left to follow or judge: the trial runs again
      else ended = rows.has_value();  // gone from squeue, judged by its record or sacct
    } else {
      // Killed between sbatch and the journal's record of the id: find it by name.
      Expected<CommandResult> found =
          Run({"squeue", "--noheader", "--states=all", "--format=%i|%T",
               "--name=" + SlurmJobName(options_.scope, record.number, record.attempt)});
      if (!found || found->exit_code != 0) return std::nullopt;
      const std::size_t bar = found->out.find('|');
      if (bar == std::string::npos) return std::nullopt;
      id = std::atoi(found->out.substr(0, bar).c_str());
      state = found->out.substr(bar + 1, found->out.find_first_of("\n ", bar) - bar - 1);
      if (id <= 0) return std::nullopt;
    }
    jobs_[id] = Job{state.empty() ? "RUNNING" : state, dir, false};
    schedule_.Now(Now());
    return Reattached{id, ended || IsFinalState(state)};
  }

 private:
  struct Job {
    std::string state;            // last state squeue reported
    std::filesystem::path dir;    // the trial directory (exit record)
    bool cancelled_by_us = false;
    bool requeued = false;        // SLURM requeued it; gpusweep cancelled it (RequeuedJobEnd)
  };

  Expected<CommandResult> Run(const std::vector<std::string>& argv) const {
    return RunCommand(argv, options_.env, options_.command_timeout_seconds);
  }

  bool Scancel(const std::vector<std::string>& ids, const std::vector<std::string>& flags) {
    std::vector<std::string> argv{"scancel"};
    argv.insert(argv.end(), flags.begin(), flags.end());
    argv.insert(argv.end(), ids.begin(), ids.end());
    Expected<CommandResult> result = Run(argv);
    return result && result->exit_code == 0;
  }

  // squeue about `ids` (finished jobs too, while slurmctld remembers them: MinJobAge);
  // nullopt when squeue itself failed (slurmctld unreachable, a timeout): then nothing
  // may be concluded about any job, least of all that it is gone.
  std::optional<std::vector<SqueueRow>> Squeue(const std::vector<std::string>& ids) {
    std::string list;
    for (const std::string& id : ids) list += (list.empty() ? "" : ",") + id;
    Expected<CommandResult> result =
        Run({"squeue", "--noheader", "--states=all", "--jobs=" + list,
             "--Format=" + std::string(kSqueueFormat)});
    if (!result || result->timed_out) return std::nullopt;
    if (result->exit_code == 0) return ParseSqueue(result->out);
    // Forgotten ids among several are just left out; a single one is this error.
    if (result->err.find("Invalid job id specified") != std::string::npos)
      return std::vector<SqueueRow>{};
    return std::nullopt;
  }

  // sacct's row for a job SLURM's controller forgot (needs accounting; else nullopt).
  std::optional<SqueueRow> Sacct(const std::string& id) {
    Expected<CommandResult> result =
        Run({"sacct", "--noheader", "--parsable2", "--allocations", "--jobs=" + id,
             "--format=JobID,State,ExitCode"});
    if (!result || result->exit_code != 0) return std::nullopt;
    for (SqueueRow& row : ParseSacct(result->out))
      if (row.job_id == id) return row;
    return std::nullopt;
  }

  std::vector<ProcessEvent> Poll() {
    std::vector<std::string> ids;
    for (const auto& [id, job] : jobs_) ids.push_back(std::to_string(id));
    std::optional<std::vector<SqueueRow>> answer = Squeue(ids);
    if (!answer) {  // try again later; a job is never given up because squeue failed
      schedule_.Quiet(Now());
      return {};
    }
    std::map<int, SqueueRow> rows;
    for (SqueueRow& row : *answer) rows[std::atoi(row.job_id.c_str())] = std::move(row);
    bool changed = false;
    std::vector<ProcessEvent> ended;
    for (auto it = jobs_.begin(); it != jobs_.end();) {
      const int id = it->first;
      Job& job = it->second;
      const std::string id_text = std::to_string(id);
      auto row = rows.find(id);
      std::optional<ProcessExit> end;
      if (row != rows.end()) {
        changed |= row->second.state != job.state;
        job.state = row->second.state;
        end = RequeueEnd(id_text, job, row->second);
        if (!end && IsFinalState(row->second.state)) end = JudgeEnd(id_text, job, row->second);
      } else {
        end = JudgeEnd(id_text, job, Sacct(id_text).value_or(SqueueRow{}));
      }
      if (!end) {
        ++it;
        continue;
      }
      ended.push_back(ProcessEvent{id, *end});
      it = jobs_.erase(it);
      changed = true;
    }
    if (changed) schedule_.Changed(Now());
    else schedule_.Quiet(Now());
    return ended;
  }

  ProcessExit JudgeEnd(const std::string& id, const Job& job, const SqueueRow& row) const {
    const std::filesystem::path record = ExitRecordPath(job.dir, id);
    ProcessExit exit = ClassifyJobEnd(id, row.state, ReadExitRecord(record), row.exit_code,
                                      job.cancelled_by_us);
    exit.end_time = ExitRecordTime(record);
    return exit;
  }

  // A job SLURM requeued (with --requeue in extra_args; gpusweep's own jobs say
  // --no-requeue) would run its trial again inside the same attempt, over the same
  // metrics: it is cancelled instead, and reported ended once it holds nothing (pending
  // again, or final), so the loop runs the trial again as a new attempt.
  std::optional<ProcessExit> RequeueEnd(const std::string& id, Job& job, const SqueueRow& row) {
    if (row.restarts > 0 && !job.cancelled_by_us && !job.requeued) {
      job.requeued = true;
      Scancel({id}, {});
    }
    if (job.requeued && (row.state == "PENDING" || IsFinalState(row.state))) return RequeuedJobEnd(id);
    return std::nullopt;
  }

  SlurmRunnerOptions options_;
  SignalCatcher signals_;
  PollSchedule schedule_;
  std::map<int, Job> jobs_;  // followed jobs by id
};

Status RequireClient(const std::string& program, const std::vector<std::string>& env,
                     const std::filesystem::path& config_path) {
  if (ResolveExecutable(program, env, std::filesystem::current_path())) return {};
  return Fail(ErrorCode::kInvalidConfig,
              fmt::format("{}: backend: slurm needs SLURM's client commands, but {} is not on "
                          "PATH ({}); run gpusweep on a login node of the cluster, or add "
                          "SLURM's bin directory to PATH",
                          config_path.string(), program,
                          std::getenv("PATH") ? std::getenv("PATH") : ""));
}

// sbatch --test-only with the trials' options: SLURM says whether it would take them.
Status TestSubmission(const SlurmRunnerOptions& options, const std::filesystem::path& config_path) {
  SpawnRequest probe;
  probe.cwd = std::filesystem::current_path();
  probe.log_path = "/dev/null";
  probe.gpus = options.max_gpus_per_trial;
  std::vector<std::string> argv{"sbatch", "--test-only"};
  std::vector<std::string> args = SbatchArguments(
      options.slurm, options.time_limit_seconds, SlurmJobName(options.scope, 0, 0), probe, "");
  args.pop_back();  // the script
  argv.insert(argv.end(), args.begin(), args.end());
  argv.push_back("--wrap=true");
  GS_ASSIGN_OR_RETURN(CommandResult result,
                      RunCommand(argv, options.env, options.command_timeout_seconds));
  if (result.exit_code == 0) return {};
  const std::string where = options.backend_line > 0
                                ? fmt::format("{}:{}", config_path.string(), options.backend_line)
                                : config_path.string() + " (--backend slurm)";
  // A gres no node of the partition has is refused like a bad partition: name it too.
  std::string gres;
  if (options.max_gpus_per_trial > 0)
    gres = fmt::format(", and the gres request --gres=gpu:{} from resources.gpus_per_trial{} "
                       "(does a node of the partition have {} GPUs? sinfo -o '%P %G' lists "
                       "each partition's gres)",
                       options.max_gpus_per_trial,
                       options.gpus_per_trial_line > 0
                           ? fmt::format(" (line {})", options.gpus_per_trial_line)
                           : std::string(),
                       options.max_gpus_per_trial);
  return Fail(ErrorCode::kInvalidConfig,
              fmt::format("{}: backend: SLURM refuses jobs like this sweep's (sbatch --test-only "
                          "{}): {}; check partition, account, qos, time and extra_args{} "
                          "(sinfo and sacctmgr show what exists)",
                          where, fmt::join(args, " "), LastLine(result), gres));
}

}  // namespace

Expected<std::unique_ptr<ProcessRunner>> MakeSlurmProcessRunner(
    const SlurmRunnerOptions& options, const std::filesystem::path& config_path) {
  for (const char* program : {"sbatch", "squeue", "scancel"})
    GS_TRY(RequireClient(program, options.env, config_path));
  GS_TRY(TestSubmission(options, config_path));
  return std::unique_ptr<ProcessRunner>(std::make_unique<SlurmProcessRunner>(options));
}

}  // namespace gpusweep
