// The built-in event handlers (one translation unit: LibTorch headers are costly).
#include <gpusweep/fit/handlers.hpp>
#include <gpusweep/trial.hpp>

#include <torch/serialize/archive.h>

#include <cmath>
#include <iomanip>
#include <ostream>
#include <sstream>
#include <stdexcept>

namespace gpusweep::fit {
namespace {

// Throws std::invalid_argument unless `name` can be published by `estimator`.
void RequireMetric(const Estimator& estimator, const std::string& name, const char* who) {
  const auto names = estimator.MetricNames();
  if (std::find(names.begin(), names.end(), name) != names.end()) return;
  std::string have;
  for (const auto& n : names) have += (have.empty() ? "" : ", ") + n;
  throw std::invalid_argument(std::string(who) + " monitors \"" + name +
                              "\", which this Estimator does not publish; it publishes: " + have);
}

// The value of `name` if it was published at the current epoch.
std::optional<double> FreshValue(const Estimator& estimator, const std::string& name) {
  const MetricValue* value = estimator.state().Find(name);
  if (value == nullptr || value->epoch != estimator.state().epoch) return std::nullopt;
  return value->value;
}

std::optional<double> OptionalNumber(const Json& json, const char* key) {
  if (!json.contains(key) || json[key].is_null()) return std::nullopt;
  return json[key].get<double>();
}

}  // namespace

// ---- MetricHandler ----

void MetricHandler::OnEpochBegin(Estimator& estimator) {
  for (auto& metric : estimator.train_metrics()) metric->Reset();
}

void MetricHandler::OnBatchEnd(Estimator& estimator) {
  const TrainState& s = estimator.state();
  for (auto& metric : estimator.train_metrics())
    metric->Update(s.batch_outputs, s.batch_targets, s.batch_loss);
}

void MetricHandler::OnEpochEnd(Estimator& estimator) {
  for (const auto& metric : estimator.train_metrics())
    estimator.Publish("train_" + metric->name(), metric->Value());
}

// ---- ValidationHandler ----

ValidationHandler::ValidationHandler(int every) : every_(every) {
  if (every < 1) throw std::invalid_argument("ValidationHandler: every must be >= 1");
}

void ValidationHandler::OnEpochEnd(Estimator& estimator) {
  const TrainState& s = estimator.state();
  if (s.epoch % every_ == 0 || s.epoch == s.epochs) estimator.Validate(estimator.val_data());
}

// ---- EarlyStoppingHandler ----

EarlyStoppingHandler::EarlyStoppingHandler(std::string monitor, Mode mode, int patience,
                                           double min_delta)
    : monitor_(std::move(monitor)), mode_(mode), patience_(patience), min_delta_(min_delta) {
  if (patience < 1 || !(min_delta >= 0))
    throw std::invalid_argument("EarlyStoppingHandler: patience must be >= 1 and min_delta >= 0");
  mode_ = ResolveMode(monitor_, mode);  // an undecidable name fails at construction
}

void EarlyStoppingHandler::OnTrainBegin(Estimator& estimator) {
  RequireMetric(estimator, monitor_, "EarlyStoppingHandler");
  stopped_epoch_ = 0;
}

void EarlyStoppingHandler::OnEpochEnd(Estimator& estimator) {
  const auto value = FreshValue(estimator, monitor_);
  if (!value) return;  // not evaluated this epoch (validation every N)
  if (!best_ || Improves(mode_, *value, *best_, min_delta_)) {
    best_ = *value;
    best_epoch_ = estimator.state().epoch;
    wait_ = 0;
    return;
  }
  if (++wait_ < patience_) return;
  stopped_epoch_ = estimator.state().epoch;
  std::ostringstream reason;
  reason << "early stopping: " << monitor_ << " (" << ModeName(mode_) << ") did not improve by more than "
         << min_delta_ << " for " << patience_ << " evaluations; best " << *best_ << " at epoch "
         << best_epoch_;
  estimator.RequestStop(reason.str());
}

std::string EarlyStoppingHandler::SaveState() const {
  return Json{{"best", best_ ? Json(*best_) : Json(nullptr)}, {"best_epoch", best_epoch_}, {"wait", wait_}}
      .dump();
}

void EarlyStoppingHandler::LoadState(const std::string& json) {
  const Json state = Json::parse(json);
  best_ = OptionalNumber(state, "best");
  best_epoch_ = state.at("best_epoch").get<int>();
  wait_ = state.at("wait").get<int>();
}

// ---- CheckpointHandler ----

CheckpointHandler::CheckpointHandler(std::filesystem::path directory, std::string monitor, Mode mode,
                                     Resume resume)
    : directory_(std::move(directory)), monitor_(std::move(monitor)), mode_(mode), resume_(resume) {
  if (!monitor_.empty()) mode_ = ResolveMode(monitor_, mode);
}

void CheckpointHandler::OnTrainBegin(Estimator& estimator) {
  if (!monitor_.empty()) RequireMetric(estimator, monitor_, "CheckpointHandler");
  std::filesystem::create_directories(directory_);
  resumed_epoch_ = 0;
  if (resume_ == Resume::kLatest && std::filesystem::exists(latest_path())) Load(estimator);
}

void CheckpointHandler::OnEpochEnd(Estimator& estimator) {
  if (!monitor_.empty()) {
    const auto value = FreshValue(estimator, monitor_);
    if (value && (!best_ || Improves(mode_, *value, *best_, 0.0))) {
      best_ = *value;
      Save(estimator, best_path());
    }
  }
  Save(estimator, latest_path());
}

std::string CheckpointHandler::SaveState() const {
  return Json{{"best", best_ ? Json(*best_) : Json(nullptr)}}.dump();
}

void CheckpointHandler::LoadState(const std::string& json) {
  best_ = OptionalNumber(Json::parse(json), "best");
}

// Layout: the module's parameters and buffers under their own names, the optimizer
// under "optimizer", and "gpusweep" = JSON text {epoch, metrics, handlers}.
void CheckpointHandler::Save(Estimator& estimator, const std::filesystem::path& path) const {
  const TrainState& s = estimator.state();
  Json meta = {{"epoch", s.epoch}, {"metrics", Json::array()}, {"handlers", Json::object()}};
  for (const auto& m : s.metrics) meta["metrics"].push_back({{"name", m.name}, {"value", m.value}, {"epoch", m.epoch}});
  for (const auto& handler : estimator.handlers())
    if (!handler->StateKey().empty()) meta["handlers"][handler->StateKey()] = handler->SaveState();

  torch::serialize::OutputArchive archive;
  estimator.model().module->save(archive);
  torch::serialize::OutputArchive optimizer;
  estimator.optimizer().save(optimizer);
  archive.write("optimizer", optimizer);
  archive.write("gpusweep", c10::IValue(meta.dump()));
  const std::filesystem::path temp = path.string() + ".tmp";
  archive.save_to(temp.string());
  std::filesystem::rename(temp, path);  // atomic: a kill leaves the old file or the new
}

void CheckpointHandler::Load(Estimator& estimator) {
  torch::serialize::InputArchive archive;
  archive.load_from(latest_path().string(), estimator.device());
  estimator.model().module->load(archive);
  torch::serialize::InputArchive optimizer;
  archive.read("optimizer", optimizer);
  estimator.optimizer().load(optimizer);
  c10::IValue text;
  archive.read("gpusweep", text);
  const Json meta = Json::parse(text.toStringRef());
  std::vector<MetricValue> metrics;
  for (const auto& m : meta.at("metrics"))
    metrics.push_back({m.at("name").get<std::string>(), m.at("value").get<double>(), m.at("epoch").get<int>()});
  const auto& states = meta.at("handlers");
  for (const auto& handler : estimator.handlers()) {
    const std::string key = handler->StateKey();
    if (!key.empty() && states.contains(key)) handler->LoadState(states[key].get<std::string>());
  }
  resumed_epoch_ = meta.at("epoch").get<int>();
  estimator.RestoreProgress(resumed_epoch_, std::move(metrics));
}

// ---- GpusweepHandler ----

void GpusweepHandler::OnTrainBegin(Estimator& estimator) {
  if (stop_signal_ == StopSignal::kHandle) handle_stop();
  const TrainState& s = estimator.state();
  // Each run is judged by what it reports: a resume with nothing left to train
  // reports its last epoch again.
  if (s.completed_epochs > 0 && s.completed_epochs >= s.epochs) Report(estimator, s.completed_epochs);
}

void GpusweepHandler::OnBatchBegin(Estimator& estimator) { CheckStop(estimator); }
void GpusweepHandler::OnBatchEnd(Estimator& estimator) { CheckStop(estimator); }

void GpusweepHandler::OnEpochEnd(Estimator& estimator) {
  Report(estimator, estimator.state().epoch);
  CheckStop(estimator);
}

void GpusweepHandler::CheckStop(Estimator& estimator) const {
  if (stopped_by_verdict()) {  // checked first: gpusweep sends SIGTERM right after a stop
    estimator.RequestStop("pruned by gpusweep's scheduler at epoch " + std::to_string(estimator.state().epoch));
  } else if (stop_requested()) {
    estimator.RequestStop("gpusweep asked the trial to stop (SIGTERM)");
  }
}

// One line {"epoch": e, <name>: value...} of the values published at epoch e. A
// non-finite value (a diverged loss) is reported as null and stops training: the
// objective then stays the last finite value, and the run ends early.
void GpusweepHandler::Report(Estimator& estimator, int epoch) const {
  Json line = {{"epoch", epoch}};
  std::string diverged;
  for (const auto& m : estimator.state().PublishedAt(epoch)) {
    line[m.name] = std::isfinite(m.value) ? Json(m.value) : Json(nullptr);
    if (!std::isfinite(m.value) && diverged.empty()) diverged = m.name;
  }
  // At a rung, report() waits for the scheduler's verdict: "stop" ends training here.
  if (report(line)) CheckStop(estimator);
  if (!diverged.empty())
    estimator.RequestStop(diverged + " is not finite (diverged)");
}

// ---- LoggingHandler ----

void LoggingHandler::OnTrainBegin(Estimator& estimator) {
  const TrainState& s = estimator.state();
  out_ << "fit: " << s.epochs << " epochs on " << estimator.device().str();
  if (s.completed_epochs > 0) out_ << ", resumed after epoch " << s.completed_epochs;
  out_ << std::endl;
}

void LoggingHandler::OnEpochBegin(Estimator&) { epoch_start_ = std::chrono::steady_clock::now(); }

void LoggingHandler::OnBatchEnd(Estimator& estimator) {
  const TrainState& s = estimator.state();
  if (every_batches_ > 0 && (s.batch + 1) % every_batches_ == 0)
    out_ << "  epoch " << s.epoch << " batch " << s.batch + 1 << " loss " << s.batch_loss.item<double>()
         << std::endl;
}

void LoggingHandler::OnEpochEnd(Estimator& estimator) {
  const TrainState& s = estimator.state();
  const std::chrono::duration<double> took = std::chrono::steady_clock::now() - epoch_start_;
  out_ << "epoch " << s.epoch << "/" << s.epochs;
  for (const auto& m : s.PublishedAt(s.epoch)) out_ << "  " << m.name << " " << std::setprecision(4) << m.value;
  out_ << "  (" << std::fixed << std::setprecision(1) << took.count() << " s)" << std::defaultfloat << std::endl;
}

void LoggingHandler::OnTrainEnd(Estimator& estimator) {
  const TrainState& s = estimator.state();
  out_ << "fit: " << s.completed_epochs << " epochs done";
  if (!s.stop_reason.empty()) out_ << "; stopped: " << s.stop_reason;
  out_ << std::endl;
}

}  // namespace gpusweep::fit
