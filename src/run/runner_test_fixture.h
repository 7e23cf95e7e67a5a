// runner_test_fixture.h — a fake GPU inventory, a recording observer and a fixture that
// runs one experiment from YAML text in a fresh directory with real processes.
#pragma once

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "gpusweep/journal.h"
#include "run/runner.h"
#include "run/test_util.h"

namespace gpusweep {

class FakeGpuProbe : public GpuProbe {
 public:
  explicit FakeGpuProbe(int count) : count_(count) {}
  Expected<std::vector<GpuInfo>> ListGpus() override {
    std::vector<GpuInfo> gpus;
    for (int i = 0; i < count_; ++i)
      gpus.push_back(GpuInfo{i, "Fake GPU", fmt::format("GPU-fake-{}", i), 1ull << 34});
    return gpus;
  }

 private:
  int count_;
};

class RecordingObserver : public RunObserver {
 public:
  void OnStart(const RunInfo& info) override { this->info = info; }
  void OnWarning(const std::string& message) override { warnings.push_back(message); }
  void OnTrialStarted(const TrialRecord& trial) override {
    started.push_back(trial.number);
    events.push_back(fmt::format("started {}", trial.number));
  }
  void OnTrialFinished(const TrialRecord& trial) override {
    finished.push_back(trial);
    events.push_back(fmt::format("finished {}", trial.number));
  }
  void OnTrialPruned(const TrialRecord& trial, const std::string&) override {
    pruned.push_back(trial.number);
  }
  RunInfo info;
  std::vector<std::string> warnings;
  std::vector<int> started;
  std::vector<TrialRecord> finished;
  std::vector<int> pruned;
  std::vector<std::string> events;  // "started N" / "finished N", in the order heard
};

// Runs one experiment from YAML text in a fresh directory.
class RunnerTest : public ::testing::Test {
 protected:
  ExperimentConfig Config(const std::string& yaml) {
    auto path = dir_.path() / "sweep.yaml";
    WriteFile(path, yaml);
    auto config = LoadConfig(path);
    EXPECT_TRUE(config) << config.error().message;
    return *config;
  }
  Expected<RunOutcome> Run(const ExperimentConfig& config, int gpus = 0, int cores = 2) {
    return Whole(RunAsKept(config, gpus, cores));
  }
  // The outcome as the run returns it (RunOutcome::trials: what the run kept).
  Expected<RunOutcome> RunAsKept(const ExperimentConfig& config, int gpus = 0, int cores = 2) {
    FakeGpuProbe probe(gpus);
    RealRunServices real(ProcessOptionsFor(config, experiment_dir(), {}));
    real.services.gpu_probe = &probe;
    real.services.usable_cores = cores;
    RunOptions options{experiment_dir(), std::nullopt, dir_.path() / "python"};
    observer_ = RecordingObserver{};
    return RunExperimentWith(config, options, real.services, observer_);
  }
  // `outcome` with every trial as the journal holds it, which is what the commands read:
  // the run itself keeps of a plain sweep's finished trials no params or other metrics
  // (SearchPolicy::reads_finished_trials; FinishedRecordsTest, runner_test.cc).
  Expected<RunOutcome> Whole(Expected<RunOutcome> outcome) {
    return Whole(std::move(outcome), experiment_dir());
  }
  Expected<RunOutcome> Whole(Expected<RunOutcome> outcome, const std::filesystem::path& dir) {
    if (!outcome) return outcome;
    auto journal = OpenJournal(dir / "gpusweep.db", JournalAccess::kReadOnly);
    if (!journal) return tl::unexpected(journal.error());
    auto trials = (*journal)->LoadTrials();
    if (!trials) return tl::unexpected(trials.error());
    outcome->trials = std::move(*trials);
    return outcome;
  }
  std::filesystem::path experiment_dir() const { return dir_.path() / "exp"; }
  std::unique_ptr<Journal> OpenReadOnly() {
    auto journal = OpenJournal(experiment_dir() / "gpusweep.db", JournalAccess::kReadOnly);
    EXPECT_TRUE(journal) << journal.error().message;
    return std::move(*journal);
  }

  TempDir dir_;
  RecordingObserver observer_;
};

}  // namespace gpusweep
