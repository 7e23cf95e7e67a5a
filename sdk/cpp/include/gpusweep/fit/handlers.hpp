// gpusweep/fit/handlers.hpp: the built-in event handlers of Estimator.
//
// Contract: each built-in has a fixed priority (estimator.hpp), which fixes the
// order at every event: metrics (-2000) → validation (-1000) → user handlers (0) →
// early stopping (1000) → checkpoint (2000) → gpusweep reporting (3000) → logging
// (4000). So at an epoch's end the checkpoint holds early stopping's updated state,
// and gpusweep sees an epoch only after its checkpoint is on disk (a prune right
// after the report loses nothing).
#pragma once

#include <gpusweep/fit/estimator.hpp>
#include <gpusweep/fit/mode.hpp>

#include <chrono>
#include <filesystem>
#include <iosfwd>
#include <optional>
#include <string>

namespace gpusweep::fit {

/// Resets the training metrics at each epoch's begin, updates them at each batch's
/// end, publishes "train_<name>" at the epoch's end. Added by Fit when missing.
class MetricHandler : public EventHandler {
 public:
  int priority() const override { return kPriorityMetrics; }
  void OnEpochBegin(Estimator& estimator) override;
  void OnBatchEnd(Estimator& estimator) override;
  void OnEpochEnd(Estimator& estimator) override;
};

/// Validates every `every` epochs (and at the last epoch, so the final result has
/// validation metrics). Added by Fit with every = 1 when validation data is given and
/// no ValidationHandler was added. `every` >= 1, else std::invalid_argument.
class ValidationHandler : public EventHandler {
 public:
  explicit ValidationHandler(int every = 1);
  int priority() const override { return kPriorityValidation; }
  void OnEpochEnd(Estimator& estimator) override;

 private:
  int every_;
};

/// Stops training when `monitor` (any published name: "val_loss", "train_acc") has
/// not improved by more than `min_delta` for `patience` evaluations of it (an epoch
/// without a new value, e.g. between validations, does not count). `mode` kAuto is
/// decided by ResolveMode. The monitored name is checked at train begin
/// (std::invalid_argument naming the metrics that exist).
class EarlyStoppingHandler : public EventHandler {
 public:
  EarlyStoppingHandler(std::string monitor, Mode mode = Mode::kAuto, int patience = 3,
                       double min_delta = 0.0);
  int priority() const override { return kPriorityEarlyStopping; }
  void OnTrainBegin(Estimator& estimator) override;
  void OnEpochEnd(Estimator& estimator) override;
  std::string StateKey() const override { return "early_stopping:" + monitor_; }
  std::string SaveState() const override;
  void LoadState(const std::string& json) override;

  Mode mode() const { return mode_; }               // resolved after train begin
  std::optional<double> best() const { return best_; }
  int best_epoch() const { return best_epoch_; }
  int stopped_epoch() const { return stopped_epoch_; }  // 0 when it did not stop

 private:
  std::string monitor_;
  Mode mode_;
  int patience_;
  double min_delta_;
  std::optional<double> best_;
  int best_epoch_ = 0, wait_ = 0, stopped_epoch_ = 0;
};

/// Whether CheckpointHandler resumes from the latest checkpoint at train begin.
enum class Resume { kLatest, kNever };

/// Saves `latest.pt` in `directory` after every epoch (model, optimizer, epoch,
/// published metrics, other handlers' state; written to a temporary file and renamed,
/// so a kill never leaves half a checkpoint) and `best.pt` when `monitor` (if not
/// empty) improves. With Resume::kLatest, train begin loads `latest.pt` when it exists
/// and training continues after its epoch. std::invalid_argument for an unknown
/// monitor; c10::Error for an unreadable checkpoint.
class CheckpointHandler : public EventHandler {
 public:
  explicit CheckpointHandler(std::filesystem::path directory, std::string monitor = "",
                             Mode mode = Mode::kAuto, Resume resume = Resume::kLatest);
  int priority() const override { return kPriorityCheckpoint; }
  void OnTrainBegin(Estimator& estimator) override;
  void OnEpochEnd(Estimator& estimator) override;
  std::string StateKey() const override { return "checkpoint:" + monitor_; }
  std::string SaveState() const override;
  void LoadState(const std::string& json) override;

  std::filesystem::path latest_path() const { return directory_ / "latest.pt"; }
  std::filesystem::path best_path() const { return directory_ / "best.pt"; }
  int resumed_epoch() const { return resumed_epoch_; }  // 0 when nothing was resumed

 private:
  void Save(Estimator& estimator, const std::filesystem::path& path) const;
  void Load(Estimator& estimator);

  std::filesystem::path directory_;
  std::string monitor_;
  Mode mode_;
  Resume resume_;
  std::optional<double> best_;
  int resumed_epoch_ = 0;
};

/// Reports each epoch's published metrics to gpusweep ({"epoch": e, "train_loss": ...,
/// "val_acc": ...}: `epoch` is the scheduler's default resource) through
/// gpusweep/trial.hpp, and stops cleanly when gpusweep asks: at a rung report() waits
/// for the scheduler's verdict and a "stop" ends training after that epoch; a SIGTERM
/// (should_stop()) is checked at every batch's begin and end. A resumed run that has no epoch left
/// reports its last epoch again, since each run is judged by what it reports.
class GpusweepHandler : public EventHandler {
 public:
  /// With StopSignal::kHandle (the default) train begin installs handle_stop().
  enum class StopSignal { kHandle, kLeaveAlone };
  explicit GpusweepHandler(StopSignal stop_signal = StopSignal::kHandle)
      : stop_signal_(stop_signal) {}
  int priority() const override { return kPriorityGpusweep; }
  void OnTrainBegin(Estimator& estimator) override;
  void OnBatchBegin(Estimator& estimator) override;
  void OnBatchEnd(Estimator& estimator) override;
  void OnEpochEnd(Estimator& estimator) override;

 private:
  void CheckStop(Estimator& estimator) const;
  void Report(Estimator& estimator, int epoch) const;
  StopSignal stop_signal_;
};

/// Prints one line per epoch (metrics, seconds) to `out`, and a line at train begin and
/// end; with `every_batches` > 0 also the batch loss every that many batches.
class LoggingHandler : public EventHandler {
 public:
  explicit LoggingHandler(std::ostream& out, std::int64_t every_batches = 0)
      : out_(out), every_batches_(every_batches) {}
  int priority() const override { return kPriorityLogging; }
  void OnTrainBegin(Estimator& estimator) override;
  void OnEpochBegin(Estimator& estimator) override;
  void OnBatchEnd(Estimator& estimator) override;
  void OnEpochEnd(Estimator& estimator) override;
  void OnTrainEnd(Estimator& estimator) override;

 private:
  std::ostream& out_;
  std::int64_t every_batches_;
  std::chrono::steady_clock::time_point epoch_start_;
};

}  // namespace gpusweep::fit
