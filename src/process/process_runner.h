// process_runner.h — starting and supervising trial processes (Linux only).
//
// Contract: every trial runs as the leader of its own process group and, where the
// machine allows, in its own cgroup v2; otherwise its processes are found by the
// GPUSWEEP_PROCESS_TAG in their environment, with gpusweep as child subreaper. Either
// way a signal to a trial reaches every descendant, including ones that called setsid,
// setpgid or double-forked (see docs/protocol.md, "The process"). gpusweep keeps SIGINT/SIGTERM/SIGHUP/SIGCHLD blocked
// and lets them in only while it sleeps inside ppoll (the approach of ninja's
// SubprocessSet), so a signal can never be lost between "check" and "sleep".
// When a leader exits, its group is SIGKILLed before the leader is reaped (its zombie
// keeps the group id from being reused), so no straggler outlives its trial.
// Library code here never exits or throws; errors are Expected values.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "gpusweep/status.h"
#include "gpusweep/trial.h"

namespace gpusweep {

struct SpawnRequest {
  std::vector<std::string> argv;          // argv[0] looked up in PATH of `env` if it has no '/'
  std::vector<std::string> env;           // complete environment, "KEY=VALUE"
  std::filesystem::path cwd;              // must exist
  std::filesystem::path log_path;         // stdout+stderr appended here (created 0644)
  // What a cluster backend asks its scheduler for and names the job after; the local
  // runner ignores them (the GPUs are in env's CUDA_VISIBLE_DEVICES already).
  int gpus = 0;
  int trial = 0;
  int attempt = 1;
};

// How a cluster job ended when that was not the trial's own doing. kNone: a local
// process, or a job whose exit status tells (exit_code / signal).
enum class JobEnd {
  kNone,
  kTimeLimit,    // the cluster's time limit (SLURM TIMEOUT); the trial failed
  kOutOfMemory,  // the job's memory limit (OUT_OF_MEMORY); failed
  kCancelled,    // cancelled by someone else (scancel, an administrator); failed
  kNodeFailure,  // its node failed (NODE_FAIL, BOOT_FAIL): not the trial's fault
  kPreempted,    // a higher-priority job took its resources (PREEMPTED)
  kLost,         // finished while no controller watched and left no trace to judge it
};
// kNodeFailure, kPreempted and kLost: the trial runs again as a new attempt.
inline bool RunsAgain(JobEnd end) {
  return end == JobEnd::kNodeFailure || end == JobEnd::kPreempted || end == JobEnd::kLost;
}

// How a process ended. exit_code is -1 (and signaled false) if the status was lost
// because something else in this process reaped the child.
// A cluster job also says how it ended (job_end) and why, with its job id (job_detail:
// "SLURM time limit reached (job 42, TIMEOUT)"); both empty for local processes.
struct ProcessExit {
  bool signaled = false;
  int exit_code = 0;
  int signal = 0;
  JobEnd job_end = JobEnd::kNone;
  std::string job_detail;
  // When a cluster job ended (Unix seconds), where it says so (its exit record's time),
  // which may be long before it is reported: a poll interval, or a resume later.
  // nullopt: when it was reported.
  std::optional<double> end_time;
};

using ProcessId = int;                    // the leader's pid == its process group id

struct ProcessEvent { ProcessId pid; ProcessExit exit; };

struct WaitOutcome {
  std::vector<ProcessEvent> exited;       // children reaped during this call
  int interrupt_signal = 0;               // SIGINT/SIGTERM/SIGHUP received by gpusweep since the last call, else 0
};

enum class ContainmentKind { kCgroup, kTagged };
enum class ContainmentChoice {
  kAuto,        // a cgroup per trial when gpusweep can make one, else kTagged
  kTaggedOnly,  // never cgroups (tests of the fallback; GPUSWEEP_CONTAINMENT=tagged)
};
enum class ControllerGuard { kOn, kOff };

struct ProcessRunnerOptions {
  // Names this experiment's trials across runs ([A-Za-z0-9_-], stable for one experiment
  // directory), so a later run finds what a dead one left (StopLeftovers). Empty: unique
  // to this process.
  std::string scope;
  ContainmentChoice containment = ContainmentChoice::kAuto;
  // kOn: a small guard process (forked at construction, in its own process group) ends
  // every trial of this runner, SIGTERM then SIGKILL after guard_grace_seconds, when the
  // controller dies without destroying the runner (kill -9, OOM killer, crash).
  ControllerGuard guard = ControllerGuard::kOn;
  double guard_grace_seconds = 10;
};

// Interface so the experiment runner can be tested with a fake. Not thread-safe: use
// one runner from one thread.
class ProcessRunner {
 public:
  virtual ~ProcessRunner() = default;
  // Starts a process in its own new process group, stdin /dev/null, stdout+stderr -> log_path,
  // cwd set, signal mask emptied and SIGINT/SIGTERM/SIGHUP/SIGPIPE/SIGCHLD dispositions reset to default.
  // Error{kProcess} with strerror and argv[0] if it cannot start (e.g. ENOENT: "command not found: foo").
  // A relative argv[0] containing '/' (e.g. "./train.sh") and relative PATH entries are
  // resolved against `cwd`; a relative log_path against gpusweep's own working directory.
  // Error{kIo} if cwd is not a directory or the log cannot be opened. The child inherits
  // no file descriptors other than 0, 1 and 2.
  virtual Expected<ProcessId> Spawn(const SpawnRequest& request) = 0;
  // Blocks until a child exits, an interrupt signal arrives, or timeout_seconds elapse (>= 0).
  // When a leader is reaped, its whole process group is sent SIGKILL so no straggler survives.
  // A negative timeout means 0 (just poll); infinity (or anything above 1e8) means no timeout.
  virtual WaitOutcome Wait(double timeout_seconds) = 0;
  // Sends `sig` to every process of a running trial (its group, its cgroup or tagged
  // processes); no-op if its leader was already reaped.
  virtual void SignalGroup(ProcessId pid, int sig) = 0;
  virtual std::size_t running() const = 0;
  // Ends every process an earlier runner of the same scope left behind (its controller
  // died): SIGTERM, up to grace_seconds, SIGKILL; blocks until they are gone (or 2 s
  // after the SIGKILL). Returns how many processes it found. Call before re-running
  // trials of a resumed experiment.
  virtual int StopLeftovers(double grace_seconds) = 0;
  virtual ContainmentKind containment() const = 0;
  // Every live process of a running trial (for tests and diagnostics).
  virtual std::vector<int> TrialProcesses(ProcessId pid) const = 0;
  // The cluster's id of a job Spawn started, to journal (TrialRecord::job_id); "" for a
  // local process, whose pid is journaled instead.
  virtual std::string JobId(ProcessId /*pid*/) const { return {}; }
  // Follows a job an earlier controller started for `record` and no longer watches
  // (it died): returns the id Wait will report its end under, or nullopt when there is
  // nothing to re-attach. Local processes are never re-attached (StopLeftovers ends
  // them); a cluster backend finds the job by record.job_id, or by its name when the id
  // never reached the journal, and reports one that ended meanwhile at the next Wait
  // (and says so: Reattached::ended).
  // Call before StopLeftovers, which then leaves re-attached jobs alone.
  struct Reattached {
    ProcessId id = 0;
    bool ended = false;  // it finished while no controller watched (Wait reports it)
  };
  virtual std::optional<Reattached> Reattach(const TrialRecord& /*record*/) { return std::nullopt; }
  // Trials that have already ended, found without sleeping and without asking a
  // cluster's controller: exited children reaped now (local), jobs whose exit record
  // is written (SLURM). Their ends are not reported again by Wait. Called before trials
  // are stopped on an interrupt, so one that finished just before the signal is judged
  // by how it ended, not recorded as interrupted and run again.
  virtual std::vector<ProcessEvent> TakeEnded() { return {}; }
};

// Whether gpusweep can give each trial a cgroup v2 here, as ContainmentChoice::kAuto
// would: `detail` names the cgroup trials would go under, or says why not (then trials
// are contained by process group and tag). Makes and removes one empty cgroup, as a
// run's start does. For diagnostics (`gpusweep doctor`).
struct CgroupAvailability {
  bool available = false;
  std::string detail;
};
CgroupAvailability CheckCgroupContainment();

// The real one. Only one may exist per process at a time (it owns signal handlers);
// returns nullptr while another one exists.
// Construction blocks SIGINT, SIGTERM, SIGHUP, SIGCHLD in the calling thread and installs
// handlers that only record the signal; they are unblocked only inside ppoll.
// Threads created afterwards inherit the blocked mask, which is what you want; a signal
// delivered to another thread still wakes Wait (handlers also write to a self-pipe).
// Destruction SIGKILLs every remaining trial, reaps them, and restores mask and handlers.
// The runner makes gpusweep a child subreaper (PR_SET_CHILD_SUBREAPER) and reaps the
// re-parented orphans of its trials. Create it before starting any thread: the guard
// is forked.
std::unique_ptr<ProcessRunner> MakePosixProcessRunner(const ProcessRunnerOptions& options = {});

// A scope name for ProcessRunnerOptions made from an experiment directory's absolute
// path (FNV-1a, hex): the same for every run of that directory.
std::string ProcessScopeFor(const std::filesystem::path& experiment_dir);

// /proc/<pid>/stat field 22 (start time in clock ticks since boot); nullopt if no such process.
std::optional<std::uint64_t> ProcessStartTicks(int pid);

// For resume after gpusweep was killed: if `pid` still exists and has start time `start_ticks`
// (so it is the same process, not a reused pid), SIGTERM its process group, wait up to
// grace_seconds for the group to vanish, then SIGKILL it. Also kills a surviving group whose
// leader already exited (check kill(-pgid, 0)). Returns true if something was signalled.
// After a SIGKILL it waits up to 1 s more for the group to vanish. Blocks the caller.
// "Vanished" ignores zombies: the dead trial's orphans may wait for a slow init to reap them.
bool KillStaleProcessGroup(int pid, std::uint64_t start_ticks, double grace_seconds);

// Every live pid whose process group is `pgid` (scans /proc); for tests and orphan checks.
// Zombies (exited, not yet reaped) are not live and are left out. Sorted ascending.
std::vector<int> ProcessesInGroup(int pgid);

}  // namespace gpusweep
