// web_test_util.h — hand-made experiments for the web module's tests (test-only).
#pragma once

#include <filesystem>
#include <memory>
#include <string>

#include <gtest/gtest.h>

#include "gpusweep/journal.h"
#include "run/experiment_meta.h"

namespace gpusweep::web::testing {

// An experiment directory <parent>/<name> with a journal, experiment.json and trials
// 0..n-1 completed (objective = 0.1 * k, params {lr: 0.01 * (k+1), opt: "sgd"|"adam"},
// `steps` intermediate results each reporting "acc"), and the experiment record's
// `identity` (a NAS experiment's holds {"nas": config}). The journal stays open for
// writing (journal()) so a test can keep adding to it, like a run would.
class FakeExperiment {
 public:
  FakeExperiment(const std::filesystem::path& parent, const std::string& name, int n, int steps = 3,
                 Json identity = Json::object())
      : dir_(parent / name) {
    std::filesystem::create_directories(dir_);
    ExperimentMeta meta;
    meta.name = name;
    meta.metric = {"acc", Mode::kMax};
    meta.total_trials = n + 2;
    EXPECT_TRUE(WriteExperimentMeta(dir_, meta));
    auto journal = OpenJournal(dir_ / kJournalFileName, JournalAccess::kReadWrite);
    EXPECT_TRUE(journal) << journal.error().message;
    journal_ = std::move(*journal);
    EXPECT_TRUE(journal_->CreateExperiment({name, "/nowhere/sweep.yaml", "name: x\n", std::move(identity), 1.7e9}));
    for (int k = 0; k < n; ++k) AddTrial(k, steps);
  }

  void AddTrial(int k, int steps, TrialState state = TrialState::kCompleted) {
    TrialRecord trial;
    trial.number = k;
    trial.params = {{"lr", 0.01 * (k + 1)}, {"opt", k % 2 ? "adam" : "sgd"}};
    trial.start_time = 1.7e9 + k;
    trial.state = TrialState::kRunning;
    EXPECT_TRUE(journal_->UpsertTrial(trial));
    std::vector<IntermediateResult> results;
    for (int s = 0; s < steps; ++s)
      results.push_back({k, 1, s, 1.7e9 + k + s, Json{{"acc", 0.1 * k * (s + 1) / steps}, {"step", s}}});
    trial.state = state;
    trial.end_time = 1.7e9 + k + steps;
    trial.exit_code = 0;
    trial.objective = 0.1 * k;
    EXPECT_TRUE(journal_->FinishTrial(trial, results));
  }

  const std::filesystem::path& dir() const { return dir_; }
  Journal& journal() { return *journal_; }

 private:
  std::filesystem::path dir_;
  std::unique_ptr<Journal> journal_;
};

}  // namespace gpusweep::web::testing
