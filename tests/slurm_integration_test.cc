// End-to-end against a real one-node SLURM cluster (scripts/slurm-cluster.sh, started by
// the CTest fixture `slurm`; SLURM_CONF points at it): sweeps through sbatch/squeue/
// scancel, pruning, time limits, kill -9 and re-attachment, Ctrl-C.
// GPUSWEEP_SLURM_TESTS=skip skips them on a developer machine without root; CI never
// sets it, so there a cluster that cannot start fails the fixture and these tests.
#include <signal.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <sstream>
#include <utility>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "backend/command.h"
#include "cli_fixture.h"
#include "cli_harness.h"
#include "run/trial_env.h"

namespace gpusweep {
namespace {

using testing::RunGpusweep;
using testing::StartGpusweep;
using testing::WaitExit;
using testing::WaitUntil;

// Short squeue intervals: the test jobs last seconds (docs/slurm.md has the defaults).
constexpr const char* kBackend =
    "backend: {type: slurm, poll_interval: 200ms, max_poll_interval: 1s}\n";

// One trial that reports step 1, waits for the file go, then reports step 2.
constexpr const char* kOneGatedTrial = R"(
name: e2e
command: [/bin/sh, -c, 'echo started >> started.log; echo "{\"step\": 1, \"loss\": 1}" >> "$GPUSWEEP_METRICS"; while [ ! -e ../../../../go ]; do sleep 0.2; done; echo "{\"step\": 2, \"loss\": 1}" >> "$GPUSWEEP_METRICS"']
metric: {name: loss, mode: min}
sampler: {type: grid}
search_space: {}
resources: {gpus_per_trial: 1}
)";

double WallSeconds() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

std::string ReadAll(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

class SlurmTest : public CliTest {
 protected:
  void SetUp() override {
    if (const char* skip = std::getenv("GPUSWEEP_SLURM_TESTS"); skip && std::string(skip) == "skip")
      GTEST_SKIP() << "GPUSWEEP_SLURM_TESTS=skip";
    ASSERT_NE(std::getenv("SLURM_CONF"), nullptr) << "the slurm fixture sets SLURM_CONF";
  }

  // squeue's rows for the given job ids that are still queued or running.
  std::vector<std::string> LiveJobs(const std::vector<std::string>& ids) {
    std::string list;
    for (const std::string& id : ids) list += (list.empty() ? "" : ",") + id;
    auto result = RunCommand({"squeue", "--noheader", "--jobs=" + list, "--format=%i|%T"},
                             CurrentEnvironment(), 60);
    std::vector<std::string> live;
    if (!result) return live;
    std::istringstream lines(result->out);
    for (std::string line; std::getline(lines, line);)
      if (!line.empty()) live.push_back(line);
    return live;
  }

  // Runs `config` until four jobs have journaled their first line, then kills gpusweep
  // with -9 and checks the four jobs live on; returns each trial's job id. Callers
  // ASSERT_FALSE(HasFailure()) after it.
  std::map<int, std::string> KillNineWithFourJobsReporting(const std::string& config) {
    Write(config);
    gpusweep_ = StartGpusweep({"run", "sweep.yaml"}, dir_.path(), dir_.path() / "1.log");
    std::map<int, std::string> job_of;
    if (!WaitUntil(120, [&] { return ReportingJobs() == 4; })) {
      ADD_FAILURE() << "four jobs did not report\n" << ReadAll(dir_.path() / "1.log");
      return job_of;
    }
    kill(gpusweep_, SIGKILL);
    WaitExit(std::exchange(gpusweep_, 0));
    for (const TrialRecord& t : Trials()) job_of[t.number] = t.job_id;
    EXPECT_EQ(LiveJobs(JobIds()).size(), 4u) << "kill -9 of gpusweep leaves its jobs running";
    return job_of;
  }

  // A failed assertion must not leave a gpusweep or its jobs behind for the next test.
  void TearDown() override {
    if (gpusweep_ > 0) {
      kill(gpusweep_, SIGKILL);
      WaitExit(gpusweep_);
    }
    std::vector<std::string> ids = JobIds();
    if (ids.empty()) return;
    std::vector<std::string> argv{"scancel"};
    argv.insert(argv.end(), ids.begin(), ids.end());
    (void)RunCommand(argv, CurrentEnvironment(), 60);
  }

  // Trials whose job SLURM accepted and whose first report is in the journal.
  int ReportingJobs() {
    auto journal = OpenJournal(exp() / "gpusweep.db", JournalAccess::kReadOnly);
    if (!journal) return 0;
    int reporting = 0;
    for (const TrialRecord& t : Trials()) {
      auto results = (*journal)->LoadResults(t.number);
      reporting += !t.job_id.empty() && results && !results->empty();
    }
    return reporting;
  }

  // Runs sweep.yaml, a single trial, which must fail with `reason` in its failure.
  void RunOneFailingTrial(const std::string& reason) {
    auto run = RunGpusweep({"run", "sweep.yaml"}, dir_.path());
    EXPECT_EQ(run.exit_code, 1) << run.out;
    const std::vector<TrialRecord> trials = Trials();
    ASSERT_EQ(trials.size(), 1u);
    EXPECT_EQ(trials[0].state, TrialState::kFailed);
    EXPECT_NE(trials[0].failure_reason.find(reason), std::string::npos)
        << trials[0].failure_reason;
  }

  // Runs kOneGatedTrial + `backend`; once its job runs (its first line journaled),
  // `disrupt(job id)`. The trial must then run again as attempt 2 in a new job (the
  // first one gone), once each, and complete. Returns the run's output.
  std::string RunDisrupted(const std::string& backend,
                           const std::function<void(const std::string&)>& disrupt) {
    Write(std::string(kOneGatedTrial) + backend);
    const std::filesystem::path log = dir_.path() / "1.log";
    gpusweep_ = StartGpusweep({"run", "sweep.yaml"}, dir_.path(), log);
    if (!WaitUntil(120, [&] { return ReportingJobs() == 1; })) {
      ADD_FAILURE() << "the job never ran: " << ReadAll(log);
      return "";
    }
    const std::string first = JobIds().at(0);
    disrupt(first);
    auto second_attempt_runs = [&] {
      const std::vector<TrialRecord> trials = Trials();
      return trials.size() == 1 && trials[0].attempt == 2 && !trials[0].job_id.empty() &&
             ReadAll(exp() / "trials" / TrialDirName(0) / "started.log") == "started\nstarted\n";
    };
    if (!WaitUntil(120, second_attempt_runs)) {
      ADD_FAILURE() << "no second attempt: " << ReadAll(log);
      return ReadAll(log);
    }
    WriteFile(dir_.path() / "go", "");
    EXPECT_EQ(WaitExit(std::exchange(gpusweep_, 0)), 0) << ReadAll(log);
    const std::vector<TrialRecord> trials = Trials();
    EXPECT_EQ(trials.at(0).state, TrialState::kCompleted) << trials.at(0).failure_reason;
    EXPECT_EQ(trials.at(0).attempt, 2);
    EXPECT_NE(trials.at(0).job_id, first);
    EXPECT_TRUE(LiveJobs({first}).empty()) << "the first attempt's job still lives";
    EXPECT_EQ(ReadAll(exp() / "trials" / TrialDirName(0) / "started.log"), "started\nstarted\n")
        << "once per attempt, never rerun inside one";
    auto journal = OpenJournal(exp() / "gpusweep.db", JournalAccess::kReadOnly);
    EXPECT_TRUE(journal);
    if (!journal) return ReadAll(log);
    auto results = (*journal)->LoadResults(0);
    EXPECT_TRUE(results);
    int second = 0;
    for (const IntermediateResult& r : results.value_or(std::vector<IntermediateResult>{}))
      second += r.attempt == 2;
    EXPECT_EQ(second, 2) << "attempt 2 reported steps 1 and 2";
    return ReadAll(log);
  }

  pid_t gpusweep_ = 0;  // a gpusweep started in the background, until it was waited for

  std::vector<std::string> JobIds() {
    std::vector<std::string> ids;
    for (const TrialRecord& t : Trials())
      if (!t.job_id.empty()) ids.push_back(t.job_id);
    return ids;
  }
};

// Each trial records when it ran and which GPU SLURM gave it (CUDA_VISIBLE_DEVICES).
TEST_F(SlurmTest, TwentyTrialSweepRunsAtMostFourJobsAtOnceOnDistinctGpus) {
  Write(std::string(R"(
name: e2e
command: [/bin/sh, -c, 'start=$(date +%s.%N); sleep 1; echo "{\"loss\": {{x}}, \"start\": $start, \"end\": $(date +%s.%N), \"mask\": \"$CUDA_VISIBLE_DEVICES\"}" >> "$GPUSWEEP_METRICS"']
metric: {name: loss, mode: min}
sampler: {type: random, trials: 20, seed: 3}
search_space:
  x: {type: uniform, low: 0, high: 1}
resources: {gpus_per_trial: 1, max_concurrent: 4}
)") + kBackend);
  auto run = RunGpusweep({"run", "sweep.yaml"}, dir_.path());
  ASSERT_EQ(run.exit_code, 0) << run.out;
  EXPECT_NE(run.out.find("trial 0 started on SLURM job "), std::string::npos) << run.out;
  // The devices are SLURM's to assign: the first line names the request, not GPUs 0-3.
  EXPECT_NE(run.out.find("20 to run on SLURM (the default partition, gres gpu:1 per trial, at "
                         "most 4 jobs at once)\n"),
            std::string::npos)
      << run.out;
  const std::vector<TrialRecord> trials = Trials();
  ASSERT_EQ(trials.size(), 20u);
  std::set<std::string> job_ids;
  struct Span { double start, end; std::string mask; };
  std::vector<Span> spans;
  for (const TrialRecord& t : trials) {
    EXPECT_EQ(t.state, TrialState::kCompleted) << t.number << ": " << t.failure_reason;
    EXPECT_FALSE(t.job_id.empty()) << t.number;
    job_ids.insert(t.job_id);
    ASSERT_TRUE(t.last_metrics.contains("mask")) << t.last_metrics.dump();
    spans.push_back({t.last_metrics["start"].get<double>(), t.last_metrics["end"].get<double>(),
                     t.last_metrics["mask"].get<std::string>()});
    EXPECT_TRUE(std::set<std::string>({"0", "1", "2", "3"}).contains(spans.back().mask))
        << "SLURM's mask, not gpusweep's: " << spans.back().mask;
  }
  EXPECT_EQ(job_ids.size(), 20u);  // one job per trial
  // At every trial's start: who else was running, and on which GPU.
  for (const Span& span : spans) {
    std::set<std::string> masks;
    int running = 0;
    for (const Span& other : spans)
      if (other.start <= span.start && span.start < other.end) {
        ++running;
        masks.insert(other.mask);
      }
    EXPECT_LE(running, 4);
    EXPECT_EQ(masks.size(), static_cast<std::size_t>(running)) << "two running jobs shared a GPU";
  }
  auto status = RunGpusweep({"status"}, dir_.path());
  EXPECT_NE(status.out.find("JOB"), std::string::npos) << status.out;
  EXPECT_NE(status.out.find(trials[5].job_id), std::string::npos) << status.out;
  auto show = RunGpusweep({"show", "5"}, dir_.path());
  EXPECT_NE(show.out.find("SLURM job  " + trials[5].job_id), std::string::npos) << show.out;
}

// A pruned trial gets scancel's SIGTERM (its trap notes when), and each job takes all 4
// GPUs of the node: the next trial can only start once SLURM has the pruned job's back.
TEST_F(SlurmTest, AshaPrunesThroughScancelAndTheFreedGpusRunTheNextTrial) {
  Write(std::string(R"(
name: e2e
command: [/bin/sh, -c, 'trap "date +%s.%N > stopped_at; exit 143" TERM; for e in 1 2 3 4 5 6 7 8 9; do echo "{\"epoch\": $e, \"loss\": {{x}}, \"t\": $(date +%s.%N)}" >> "$GPUSWEEP_METRICS"; sleep 0.4 & wait $!; done']
metric: {name: loss, mode: min}
sampler: {type: grid}
search_space:
  x: {type: choice, values: [1, 2, 3, 4, 0.5, 5]}
scheduler: {type: asha, resource: epoch, min_resource: 1, max_resource: 9, reduction_factor: 3}
resources: {gpus_per_trial: 4, max_concurrent: 1}
)") + kBackend);
  auto run = RunGpusweep({"run", "sweep.yaml"}, dir_.path());
  ASSERT_EQ(run.exit_code, 0) << run.out;
  const std::vector<TrialRecord> trials = Trials();
  ASSERT_EQ(trials.size(), 6u);
  auto journal = OpenJournal(exp() / "gpusweep.db", JournalAccess::kReadOnly);
  ASSERT_TRUE(journal);
  int pruned = 0;
  for (std::size_t i = 0; i < trials.size(); ++i) {
    const TrialRecord& t = trials[i];
    const std::filesystem::path dir = exp() / "trials" / TrialDirName(t.number);
    if (i > 0 && trials[i - 1].state == TrialState::kPruned) {
      auto results = (*journal)->LoadResults(t.number);
      ASSERT_TRUE(results && !results->empty());
      const double stopped = std::stod(ReadAll(exp() / "trials" /
                                               TrialDirName(trials[i - 1].number) / "stopped_at"));
      EXPECT_GT(results->front().values["t"].get<double>(), stopped)
          << "trial " << t.number << " ran before the pruned job gave its GPUs back";
    }
    if (t.state != TrialState::kPruned) continue;
    ++pruned;
    EXPECT_LT(t.last_metrics["epoch"].get<int>(), 9) << "pruned trials stop early";
    EXPECT_TRUE(std::filesystem::exists(dir / "stopped_at"))
        << "trial " << t.number << " never got SIGTERM through scancel";
  }
  EXPECT_GE(pruned, 3) << run.out;
  EXPECT_TRUE(LiveJobs(JobIds()).empty());
}

TEST_F(SlurmTest, TrialsPastTheirTimeoutAreCancelledAndRecordedAsTimedOut) {
  Write(std::string(R"(
name: e2e
command: [/bin/sh, -c, 'sleep 120']
metric: {name: loss, mode: min}
sampler: {type: grid}
search_space: {}
timeout: 2s
kill_grace: 2s
resources: {gpus_per_trial: 1}
)") + kBackend);
  RunOneFailingTrial("timed out after 2s");
  EXPECT_TRUE(LiveJobs(JobIds()).empty());
}

// SLURM's own limit (backend.time): the job ends TIMEOUT, whatever gpusweep does. SLURM
// counts whole minutes and checks about every 30 s, so this test takes 60-100 s.
TEST_F(SlurmTest, AJobPastSlurmsTimeLimitIsRecordedAsTimeout) {
  Write(R"(
name: e2e
command: [/bin/sh, -c, 'sleep 300']
metric: {name: loss, mode: min}
sampler: {type: grid}
search_space: {}
resources: {gpus_per_trial: 0}
backend: {type: slurm, time: 1m, poll_interval: 1s, max_poll_interval: 2s}
)");
  RunOneFailingTrial("SLURM time limit reached");
  EXPECT_NE(Trials().at(0).failure_reason.find("TIMEOUT"), std::string::npos);
}

// Trials wait for a file per trial, so the test decides when each may finish.
constexpr const char* kGatedSweep = R"(
name: e2e
command: [/bin/sh, -c, 'echo started >> started.log; echo "{\"step\": 1, \"loss\": {{x}}}" >> "$GPUSWEEP_METRICS"; while [ ! -e ../../../../go-{{x}} ]; do sleep 0.2; done; echo "{\"step\": 2, \"loss\": {{x}}}" >> "$GPUSWEEP_METRICS"']
metric: {name: loss, mode: min}
sampler: {type: grid}
search_space:
  x: {type: choice, values: [1, 2, 3, 4, 5, 6]}
resources: {gpus_per_trial: 1, max_concurrent: 4}
)";

TEST_F(SlurmTest, KillNineThenResumeReattachesRunningJobsAndRunsNothingTwice) {
  std::map<int, std::string> job_of =
      KillNineWithFourJobsReporting(std::string(kGatedSweep) + kBackend);
  ASSERT_FALSE(HasFailure());
  auto status = RunGpusweep({"status"}, dir_.path());
  EXPECT_NE(status.out.find("resumes it and re-attaches their SLURM jobs"), std::string::npos)
      << status.out;
  // Two finish while nobody watches: gpusweep must read them from their exit records.
  WriteFile(dir_.path() / "go-1", "");
  WriteFile(dir_.path() / "go-2", "");
  ASSERT_TRUE(WaitUntil(60, [&] { return LiveJobs(JobIds()).size() == 2; }));
  // The resume counts what it found as it was: 2 jobs still running, 2 finished, 2
  // trials never submitted. The others may end once it follows them.
  const std::filesystem::path log = dir_.path() / "2.log";
  const double resumed_at = WallSeconds();
  gpusweep_ = StartGpusweep({"run", "sweep.yaml"}, dir_.path(), log);
  ASSERT_TRUE(WaitUntil(60, [&] { return ReadAll(log).find("to run on") != std::string::npos; }))
      << ReadAll(log);
  for (int x = 3; x <= 6; ++x) WriteFile(dir_.path() / fmt::format("go-{}", x), "");
  ASSERT_EQ(WaitExit(std::exchange(gpusweep_, 0)), 0) << ReadAll(log);
  const std::string out = ReadAll(log);
  EXPECT_NE(out.find("re-attached 2 jobs left running"), std::string::npos) << out;
  EXPECT_NE(out.find("2 jobs an earlier gpusweep started finished while no gpusweep watched"),
            std::string::npos) << out;
  EXPECT_NE(out.find("resuming: 2 already finished, 2 re-attached, 2 to run"), std::string::npos)
      << out;
  const std::vector<TrialRecord> trials = Trials();
  ASSERT_EQ(trials.size(), 6u);
  for (const TrialRecord& t : trials) {
    EXPECT_EQ(t.state, TrialState::kCompleted) << t.number << ": " << t.failure_reason;
    EXPECT_EQ(t.attempt, 1) << t.number;
    // Those that ended unwatched ended when their exit record says, not at the resume.
    if (const double x = t.params.value("x", 0.0); x == 1 || x == 2) {
      EXPECT_LT(t.end_time, resumed_at) << t.number;
    }
    EXPECT_EQ(t.last_metrics["step"], 2) << t.number;
    if (job_of.contains(t.number)) {
      EXPECT_EQ(t.job_id, job_of[t.number]) << "resubmitted";
    }
    EXPECT_EQ(ReadAll(exp() / "trials" / TrialDirName(t.number) / "started.log"), "started\n")
        << "trial " << t.number << " ran more than once";
    auto journal = OpenJournal(exp() / "gpusweep.db", JournalAccess::kReadOnly);
    ASSERT_TRUE(journal);
    auto results = (*journal)->LoadResults(t.number);
    ASSERT_TRUE(results);
    EXPECT_EQ(results->size(), 2u) << "trial " << t.number << ": each line journaled once";
  }
}

// ASHA over four trials (loss = x), rungs at epochs 2 and 6. Each reports epoch 1, then
// waits for its go-file: so no rung is reached before the kill, and the test decides
// in which order the trials reach rung 0 after it (deterministic decisions).
constexpr const char* kGatedAsha = R"(
name: e2e
command: [/bin/sh, -c, 'echo started >> started.log; trap "date +%s.%N > stopped_at; exit 143" TERM; echo "{\"epoch\": 1, \"loss\": {{x}}}" >> "$GPUSWEEP_METRICS"; while [ ! -e ../../../../go-{{x}} ]; do sleep 0.2 & wait $!; done; for e in 2 3 4 5 6; do echo "{\"epoch\": $e, \"loss\": {{x}}}" >> "$GPUSWEEP_METRICS"; sleep 0.5 & wait $!; done']
metric: {name: loss, mode: min}
sampler: {type: grid}
search_space:
  x: {type: choice, values: [1, 2, 0.5, 3]}
scheduler: {type: asha, resource: epoch, min_resource: 2, max_resource: 6, reduction_factor: 3}
resources: {gpus_per_trial: 1, max_concurrent: 4}
)";

// With a scheduler too, a resumed run follows the dead run's jobs: the scheduler's
// state is replayed with them still running, and their later reports rank and prune
// them as if nothing had happened.
TEST_F(SlurmTest, KillNineThenResumeReattachesAshaJobsAndPruningGoesOn) {
  std::map<int, std::string> job_of =
      KillNineWithFourJobsReporting(std::string(kGatedAsha) + kBackend);
  ASSERT_FALSE(HasFailure());
  ASSERT_EQ(job_of.size(), 4u);
  // Trial 0 (loss 1) runs to its end while nobody watches: read from its exit record
  // and metrics, its epoch 2 is the first value at rung 0 (it continues).
  WriteFile(dir_.path() / "go-1", "");
  ASSERT_TRUE(WaitUntil(60, [&] { return LiveJobs({job_of[0]}).empty(); }));
  gpusweep_ = StartGpusweep({"run", "sweep.yaml"}, dir_.path(), dir_.path() / "2.log");
  auto state_of = [&](int number) {
    for (const TrialRecord& t : Trials())
      if (t.number == number) return t.state;
    return TrialState::kRunning;
  };
  ASSERT_TRUE(WaitUntil(60, [&] { return state_of(0) == TrialState::kCompleted; }))
      << ReadAll(dir_.path() / "2.log");
  // Trial 1 (loss 2) is second at rung 0: rank 2 of 2, stopped through scancel.
  WriteFile(dir_.path() / "go-2", "");
  ASSERT_TRUE(WaitUntil(60, [&] { return state_of(1) == TrialState::kPruned; }))
      << ReadAll(dir_.path() / "2.log");
  // Trial 2 (loss 0.5) ranks first and completes; trial 3 (loss 3) ranks last.
  WriteFile(dir_.path() / "go-0.5", "");
  WriteFile(dir_.path() / "go-3", "");
  EXPECT_EQ(WaitExit(std::exchange(gpusweep_, 0)), 0) << ReadAll(dir_.path() / "2.log");
  const std::string out = ReadAll(dir_.path() / "2.log");
  EXPECT_NE(out.find("re-attached 3 jobs left running"), std::string::npos) << out;
  EXPECT_NE(out.find("1 job an earlier gpusweep started finished while no gpusweep watched"),
            std::string::npos) << out;
  const std::vector<TrialRecord> trials = Trials();
  ASSERT_EQ(trials.size(), 4u);
  const std::vector<TrialState> expected{TrialState::kCompleted, TrialState::kPruned,
                                         TrialState::kCompleted, TrialState::kPruned};
  auto journal = OpenJournal(exp() / "gpusweep.db", JournalAccess::kReadOnly);
  ASSERT_TRUE(journal);
  for (const TrialRecord& t : trials) {
    const std::filesystem::path dir = exp() / "trials" / TrialDirName(t.number);
    EXPECT_EQ(t.state, expected[t.number]) << t.number << ": " << t.failure_reason << "\n" << out;
    EXPECT_EQ(t.attempt, 1) << t.number;
    EXPECT_EQ(t.job_id, job_of[t.number]) << "trial " << t.number << " was resubmitted";
    EXPECT_EQ(ReadAll(dir / "started.log"), "started\n") << "trial " << t.number << " ran twice";
    EXPECT_EQ(std::filesystem::exists(dir / "stopped_at"), t.state == TrialState::kPruned)
        << "trial " << t.number << ": a pruned trial gets scancel's SIGTERM, no other";
    auto results = (*journal)->LoadResults(t.number);
    ASSERT_TRUE(results);
    std::set<int> epochs;
    for (const IntermediateResult& r : *results) epochs.insert(r.values["epoch"].get<int>());
    EXPECT_EQ(epochs.size(), results->size()) << "trial " << t.number << ": a line journaled twice";
    if (t.state == TrialState::kCompleted) {
      EXPECT_EQ(epochs.size(), 6u) << t.number;
    }
  }
  EXPECT_TRUE(LiveJobs(JobIds()).empty());
}

// Trial 1 (loss 2) is pruned at epoch 2 by trial 0's result, but takes its time to
// stop: its TERM trap only notes the signal, and it exits (143) once the file end-2
// exists. gpusweep is killed in between, after the stop decision was journaled.
constexpr const char* kSlowToStop = R"(
name: e2e
command: [/bin/sh, -c, 'trap "echo term >> stopped_at" TERM; echo "{\"epoch\": 1, \"loss\": {{x}}}" >> "$GPUSWEEP_METRICS"; while [ ! -e ../../../../go-{{x}} ]; do sleep 0.2 & wait $!; done; for e in 2 3 4 5 6; do echo "{\"epoch\": $e, \"loss\": {{x}}}" >> "$GPUSWEEP_METRICS"; while [ -e stopped_at ] && [ ! -e ../../../../end-{{x}} ]; do sleep 0.2 & wait $!; done; [ -e stopped_at ] && exit 143; sleep 0.2 & wait $!; done']
metric: {name: loss, mode: min}
sampler: {type: grid}
search_space:
  x: {type: choice, values: [1, 2]}
scheduler: {type: asha, resource: epoch, min_resource: 2, max_resource: 6, reduction_factor: 3}
resources: {gpus_per_trial: 1, max_concurrent: 2}
kill_grace: 60s
)";

TEST_F(SlurmTest, ATrialPrunedBeforeTheKillIsStoppedAgainAfterReattachAndEndsPruned) {
  Write(std::string(kSlowToStop) + kBackend);
  gpusweep_ = StartGpusweep({"run", "sweep.yaml"}, dir_.path(), dir_.path() / "1.log");
  ASSERT_TRUE(WaitUntil(120, [&] { return ReportingJobs() == 2; }))
      << ReadAll(dir_.path() / "1.log");
  WriteFile(dir_.path() / "go-1", "");
  ASSERT_TRUE(WaitUntil(60, [&] { return CountState(TrialState::kCompleted) == 1; }))
      << ReadAll(dir_.path() / "1.log");
  WriteFile(dir_.path() / "go-2", "");
  const std::filesystem::path stopped = exp() / "trials" / TrialDirName(1) / "stopped_at";
  auto stop_journaled = [&] {
    auto journal = OpenJournal(exp() / "gpusweep.db", JournalAccess::kReadOnly);
    if (!journal) return false;
    for (const SchedulerEventRecord& e : (*journal)->LoadSchedulerEvents().value_or(
             std::vector<SchedulerEventRecord>{}))
      if (e.kind == "report" && e.trial == 1 && e.detail.contains("decision") &&
          e.detail["decision"].value("verdict", "") == "stop")
        return true;
    return false;
  };
  ASSERT_TRUE(WaitUntil(60, [&] { return stop_journaled() && ReadAll(stopped) == "term\n"; }))
      << ReadAll(dir_.path() / "1.log");
  kill(gpusweep_, SIGKILL);
  WaitExit(std::exchange(gpusweep_, 0));
  const std::string job = Trials().at(1).job_id;
  ASSERT_EQ(LiveJobs({job}).size(), 1u) << "the pruned job is still stopping";
  gpusweep_ = StartGpusweep({"run", "sweep.yaml"}, dir_.path(), dir_.path() / "2.log");
  // The resumed run sends the stop again; then the trial finishes stopping.
  ASSERT_TRUE(WaitUntil(60, [&] { return ReadAll(stopped) == "term\nterm\n"; }))
      << ReadAll(dir_.path() / "2.log");
  WriteFile(dir_.path() / "end-2", "");
  EXPECT_EQ(WaitExit(std::exchange(gpusweep_, 0)), 0) << ReadAll(dir_.path() / "2.log");
  const TrialRecord pruned = Trials().at(1);
  EXPECT_EQ(pruned.state, TrialState::kPruned) << pruned.failure_reason;
  EXPECT_EQ(pruned.job_id, job);
  EXPECT_EQ(pruned.attempt, 1);
  EXPECT_NE(pruned.failure_reason.find("pruned: rank 2 of 2"), std::string::npos)
      << pruned.failure_reason;
}

TEST_F(SlurmTest, CtrlCCancelsEveryJob) {
  Write(std::string(kGatedSweep) + kBackend);
  gpusweep_ = StartGpusweep({"run", "sweep.yaml"}, dir_.path(), dir_.path() / "1.log");
  ASSERT_TRUE(WaitUntil(120, [&] { return ReportingJobs() == 4; }))
      << ReadAll(dir_.path() / "1.log");
  const std::vector<std::string> ids = JobIds();
  ASSERT_EQ(LiveJobs(ids).size(), 4u);
  kill(gpusweep_, SIGINT);
  EXPECT_EQ(WaitExit(std::exchange(gpusweep_, 0)), 130) << ReadAll(dir_.path() / "1.log");
  EXPECT_TRUE(LiveJobs(ids).empty()) << "Ctrl-C left jobs in SLURM's queue";
  EXPECT_EQ(CountState(TrialState::kInterrupted), 4);
}

// Ctrl-C after the job ended (its exit record written) but before the next squeue poll
// (30 s away): the trial keeps its outcome, and the next run submits nothing.
TEST_F(SlurmTest, CtrlCAfterAJobEndedBeforeThePollKeepsItsOutcome) {
  Write(R"(
name: e2e
command: [/bin/sh, -c, 'echo "{\"loss\": 1}" >> "$GPUSWEEP_METRICS"']
metric: {name: loss, mode: min}
sampler: {type: grid}
search_space: {}
resources: {gpus_per_trial: 1}
backend: {type: slurm, poll_interval: 30s, max_poll_interval: 30s}
)");
  gpusweep_ = StartGpusweep({"run", "sweep.yaml"}, dir_.path(), dir_.path() / "1.log");
  const std::filesystem::path trial_dir = exp() / "trials" / TrialDirName(0);
  auto exit_record_written = [&] {
    const std::vector<TrialRecord> trials = Trials();
    return trials.size() == 1 && !trials[0].job_id.empty() &&
           std::filesystem::exists(trial_dir / ("gpusweep-exit." + trials[0].job_id));
  };
  ASSERT_TRUE(WaitUntil(25, exit_record_written)) << ReadAll(dir_.path() / "1.log");
  const std::string job = Trials().at(0).job_id;
  kill(gpusweep_, SIGINT);
  EXPECT_EQ(WaitExit(std::exchange(gpusweep_, 0)), 130) << ReadAll(dir_.path() / "1.log");
  std::vector<TrialRecord> trials = Trials();
  ASSERT_EQ(trials.size(), 1u);
  EXPECT_EQ(trials[0].state, TrialState::kCompleted) << trials[0].failure_reason;
  EXPECT_EQ(trials[0].objective, 1.0);

  auto again = RunGpusweep({"run", "--gpus", "0,2", "sweep.yaml"}, dir_.path());
  EXPECT_EQ(again.exit_code, 0) << again.out;
  EXPECT_NE(again.out.find("ignored with the SLURM backend: --gpus"), std::string::npos) << again.out;
  trials = Trials();
  ASSERT_EQ(trials.size(), 1u);
  EXPECT_EQ(trials[0].attempt, 1) << again.out;
  EXPECT_EQ(trials[0].job_id, job) << again.out;
}

TEST_F(SlurmTest, AJobSlurmRequeuesRunsAgainAsANewAttemptNotInsideTheSameOne) {
  // gpusweep's jobs say --no-requeue; a user's --requeue lets SLURM requeue them.
  const std::string reason = RunDisrupted(
      "backend: {type: slurm, poll_interval: 200ms, max_poll_interval: 1s, extra_args: [--requeue]}\n",
      [](const std::string& job) {
        auto requeued = RunCommand({"scontrol", "requeue", job}, CurrentEnvironment(), 60);
        ASSERT_TRUE(requeued && requeued->exit_code == 0) << (requeued ? requeued->err : "");
      });
  EXPECT_NE(reason.find("SLURM requeued job"), std::string::npos) << reason;
}

// The node goes DOWN under a running job (NODE_FAIL, SLURM kills it); this cluster's
// ReturnToService=2 brings the node back as soon as slurmd answers.
TEST_F(SlurmTest, AJobWhoseNodeFailedRunsAgainAsANewAttempt) {
  auto node = RunCommand({"sinfo", "--noheader", "--Node", "--format=%N"}, CurrentEnvironment(), 60);
  ASSERT_TRUE(node && node->exit_code == 0);
  const std::string name = node->out.substr(0, node->out.find('\n'));
  const std::string reason = RunDisrupted(kBackend, [&](const std::string&) {
    auto down = RunCommand({"scontrol", "update", "NodeName=" + name, "State=DOWN",
                            "Reason=gpusweep-test"},
                           CurrentEnvironment(), 60);
    ASSERT_TRUE(down && down->exit_code == 0) << (down ? down->err : "");
  });
  // In case it did not come back by itself ("Invalid node state" when it did).
  (void)RunCommand({"scontrol", "update", "NodeName=" + name, "State=RESUME"}, CurrentEnvironment(), 60);
  EXPECT_NE(reason.find("its node failed"), std::string::npos) << reason;
  EXPECT_NE(reason.find("NODE_FAIL"), std::string::npos) << reason;
}

// A job of the higher-priority partition "high" (scripts/slurm-cluster.sh) needs the
// node's 4 GPUs: SLURM preempts the trial's job (PREEMPTED, as it says --no-requeue),
// and the trial's next attempt waits for the GPUs, then runs.
TEST_F(SlurmTest, APreemptedJobRunsAgainAsANewAttempt) {
  const std::string reason = RunDisrupted(kBackend, [](const std::string&) {
    auto urgent = RunCommand({"sbatch", "--parsable", "--partition=high", "--gres=gpu:4",
                              "--output=/dev/null", "--wrap=sleep 1"},
                             CurrentEnvironment(), 60);
    ASSERT_TRUE(urgent && urgent->exit_code == 0) << (urgent ? urgent->err : "");
  });
  EXPECT_NE(reason.find("preempted by SLURM"), std::string::npos) << reason;
}

// A NAS search on SLURM (docs/nas.md, dry run: the built-in one-liner reports each
// evaluation's drawn score): every evaluation of the stage plan is a SLURM job of its
// own, on a GPU SLURM chose. 5 topologies: rounds 5 -> 3 -> 2 -> 1, one winner sample, a
// confirm and a retrain, 13 evaluations. (A NAS config's backend: was once never parsed,
// so the whole search ran on the login node.)
TEST_F(SlurmTest, NasDryRunRunsEveryEvaluationAsASlurmJob) {
  Write(std::string(R"(
name: e2e
command: [python3, train.py]
metric: {name: acc, mode: max}
resources: {gpus_per_trial: 1, max_concurrent: 4}
nas:
  depth: 4
  width: 1
  operations:
    conv: {filters: [8, 16], kernel: [1, 3]}
    pooling: {pool: [avg, max]}
  samples_per_round: 1
  winner_samples: 1
  data_size: {init: 100, step: 100}
  confirm: {data_size: 1000}
  seed: 3
  dry_run: true
)") + kBackend);
  auto run = RunGpusweep({"run", "sweep.yaml"}, dir_.path());
  ASSERT_EQ(run.exit_code, 0) << run.out;
  EXPECT_NE(run.out.find("13 to run on SLURM (the default partition, gres gpu:1 per trial, at "
                         "most 4 jobs at once)"),
            std::string::npos)
      << run.out;
  const std::filesystem::path dry = dir_.path() / "runs" / "e2e-dry-run";
  auto journal = OpenJournal(dry / "gpusweep.db", JournalAccess::kReadOnly);
  ASSERT_TRUE(journal);
  auto trials = (*journal)->LoadTrials();
  ASSERT_TRUE(trials);
  ASSERT_EQ(trials->size(), 13u);
  std::set<std::string> job_ids;
  for (const TrialRecord& t : *trials) {
    EXPECT_EQ(t.state, TrialState::kCompleted) << t.number << ": " << t.failure_reason;
    EXPECT_FALSE(t.job_id.empty()) << "evaluation " << t.number << " ran outside SLURM";
    job_ids.insert(t.job_id);
    EXPECT_EQ(t.objective, t.params["nas_dry_score"].get<double>()) << t.number;
    EXPECT_TRUE(std::filesystem::exists(dry / "trials" / TrialDirName(t.number) / "gpusweep-job.sh"))
        << t.number;
  }
  EXPECT_EQ(job_ids.size(), 13u) << "one job per evaluation";
  EXPECT_TRUE(LiveJobs(std::vector<std::string>(job_ids.begin(), job_ids.end())).empty());
  auto status = RunGpusweep({"status", dry.string()}, dir_.path());
  ASSERT_EQ(status.exit_code, 0) << status.out;
  EXPECT_NE(status.out.find("block 1 retrain   1/1 done"), std::string::npos) << status.out;
}

// `check` plans the jobs as `run` would (issue 22): where they run is SLURM's request,
// not this machine's GPUs or CPU slots (so no "no GPU visible" warning on a login node
// without GPUs), the login node's GPU list is said to be ignored, and nothing is
// written (SLURM's test submission, sbatch --test-only, queues no job). A config SLURM
// refuses fails check as it fails run, exit 2.
TEST_F(SlurmTest, CheckPlansTheJobsAsRunWouldAndWritesNothing) {
  const std::string sweep = std::string(R"(
name: e2e
command: [/bin/true]
metric: {name: loss, mode: min}
sampler: {type: random, trials: 6, seed: 3}
search_space:
  x: {type: uniform, low: 0, high: 1}
resources: {gpus: [0], gpus_per_trial: 1, max_concurrent: 3}
)") + kBackend;
  Write(sweep);
  auto check = RunGpusweep({"check", "sweep.yaml"}, dir_.path());
  ASSERT_EQ(check.exit_code, 0) << check.out;
  EXPECT_NE(check.out.find("resources: SLURM (the default partition, gres gpu:1 per trial, at "
                           "most 3 jobs at once); sbatch --test-only accepts its jobs\n"),
            std::string::npos)
      << check.out;
  EXPECT_NE(check.out.find("  0  {\"x\":"), std::string::npos) << check.out;
  EXPECT_NE(check.out.find("(1 GPU)"), std::string::npos) << check.out;
  EXPECT_EQ(check.out.find("no GPU visible"), std::string::npos) << check.out;
  EXPECT_NE(check.out.find("warning: ignored with the SLURM backend: resources.gpus"),
            std::string::npos)
      << check.out;
  EXPECT_FALSE(std::filesystem::exists(exp())) << "check wrote the experiment";

  Write(sweep.substr(0, sweep.find("backend:")) + "backend: {type: slurm, partition: nowhere}\n");
  auto refused = RunGpusweep({"check", "sweep.yaml"}, dir_.path());
  EXPECT_EQ(refused.exit_code, 2) << refused.out;
  EXPECT_NE(refused.out.find("SLURM refuses jobs like this sweep's"), std::string::npos)
      << refused.out;
}

TEST_F(SlurmTest, SubmissionsSlurmRefusesAndMissingClientsAreClearErrors) {
  Write(R"(
name: e2e
command: [/bin/true]
metric: {name: loss, mode: min}
sampler: {type: grid}
search_space: {}
backend: {type: slurm, partition: no-such-partition}
)");
  auto refused = RunGpusweep({"run", "sweep.yaml"}, dir_.path());
  EXPECT_EQ(refused.exit_code, 2) << refused.out;
  EXPECT_NE(refused.out.find("SLURM refuses jobs like this sweep's"), std::string::npos)
      << refused.out;
  EXPECT_NE(refused.out.find("partition"), std::string::npos) << refused.out;
  EXPECT_NE(refused.out.find("sweep.yaml:7: backend:"), std::string::npos) << refused.out;
  EXPECT_FALSE(std::filesystem::exists(exp() / "gpusweep.db")) << "nothing half-recorded";

  // More GPUs per trial than the node has (4): the gres request is named.
  Write("name: e2e\ncommand: [/bin/true]\nmetric: {name: loss, mode: min}\n"
        "sampler: {type: grid}\nsearch_space: {}\nresources: {gpus_per_trial: 8}\n"
        "backend: {type: slurm}\n");
  auto too_many = RunGpusweep({"run", "sweep.yaml"}, dir_.path());
  EXPECT_EQ(too_many.exit_code, 2) << too_many.out;
  EXPECT_NE(too_many.out.find("sweep.yaml:7: backend:"), std::string::npos) << too_many.out;
  EXPECT_NE(too_many.out.find("--gres=gpu:8 from resources.gpus_per_trial (line 6)"),
            std::string::npos)
      << too_many.out;

  Write("name: e2e\ncommand: [/bin/true]\nmetric: {name: loss, mode: min}\n"
        "sampler: {type: grid}\nsearch_space: {}\n");
  // --backend slurm with a PATH that has no sbatch (gpusweep inherits the test's).
  const std::string path = std::getenv("PATH");
  setenv("PATH", "/nonexistent", 1);
  auto missing = RunGpusweep({"run", "--backend", "slurm", "sweep.yaml"}, dir_.path());
  setenv("PATH", path.c_str(), 1);
  EXPECT_EQ(missing.exit_code, 2) << missing.out;
  EXPECT_NE(missing.out.find("sbatch is not on PATH"), std::string::npos) << missing.out;
}

}  // namespace
}  // namespace gpusweep
