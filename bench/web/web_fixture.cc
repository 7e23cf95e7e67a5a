// web_fixture DIR NAME TRIALS STEPS — a finished experiment <DIR>/<NAME> as a run would
// leave it (journal, experiment.json): TRIALS trials of 4 parameters, each with STEPS
// intermediate values of "val_acc" (a noisy saturating curve); a third of them pruned
// halfway. Deterministic (fixed seed). For bench/web/run.sh.
#include <cmath>
#include <cstdio>
#include <random>
#include <string>

#include "gpusweep/journal.h"
#include "run/experiment_meta.h"

int main(int argc, char** argv) {
  using namespace gpusweep;
  if (argc != 5) {
    std::fprintf(stderr, "usage: web_fixture DIR NAME TRIALS STEPS\n");
    return 2;
  }
  const std::filesystem::path dir = std::filesystem::path(argv[1]) / argv[2];
  const int trials = std::stoi(argv[3]), steps = std::stoi(argv[4]);
  std::filesystem::create_directories(dir);
  ExperimentMeta meta{argv[2], {"val_acc", Mode::kMax}, trials, "/bench/sweep.yaml", std::nullopt};
  auto journal = OpenJournal(dir / kJournalFileName, JournalAccess::kReadWrite);
  if (!WriteExperimentMeta(dir, meta) || !journal ||
      !(*journal)->CreateExperiment({argv[2], "/bench/sweep.yaml", "name: bench\n", Json::object(), 1.7e9})) {
    std::fprintf(stderr, "cannot create %s\n", dir.c_str());
    return 1;
  }
  std::mt19937 rng(42);
  std::uniform_real_distribution<double> unit(0, 1);
  const char* optimizers[] = {"sgd", "adam", "rmsprop"};
  for (int k = 0; k < trials; ++k) {
    TrialRecord t;
    t.number = k;
    const double lr = std::pow(10, -4 + 3 * unit(rng)), dropout = 0.5 * unit(rng);
    const int width = 16 << (k % 3);
    t.params = {{"lr", lr}, {"dropout", dropout}, {"width", width}, {"opt", optimizers[k % 3]}};
    t.start_time = 1.7e9 + k;
    t.state = TrialState::kRunning;
    if (!(*journal)->UpsertTrial(t)) return 1;
    const bool pruned = k % 3 == 2;
    const int reported = pruned ? steps / 2 : steps;
    const double ceiling = 0.9 - 0.1 * std::abs(std::log10(lr) + 2.5) - 0.1 * dropout;
    std::vector<IntermediateResult> results;
    double acc = 0;
    for (int s = 0; s < reported; ++s) {
      acc = ceiling * (1 - std::exp(-0.3 * (s + 1))) + 0.01 * unit(rng);
      results.push_back({k, 1, s, t.start_time + s, Json{{"step", s}, {"val_acc", acc}, {"loss", 1 - acc}}});
    }
    t.state = pruned ? TrialState::kPruned : TrialState::kCompleted;
    t.end_time = t.start_time + reported;
    t.exit_code = 0;
    t.objective = acc;
    t.last_metrics = results.back().values;
    if (!(*journal)->FinishTrial(t, results)) return 1;
  }
  return 0;
}
