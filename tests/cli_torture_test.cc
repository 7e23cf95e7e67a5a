// Torture: gpusweep killed with SIGKILL at random moments (sometimes its guard too),
// on a simulated slow disk, restarted at once each time, then run to the end. Every
// copy of a trial takes a flock for as long as any of its processes lives and tags its
// metrics lines with its own id, so the test sees (1) whether two copies of one trial
// ever ran at the same time and (2) whether a result was attributed to an attempt
// that did not write it.
// Rounds: GPUSWEEP_TORTURE_ROUNDS (default 8, about 15 s); GPUSWEEP_TORTURE_SEED.
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>
#include <thread>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>

#include "cli_harness.h"
#include "gpusweep/journal.h"
#include "run/test_util.h"

namespace gpusweep {
namespace {

constexpr int kTrials = 16;

// Each copy: takes the flock (inherited, so held while any of its processes lives),
// writes its id to copies-<n>, then reports three steps from a process that left the
// process group (setsid) and ignores SIGTERM: the hardest copy to stop, and the one
// that, left running, would append to the next attempt's metrics.jsonl.
constexpr const char* kTrialScript = R"(n=$1; a=$2; dir=$3
exec 9>"$dir/lock-$n"
flock -n 9 || echo "$n" >> "$dir/violations"
copy=$$
echo "$copy" >> "$dir/copies-$n"
setsid sh -c '
  trap "" TERM
  for s in 1 2 3; do
    echo "{\"step\": $s, \"acc\": '"$a"', \"copy\": '"$copy"'}" >> "$GPUSWEEP_METRICS"
    sleep 0.1
  done' &
wait $!
)";

constexpr const char* kSweep = R"(
name: e2e
command: [/bin/sh, '{{config_dir}}/trial.sh', '{{trial.number}}', '{{a}}', '{{config_dir}}']
metric: {name: acc, mode: max}
sampler: {type: grid}
search_space:
  a: {type: int, low: 1, high: 16}
resources: {cpu_slots: 2}
kill_grace: 1s
)";

int EnvInt(const char* name, int fallback) {
  const char* value = std::getenv(name);
  return value != nullptr ? std::atoi(value) : fallback;
}

// gpusweep's guard: its child named gpusweep-guard.
pid_t GuardOf(pid_t gpusweep) {
  std::ifstream children(fmt::format("/proc/{}/task/{}/children", gpusweep, gpusweep));
  pid_t child = 0;
  while (children >> child) {
    std::ifstream comm(fmt::format("/proc/{}/comm", child));
    std::string name;
    if (comm >> name && name == "gpusweep-guard") return child;
  }
  return 0;
}

// `containment`: "" (cgroups where possible) or "tagged" (GPUSWEEP_CONTAINMENT).
void Torture(const char* containment) {
  if (*containment != '\0') ::setenv("GPUSWEEP_CONTAINMENT", containment, 1);
  TempDir dir;
  WriteFile(dir.path() / "sweep.yaml", kSweep);
  WriteFile(dir.path() / "trial.sh", kTrialScript);
  const std::filesystem::path exp = dir.path() / "runs" / "e2e";
  const int rounds = EnvInt("GPUSWEEP_TORTURE_ROUNDS", 8);
  const unsigned seed = static_cast<unsigned>(EnvInt("GPUSWEEP_TORTURE_SEED", 13));
  std::mt19937 random(seed);
  std::uniform_int_distribution<int> wait_ms(20, 700);
  for (int round = 0; round < rounds; ++round) {
    // Half the rounds on a slow disk: a kill then often lands inside a commit.
    if (round % 2 == 1) ::setenv("GPUSWEEP_TEST_SLOW_DISK_MS", "30", 1);
    const pid_t run = testing::StartGpusweep({"run", "sweep.yaml"}, dir.path(),
                                    dir.path() / fmt::format("round{}.log", round));
    ::unsetenv("GPUSWEEP_TEST_SLOW_DISK_MS");
    std::this_thread::sleep_for(std::chrono::milliseconds(wait_ms(random)));
    // Every third round the guard dies first: only the next run's cleanup is left.
    if (round % 3 == 2)
      if (const pid_t guard = GuardOf(run)) ::kill(guard, SIGKILL);
    ::kill(run, SIGKILL);
    testing::WaitExit(run);  // the next run starts at once, while the old copies may still run
  }
  ::setenv("GPUSWEEP_TEST_SLOW_DISK_MS", "30", 1);
  auto last = testing::RunGpusweep({"run", "sweep.yaml"}, dir.path());
  ::unsetenv("GPUSWEEP_TEST_SLOW_DISK_MS");
  ASSERT_EQ(last.exit_code, 0) << "seed " << seed << ": " << last.out;
  EXPECT_TRUE(testing::WaitUntil(10, [&] { return testing::LiveTrialProcesses(exp).empty(); }));

  EXPECT_FALSE(std::filesystem::exists(dir.path() / "violations"))
      << "seed " << seed << ": trials that ran twice at once: "
      << ReadFile(dir.path() / "violations");
  auto journal = OpenJournal(exp / "gpusweep.db", JournalAccess::kReadOnly);
  ASSERT_TRUE(journal) << journal.error().message;
  auto trials = (*journal)->LoadTrials();
  ASSERT_TRUE(trials);
  ASSERT_EQ(trials->size(), static_cast<std::size_t>(kTrials));
  ::unsetenv("GPUSWEEP_CONTAINMENT");
  int reruns = 0;
  for (const TrialRecord& trial : *trials) reruns += trial.attempt - 1;
  std::cout << "seed " << seed << ", " << rounds << " kills: " << reruns
            << " attempts ran again\n";
  for (const TrialRecord& trial : *trials) {
    EXPECT_EQ(trial.state, TrialState::kCompleted) << trial.number << ": " << trial.failure_reason;
    EXPECT_EQ(trial.objective, std::optional<double>(trial.number + 1));
    auto results = (*journal)->LoadResults(trial.number);
    ASSERT_TRUE(results);
    // Every attempt's results come from one copy, and no copy's from two attempts.
    std::map<int, std::set<long>> copies_of_attempt;
    std::map<long, std::set<int>> attempts_of_copy;
    std::map<int, std::set<std::int64_t>> steps_of_attempt;
    for (const IntermediateResult& result : *results) {
      const long copy = result.values.value("copy", -1L);
      copies_of_attempt[result.attempt].insert(copy);
      attempts_of_copy[copy].insert(result.attempt);
      EXPECT_TRUE(steps_of_attempt[result.attempt].insert(result.step).second)
          << "trial " << trial.number << " attempt " << result.attempt << " has step "
          << result.step << " twice";
    }
    for (const auto& [attempt, copies] : copies_of_attempt)
      EXPECT_EQ(copies.size(), 1u) << "seed " << seed << ": trial " << trial.number
                                   << " attempt " << attempt << " mixes copies";
    for (const auto& [copy, attempts] : attempts_of_copy)
      EXPECT_EQ(attempts.size(), 1u) << "seed " << seed << ": trial " << trial.number
                                     << " copy " << copy << " in several attempts";
    EXPECT_EQ(steps_of_attempt[trial.attempt].size(), 3u) << trial.number;
  }
  ::unsetenv("GPUSWEEP_CONTAINMENT");
}

// Population-based training under the same kills: 4 members x 4 segments over a sh
// trial that takes a flock per segment, restores the checkpoint gpusweep copied in
// (epoch and lineage), sleeps through its epochs and saves atomically with its marker.
constexpr int kMembers = 4;
constexpr int kSegments = 4;

constexpr const char* kPbtTrialScript = R"(n=$1; budget=$2; x=$3; dir=$4
exec 9>"$dir/lock-$n"
flock -n 9 || echo "$n" >> "$dir/violations"
ck="$GPUSWEEP_CHECKPOINT_DIR"
start=0; lineage=""
if [ -f "$ck/gpusweep-checkpoint.json" ]; then start=$(cat "$ck/epoch"); lineage=$(cat "$ck/lineage"); fi
echo "${GPUSWEEP_PARENT_TRIAL:--} $start $lineage" > started
e=$start
while [ "$e" -lt "$budget" ]; do sleep 0.05; e=$((e + 1)); done
tmp="$GPUSWEEP_TRIAL_DIR/.saving.$$"
mkdir "$tmp"
echo "$budget" > "$tmp/epoch"
echo "$lineage $n" > "$tmp/lineage"
echo "{\"trial\": $n, \"resource\": $budget}" > "$tmp/gpusweep-checkpoint.json"
rm -rf "$ck"
mv "$tmp" "$ck"
echo "{\"epoch\": $budget, \"acc\": $(awk "BEGIN { print $x * $budget }")}" >> "$GPUSWEEP_METRICS"
)";

constexpr const char* kPbtSweep = R"(
name: pbt
command: [/bin/sh, '{{config_dir}}/trial.sh', '{{trial.number}}', '{{budget}}', '{{x}}', '{{config_dir}}']
metric: {name: acc, mode: max}
sampler: {type: random, trials: 4, seed: 5}
search_space:
  x: {type: uniform, low: 0, high: 1}
scheduler: {type: pbt, perturbation_interval: 1, max_resource: 4, population: 4, quantile: 0.5}
resources: {gpus: none, cpu_slots: 2}
kill_grace: 1s
)";

std::vector<std::string> Words(const std::string& text) {
  std::istringstream in(text);
  std::vector<std::string> words;
  for (std::string word; in >> word;) words.push_back(word);
  return words;
}

TEST(CliTortureTest, PopulationBasedTrainingResumesEveryMemberExactly) {
  TempDir dir;
  WriteFile(dir.path() / "sweep.yaml", kPbtSweep);
  WriteFile(dir.path() / "trial.sh", kPbtTrialScript);
  const std::filesystem::path exp = dir.path() / "runs" / "pbt";
  const int rounds = EnvInt("GPUSWEEP_TORTURE_ROUNDS", 8);
  const unsigned seed = static_cast<unsigned>(EnvInt("GPUSWEEP_TORTURE_SEED", 17));
  std::mt19937 random(seed);
  std::uniform_int_distribution<int> wait_ms(50, 900);
  for (int round = 0; round < rounds; ++round) {
    if (round % 2 == 1) ::setenv("GPUSWEEP_TEST_SLOW_DISK_MS", "30", 1);
    const pid_t run = testing::StartGpusweep({"run", "sweep.yaml"}, dir.path(),
                                             dir.path() / fmt::format("round{}.log", round));
    ::unsetenv("GPUSWEEP_TEST_SLOW_DISK_MS");
    std::this_thread::sleep_for(std::chrono::milliseconds(wait_ms(random)));
    ::kill(run, SIGKILL);
    testing::WaitExit(run);
  }
  auto last = testing::RunGpusweep({"run", "sweep.yaml"}, dir.path());
  ASSERT_EQ(last.exit_code, 0) << "seed " << seed << ": " << last.out;
  EXPECT_TRUE(testing::WaitUntil(10, [&] { return testing::LiveTrialProcesses(exp).empty(); }));
  EXPECT_FALSE(std::filesystem::exists(dir.path() / "violations"))
      << "seed " << seed << ": segments that ran twice at once: " << ReadFile(dir.path() / "violations");

  auto journal = OpenJournal(exp / "gpusweep.db", JournalAccess::kReadOnly);
  ASSERT_TRUE(journal) << journal.error().message;
  auto trials = (*journal)->LoadTrials();
  ASSERT_TRUE(trials);
  ASSERT_EQ(trials->size(), static_cast<std::size_t>(kMembers * kSegments));  // none lost
  int reruns = 0;
  for (const TrialRecord& trial : *trials) {
    EXPECT_EQ(trial.state, TrialState::kCompleted) << trial.number << ": " << trial.failure_reason;
    reruns += trial.attempt - 1;
  }
  // Every start of a segment (first run and reruns after kills) had the same params and
  // parent: the replayed population decided exactly as before.
  auto events = (*journal)->LoadSchedulerEvents();
  ASSERT_TRUE(events);
  std::map<int, std::set<std::string>> starts;
  for (const SchedulerEventRecord& event : *events)
    if (event.kind == "job_started") {
      const Json& job = event.detail["job"];
      starts[event.trial].insert(Json{{"params", job["params"]}, {"parent", job.value("parent", Json())}}.dump());
    }
  ASSERT_EQ(starts.size(), static_cast<std::size_t>(kMembers * kSegments));
  for (const auto& [trial, distinct] : starts)
    EXPECT_EQ(distinct.size(), 1u) << "seed " << seed << ": trial " << trial << " started as "
                                   << fmt::format("{}", fmt::join(distinct, " and "));
  // Each member's last segment holds one complete lineage: one segment per point, each
  // started from the one before it (its recorded parent).
  for (int member = 0; member < kMembers; ++member) {
    const int final_trial = (kSegments - 1) * kMembers + member;
    const std::filesystem::path trial_dir = exp / "trials" / fmt::format("{:04d}", final_trial);
    const std::vector<std::string> lineage = Words(ReadFile(trial_dir / "checkpoint" / "lineage"));
    ASSERT_EQ(lineage.size(), static_cast<std::size_t>(kSegments))
        << "seed " << seed << ": member " << member << "'s lineage: "
        << ReadFile(trial_dir / "checkpoint" / "lineage") << " (" << exp << ")";
    for (int s = 0; s < kSegments; ++s) {
      const int k = std::stoi(lineage[s]);
      EXPECT_EQ(k / kMembers, s) << "member " << member << " lineage " << ReadFile(trial_dir / "checkpoint" / "lineage");
      const std::vector<std::string> started =
          Words(ReadFile(exp / "trials" / fmt::format("{:04d}", k) / "started"));
      ASSERT_GE(started.size(), 2u);
      EXPECT_EQ(started[0], s == 0 ? "-" : lineage[s - 1]) << "trial " << k;
      EXPECT_EQ(started[1], std::to_string(s)) << "trial " << k << " resumed at the parent's epoch";
    }
    EXPECT_EQ(std::stoi(lineage.back()), final_trial);
  }
  std::cout << "seed " << seed << ", " << rounds << " kills: " << reruns << " segments ran again\n";
}

TEST(CliTortureTest, KillNineAtRandomMomentsNeverRunsATrialTwiceOrMisattributesAResult) {
  Torture("");
}

TEST(CliTortureTest, TheSameWithoutCgroups) { Torture("tagged"); }

}  // namespace
}  // namespace gpusweep
