// gpusweep/fit/estimator.hpp: a training loop for LibTorch models with event handlers
// (after MXNet Gluon's Estimator.fit, without its metric-sharing bugs).
//
// Contract: Estimator::Fit trains `model` on a Dataset for a number of epochs and
// calls its handlers at six events: train begin, epoch begin, batch begin, batch end,
// epoch end, train end. Handlers run in ascending priority(), ties in the order they
// were added; the built-ins' priorities are the kPriority* constants below, so that at
// an epoch's end the training metrics are published first, then validation runs, then
// user handlers, early stopping, checkpoint, gpusweep reporting, logging. A handler
// asks to stop with RequestStop(): a stop asked at batch end abandons the rest of the
// epoch (no epoch-end event for it); one asked at epoch end ends training after all
// epoch-end handlers ran. Train end always runs. Training and validation metrics are
// separate instances, published under "train_<name>" and "val_<name>".
// Errors are exceptions: std::invalid_argument for a bad setting (a monitored metric
// that does not exist), what LibTorch throws (c10::Error) for tensor errors.
#pragma once

#include <gpusweep/fit/metrics.hpp>

#include <torch/nn/module.h>
#include <torch/optim/optimizer.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace gpusweep::fit {

class Estimator;

/// Handler priorities of the built-ins (lower runs first); user handlers default to 0.
inline constexpr int kPriorityMetrics = -2000;
inline constexpr int kPriorityValidation = -1000;
inline constexpr int kPriorityUser = 0;
inline constexpr int kPriorityEarlyStopping = 1000;
inline constexpr int kPriorityCheckpoint = 2000;
inline constexpr int kPriorityGpusweep = 3000;
inline constexpr int kPriorityLogging = 4000;

/// Reacts to the Estimator's events; override the ones needed. Each gets the
/// Estimator, whose state() tells the epoch, batch and published metrics.
class EventHandler {
 public:
  virtual ~EventHandler() = default;
  /// Lower runs first at every event; see the kPriority* constants.
  virtual int priority() const { return kPriorityUser; }
  virtual void OnTrainBegin(Estimator&) {}
  virtual void OnEpochBegin(Estimator&) {}
  virtual void OnBatchBegin(Estimator&) {}
  virtual void OnBatchEnd(Estimator&) {}
  virtual void OnEpochEnd(Estimator&) {}
  virtual void OnTrainEnd(Estimator&) {}
  /// A handler with state that must survive a resume (early stopping's best value)
  /// returns a unique key and its state as JSON text; CheckpointHandler saves it.
  virtual std::string StateKey() const { return ""; }
  virtual std::string SaveState() const { return ""; }
  virtual void LoadState(const std::string& /*json*/) {}
};

/// Inputs [n, ...] and targets [n, ...] held in memory (on the CPU; batches are moved
/// to the Estimator's device).
struct Dataset {
  torch::Tensor inputs;
  torch::Tensor targets;
  std::int64_t size() const { return inputs.defined() ? inputs.size(0) : 0; }
};

/// A published metric value and the epoch (1-based) it was computed at.
struct MetricValue {
  std::string name;  // "train_acc", "val_loss", ...
  double value = 0;
  int epoch = 0;
};

/// What handlers see of the loop.
struct TrainState {
  int epochs = 0;            // the epoch to train up to (FitOptions::epochs)
  int epoch = 0;             // the current epoch, 1-based; 0 before the first
  int completed_epochs = 0;  // epochs finished (restored by a resume)
  std::int64_t batch = 0;    // index of the current batch within the epoch
  torch::Tensor batch_inputs, batch_targets, batch_outputs, batch_loss;  // last batch, on device
  std::vector<MetricValue> metrics;  // published values, in first-publication order
  bool stop_requested = false;
  std::string stop_reason;

  /// The published value of `name`, or nullptr.
  const MetricValue* Find(const std::string& name) const;
  /// The values published at `epoch`, in order.
  std::vector<MetricValue> PublishedAt(int epoch) const;
};

/// Options of one Fit call.
struct FitOptions {
  int epochs = 1;                    // train up to this epoch (1-based, inclusive)
  std::int64_t batch_size = 64;      // training batch size
  std::int64_t eval_batch_size = 1000;
  std::uint64_t seed = 0;            // shuffling: epoch e uses a generator seeded (seed, e)
};

/// What Fit returns.
struct FitResult {
  int completed_epochs = 0;
  std::string stop_reason;           // empty when all epochs ran
  std::vector<MetricValue> metrics;  // the last published values
};

/// `cuda:0` when LibTorch sees a GPU (inside the trial's CUDA_VISIBLE_DEVICES), else CPU.
torch::Device DefaultDevice();

/// The model: a module (for parameters, train/eval, save/load) and its forward call.
struct Model {
  std::shared_ptr<torch::nn::Module> module;
  std::function<torch::Tensor(const torch::Tensor&)> forward;

  /// From a torch::nn::ModuleHolder (what TORCH_MODULE defines), e.g. Of(SmallCnn(16)).
  template <typename Holder>
  static Model Of(Holder holder) {
    return Model{holder.ptr(), [holder](const torch::Tensor& x) mutable { return holder->forward(x); }};
  }
};

/// Loss of a batch: (outputs, targets) -> scalar mean loss.
using LossFn = std::function<torch::Tensor(const torch::Tensor&, const torch::Tensor&)>;

/// The training loop. Not copyable; one Fit at a time.
class Estimator {
 public:
  /// `train_metrics` are updated on training batches; `val_metrics` on validation
  /// data; with `val_metrics` empty, Fresh() copies of the training metrics are used
  /// (never the same instances). The model is moved to `device`.
  Estimator(Model model, LossFn loss, std::shared_ptr<torch::optim::Optimizer> optimizer,
            MetricList train_metrics, MetricList val_metrics = {},
            torch::Device device = DefaultDevice());
  Estimator(const Estimator&) = delete;
  Estimator& operator=(const Estimator&) = delete;

  /// Adds a handler (shared, so the caller may keep a pointer to inspect it).
  void AddHandler(std::shared_ptr<EventHandler> handler);

  /// Trains on `train` up to options.epochs, validating on `val` (may be empty) through
  /// a ValidationHandler (every epoch unless one was added). A MetricHandler is added
  /// when none was. Throws what handlers and LibTorch throw; train end still runs.
  FitResult Fit(const Dataset& train, const Dataset& val, const FitOptions& options);

  /// Evaluates the model on `data` (eval mode, no gradients) with the validation
  /// metrics and publishes them as "val_<name>" at the current epoch.
  void Validate(const Dataset& data);

  /// Asks the loop to stop (see the contract at the top); the first reason is kept.
  void RequestStop(std::string reason);

  /// Sets a published value ("train_acc", ...) for the current epoch.
  void Publish(const std::string& name, double value);

  /// Marks `epochs` as done (a resume) and restores the values published then.
  void RestoreProgress(int epochs, std::vector<MetricValue> metrics);

  /// Every name that can be published: "train_<m>" and "val_<m>" for the metrics.
  std::vector<std::string> MetricNames() const;

  const TrainState& state() const { return state_; }
  Model& model() { return model_; }
  torch::optim::Optimizer& optimizer() { return *optimizer_; }
  const torch::Device& device() const { return device_; }
  MetricList& train_metrics() { return train_metrics_; }
  MetricList& val_metrics() { return val_metrics_; }
  const Dataset& val_data() const { return *val_; }
  const FitOptions& options() const { return options_; }
  /// Handlers in the order they run.
  const std::vector<std::shared_ptr<EventHandler>>& handlers() const { return handlers_; }

 private:
  void PrepareHandlers(bool has_validation);
  template <typename Event>
  void Emit(Event event);
  void TrainEpoch(const Dataset& train);

  Model model_;
  LossFn loss_;
  std::shared_ptr<torch::optim::Optimizer> optimizer_;
  MetricList train_metrics_, val_metrics_;
  torch::Device device_;
  std::vector<std::shared_ptr<EventHandler>> handlers_;
  TrainState state_;
  FitOptions options_;
  const Dataset* val_ = nullptr;
};

}  // namespace gpusweep::fit
