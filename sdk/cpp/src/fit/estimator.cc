// The Estimator's loop and the built-in metrics: one translation unit, since each
// one that includes LibTorch headers costs ~25 s to compile.
#include <gpusweep/fit/estimator.hpp>
#include <gpusweep/fit/handlers.hpp>

#include <ATen/CPUGeneratorImpl.h>
#include <torch/cuda.h>
#include <torch/utils.h>

#include <algorithm>
#include <stdexcept>

namespace gpusweep::fit {

// ---- metrics ----

void Accuracy::Update(const torch::Tensor& outputs, const torch::Tensor& targets,
                      const torch::Tensor& /*loss*/) {
  correct_ += outputs.argmax(1).eq(targets).sum().item<std::int64_t>();
  count_ += targets.size(0);
}

double Accuracy::Value() const {
  if (count_ == 0) throw std::logic_error("metric " + name() + " has seen no batch");
  return static_cast<double>(correct_) / static_cast<double>(count_);
}

void MeanLoss::Update(const torch::Tensor& /*outputs*/, const torch::Tensor& targets,
                      const torch::Tensor& loss) {
  const std::int64_t n = targets.size(0);
  sum_ += loss.item<double>() * static_cast<double>(n);
  count_ += n;
}

double MeanLoss::Value() const {
  if (count_ == 0) throw std::logic_error("metric " + name() + " has seen no batch");
  return sum_ / static_cast<double>(count_);
}

MetricList FreshCopies(const MetricList& metrics) {
  MetricList copies;
  for (const auto& metric : metrics) copies.push_back(metric->Fresh());
  return copies;
}

// ---- state ----

const MetricValue* TrainState::Find(const std::string& name) const {
  for (const auto& value : metrics)
    if (value.name == name) return &value;
  return nullptr;
}

std::vector<MetricValue> TrainState::PublishedAt(int at_epoch) const {
  std::vector<MetricValue> out;
  for (const auto& value : metrics)
    if (value.epoch == at_epoch) out.push_back(value);
  return out;
}

torch::Device DefaultDevice() {
  return torch::cuda::is_available() ? torch::Device(torch::kCUDA, 0) : torch::Device(torch::kCPU);
}

// ---- estimator ----

Estimator::Estimator(Model model, LossFn loss, std::shared_ptr<torch::optim::Optimizer> optimizer,
                     MetricList train_metrics, MetricList val_metrics, torch::Device device)
    : model_(std::move(model)),
      loss_(std::move(loss)),
      optimizer_(std::move(optimizer)),
      train_metrics_(std::move(train_metrics)),
      val_metrics_(val_metrics.empty() ? FreshCopies(train_metrics_) : std::move(val_metrics)),
      device_(device) {
  if (!model_.module || !model_.forward || !loss_ || !optimizer_)
    throw std::invalid_argument("Estimator needs a model, its forward, a loss and an optimizer");
  model_.module->to(device_);
}

void Estimator::AddHandler(std::shared_ptr<EventHandler> handler) {
  if (!handler) throw std::invalid_argument("AddHandler: null handler");
  handlers_.push_back(std::move(handler));
}

void Estimator::PrepareHandlers(bool has_validation) {
  const auto has = [this](auto* probe) {
    using T = std::remove_pointer_t<decltype(probe)>;
    return std::any_of(handlers_.begin(), handlers_.end(),
                       [](const auto& h) { return dynamic_cast<T*>(h.get()) != nullptr; });
  };
  if (!has(static_cast<MetricHandler*>(nullptr))) handlers_.push_back(std::make_shared<MetricHandler>());
  if (has_validation && !has(static_cast<ValidationHandler*>(nullptr)))
    handlers_.push_back(std::make_shared<ValidationHandler>(1));
  std::stable_sort(handlers_.begin(), handlers_.end(),
                   [](const auto& a, const auto& b) { return a->priority() < b->priority(); });
}

template <typename Event>
void Estimator::Emit(Event event) {
  for (const auto& handler : handlers_) ((*handler).*event)(*this);
}

FitResult Estimator::Fit(const Dataset& train, const Dataset& val, const FitOptions& options) {
  if (train.size() == 0) throw std::invalid_argument("Fit: the training set is empty");
  if (options.epochs < 1 || options.batch_size < 1 || options.eval_batch_size < 1)
    throw std::invalid_argument("Fit: epochs, batch_size and eval_batch_size must be >= 1");
  options_ = options;
  val_ = &val;
  state_ = TrainState{};
  state_.epochs = options.epochs;
  PrepareHandlers(val.size() > 0);

  // Train end runs even when a handler or LibTorch throws, so logs and files close.
  struct TrainEndGuard {
    Estimator* self;
    bool armed = true;
    ~TrainEndGuard() {
      if (!armed) return;
      try {
        self->Emit(&EventHandler::OnTrainEnd);
      } catch (...) {  // the first exception is the one to see
      }
    }
  } guard{this};

  Emit(&EventHandler::OnTrainBegin);
  for (int epoch = state_.completed_epochs + 1; epoch <= options.epochs && !state_.stop_requested;
       ++epoch) {
    state_.epoch = epoch;
    Emit(&EventHandler::OnEpochBegin);
    if (state_.stop_requested) break;
    TrainEpoch(train);
    if (state_.stop_requested && state_.batch >= 0) break;  // abandoned mid-epoch
    Emit(&EventHandler::OnEpochEnd);
    state_.completed_epochs = epoch;
  }
  guard.armed = false;
  Emit(&EventHandler::OnTrainEnd);

  FitResult result;
  result.completed_epochs = state_.completed_epochs;
  result.stop_reason = state_.stop_reason;
  result.metrics = state_.metrics;
  return result;
}

// One pass over `train` in the order of a generator seeded by (seed, epoch), so that a
// resumed run sees the same order as an uninterrupted one. Leaves state_.batch at -1
// when the epoch ran to its end, at the abandoned batch's index otherwise.
void Estimator::TrainEpoch(const Dataset& train) {
  model_.module->train();
  auto generator = at::make_generator<at::CPUGeneratorImpl>(
      options_.seed * 1000003ULL + static_cast<std::uint64_t>(state_.epoch));
  const torch::Tensor order = torch::randperm(train.size(), generator, torch::kLong);
  const std::int64_t batches = (train.size() + options_.batch_size - 1) / options_.batch_size;
  for (state_.batch = 0; state_.batch < batches; ++state_.batch) {
    const auto idx = order.narrow(0, state_.batch * options_.batch_size,
                                  std::min(options_.batch_size,
                                           train.size() - state_.batch * options_.batch_size));
    state_.batch_inputs = train.inputs.index_select(0, idx).to(device_);
    state_.batch_targets = train.targets.index_select(0, idx).to(device_);
    Emit(&EventHandler::OnBatchBegin);
    if (state_.stop_requested) return;
    optimizer_->zero_grad();
    const torch::Tensor outputs = model_.forward(state_.batch_inputs);
    const torch::Tensor loss = loss_(outputs, state_.batch_targets);
    loss.backward();
    optimizer_->step();
    state_.batch_outputs = outputs.detach();
    state_.batch_loss = loss.detach();
    Emit(&EventHandler::OnBatchEnd);
    if (state_.stop_requested && state_.batch + 1 < batches) return;
  }
  state_.batch = -1;
}

void Estimator::Validate(const Dataset& data) {
  if (data.size() == 0) return;
  torch::NoGradGuard no_grad;
  model_.module->eval();
  for (auto& metric : val_metrics_) metric->Reset();
  for (std::int64_t start = 0; start < data.size(); start += options_.eval_batch_size) {
    const std::int64_t n = std::min(options_.eval_batch_size, data.size() - start);
    const torch::Tensor x = data.inputs.narrow(0, start, n).to(device_);
    const torch::Tensor y = data.targets.narrow(0, start, n).to(device_);
    const torch::Tensor outputs = model_.forward(x);
    const torch::Tensor loss = loss_(outputs, y);
    for (auto& metric : val_metrics_) metric->Update(outputs, y, loss);
  }
  model_.module->train();
  for (const auto& metric : val_metrics_) Publish("val_" + metric->name(), metric->Value());
}

void Estimator::RequestStop(std::string reason) {
  if (state_.stop_requested) return;
  state_.stop_requested = true;
  state_.stop_reason = std::move(reason);
}

void Estimator::Publish(const std::string& name, double value) {
  for (auto& published : state_.metrics) {
    if (published.name == name) {
      published.value = value;
      published.epoch = state_.epoch;
      return;
    }
  }
  state_.metrics.push_back(MetricValue{name, value, state_.epoch});
}

void Estimator::RestoreProgress(int epochs, std::vector<MetricValue> metrics) {
  state_.completed_epochs = epochs;
  state_.epoch = epochs;
  state_.metrics = std::move(metrics);
}

std::vector<std::string> Estimator::MetricNames() const {
  std::vector<std::string> names;
  for (const auto& metric : train_metrics_) names.push_back("train_" + metric->name());
  for (const auto& metric : val_metrics_) names.push_back("val_" + metric->name());
  return names;
}

}  // namespace gpusweep::fit
