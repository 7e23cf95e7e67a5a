// web_fixture DIR NAME TRIALS STEPS — a finished ASHA experiment <DIR>/<NAME> as a run
// would leave it (journal, experiment.json): TRIALS trials of 4 parameters, each with
// STEPS intermediate values of "val_acc" (a noisy saturating curve) at epochs 1..STEPS;
// rungs at epochs 1, 3 and 9 (η = 3), a third of the trials stopped at one of them, with
// the scheduler's decisions journaled as a run journals them. Deterministic (fixed seed).
// Commits in batches of 500 trials and syncs once, so 10,000 trials take seconds.
// For bench/web/run.sh.
#include <cmath>
#include <cstdio>
#include <random>
#include <string>

#include "gpusweep/journal.h"
#include "run/experiment_meta.h"
#include "run/scheduler_journal.h"

namespace {

using namespace gpusweep;

constexpr double kRungs[] = {1, 3, 9};

// The report event a run journals when a trial reaches a rung.
SchedulerEventRecord RungReport(int trial, int rung, double value, bool stopped, double time) {
  Decision decision{trial, 0, rung, kRungs[rung], value,
                    stopped ? Verdict::kStop : Verdict::kContinue,
                    stopped ? "not in the top third at this rung" : "in the top third"};
  return ReportEvent(trial, kRungs[rung], value, decision, time);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 5) {
    std::fprintf(stderr, "usage: web_fixture DIR NAME TRIALS STEPS\n");
    return 2;
  }
  const std::filesystem::path dir = std::filesystem::path(argv[1]) / argv[2];
  const int trials = std::stoi(argv[3]), steps = std::stoi(argv[4]);
  std::filesystem::create_directories(dir);
  ExperimentMeta meta{argv[2], {"val_acc", Mode::kMax}, trials, "/bench/sweep.yaml",
                      SchedulerSummary{"asha", "epoch", static_cast<double>(steps)}, CvConfig{}};
  auto journal = OpenJournal(dir / kJournalFileName, JournalAccess::kReadWrite);
  if (!WriteExperimentMeta(dir, meta) || !journal ||
      !(*journal)->CreateExperiment({argv[2], "/bench/sweep.yaml", "name: bench\n", Json::object(), 1.7e9})) {
    std::fprintf(stderr, "cannot create %s\n", dir.c_str());
    return 1;
  }
  std::mt19937 rng(42);
  std::uniform_real_distribution<double> unit(0, 1);
  const char* optimizers[] = {"sgd", "adam", "rmsprop"};
  std::vector<JournalWrite> batch;
  auto flush = [&] {
    const bool ok = bool((*journal)->Apply(batch, Durability::kAtSync));
    batch.clear();
    return ok;
  };
  for (int k = 0; k < trials; ++k) {
    TrialRecord t;
    t.number = k;
    const double lr = std::pow(10, -4 + 3 * unit(rng)), dropout = 0.5 * unit(rng);
    const int width = 16 << (k % 3);
    t.params = {{"lr", lr}, {"dropout", dropout}, {"width", width}, {"opt", optimizers[k % 3]}};
    t.start_time = 1.7e9 + k;
    t.state = TrialState::kRunning;
    JournalWrite upsert;
    upsert.kind = JournalWrite::Kind::kUpsertTrial;
    upsert.record = t;
    batch.push_back(std::move(upsert));
    const bool pruned = k % 3 == 2;
    const int stop_rung = (k / 3) % 3;
    const int reported = pruned ? static_cast<int>(kRungs[stop_rung]) : steps;
    const double ceiling = 0.9 - 0.1 * std::abs(std::log10(lr) + 2.5) - 0.1 * dropout;
    JournalWrite finish;
    finish.kind = JournalWrite::Kind::kFinishTrial;
    double acc = 0;
    for (int epoch = 1; epoch <= reported; ++epoch) {
      acc = ceiling * (1 - std::exp(-0.3 * epoch)) + 0.01 * unit(rng);
      const double time = t.start_time + epoch;
      finish.results.push_back({k, 1, epoch, time, Json{{"epoch", epoch}, {"val_acc", acc}, {"loss", 1 - acc}}});
      for (int r = 0; r < 3; ++r)
        if (kRungs[r] == epoch) finish.events.push_back(RungReport(k, r, acc, pruned && r == stop_rung, time));
    }
    t.state = pruned ? TrialState::kPruned : TrialState::kCompleted;
    t.end_time = t.start_time + reported;
    t.exit_code = 0;
    t.objective = acc;
    t.last_metrics = finish.results.back().values;
    finish.record = std::move(t);
    batch.push_back(std::move(finish));
    if (batch.size() >= 1000 && !flush()) return 1;
  }
  if (!flush() || !(*journal)->Sync()) return 1;
  return 0;
}
