// gpusweep/fit/metrics.hpp: metrics an Estimator updates per batch.
//
// Contract: a Metric accumulates over the batches since its last Reset() and gives
// one number. The Estimator keeps the training metrics and the validation metrics as
// separate instances (Fresh() makes a new one of the same kind), so validation
// never shares state with training.
#pragma once

#include <torch/types.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace gpusweep::fit {

/// One metric over a stream of batches.
class Metric {
 public:
  /// `name` without train_/val_ prefix, e.g. "acc"; the Estimator publishes it as
  /// "train_acc" and "val_acc".
  explicit Metric(std::string name) : name_(std::move(name)) {}
  virtual ~Metric() = default;
  const std::string& name() const { return name_; }

  /// Forgets every batch seen.
  virtual void Reset() = 0;
  /// Adds one batch: `outputs` [batch, ...] as the model returned them (detached),
  /// `targets` [batch, ...], `loss` the batch's scalar mean loss.
  virtual void Update(const torch::Tensor& outputs, const torch::Tensor& targets,
                      const torch::Tensor& loss) = 0;
  /// The value over the batches since Reset(); throws std::logic_error before any.
  virtual double Value() const = 0;
  /// A new, reset metric of the same kind and name (the validation copy).
  virtual std::unique_ptr<Metric> Fresh() const = 0;

 private:
  std::string name_;
};

using MetricList = std::vector<std::unique_ptr<Metric>>;

/// Classification accuracy: argmax over dim 1 of `outputs` [batch, classes] equals
/// `targets` [batch] (class indices); the fraction of samples, in [0, 1].
class Accuracy : public Metric {
 public:
  explicit Accuracy(std::string name = "acc") : Metric(std::move(name)) {}
  void Reset() override { correct_ = count_ = 0; }
  void Update(const torch::Tensor& outputs, const torch::Tensor& targets,
              const torch::Tensor& loss) override;
  double Value() const override;
  std::unique_ptr<Metric> Fresh() const override { return std::make_unique<Accuracy>(name()); }

 private:
  std::int64_t correct_ = 0, count_ = 0;
};

/// The loss averaged over samples (each batch's mean loss weighted by its size).
class MeanLoss : public Metric {
 public:
  explicit MeanLoss(std::string name = "loss") : Metric(std::move(name)) {}
  void Reset() override { sum_ = 0, count_ = 0; }
  void Update(const torch::Tensor& outputs, const torch::Tensor& targets,
              const torch::Tensor& loss) override;
  double Value() const override;
  std::unique_ptr<Metric> Fresh() const override { return std::make_unique<MeanLoss>(name()); }

 private:
  double sum_ = 0;
  std::int64_t count_ = 0;
};

/// Fresh() copies of every metric in `metrics`: the default validation metrics.
MetricList FreshCopies(const MetricList& metrics);

}  // namespace gpusweep::fit
