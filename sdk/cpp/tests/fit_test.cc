// Tests of the LibTorch Estimator and its built-in handlers on a small synthetic
// problem (a linear classifier of 2-d points), real tensors, real files, real signals.
#include <gpusweep/fit/estimator.hpp>
#include <gpusweep/fit/handlers.hpp>
#include <gpusweep/trial.hpp>

#include <gtest/gtest.h>
#include <signal.h>
#include <stdlib.h>
#include <torch/nn/functional/loss.h>
#include <torch/nn/modules/linear.h>
#include <torch/optim/adam.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace gpusweep::fit {
namespace {

namespace fs = std::filesystem;

// n points in 2-d, class 1 when x0 + x1 > 0; with `flip`, every label inverted.
Dataset Points(std::int64_t n, std::uint64_t seed, bool flip = false) {
  auto generator = at::make_generator<at::CPUGeneratorImpl>(seed);
  torch::Tensor x = torch::randn({n, 2}, generator);
  torch::Tensor y = (x.sum(1) > 0).to(torch::kLong);
  if (flip) y = 1 - y;
  return {x, y};
}

torch::Tensor CrossEntropy(const torch::Tensor& outputs, const torch::Tensor& targets) {
  return torch::nn::functional::cross_entropy(outputs, targets);
}

// A fresh estimator: Linear(2, 2) seeded by `seed`, Adam, train metrics loss + acc.
std::unique_ptr<Estimator> MakeEstimator(std::uint64_t seed = 1, MetricList val = {}) {
  torch::manual_seed(seed);
  torch::nn::Linear net(2, 2);
  auto optimizer = std::make_shared<torch::optim::Adam>(net->parameters(), torch::optim::AdamOptions(0.05));
  MetricList train;
  train.push_back(std::make_unique<MeanLoss>());
  train.push_back(std::make_unique<Accuracy>());
  return std::make_unique<Estimator>(Model::Of(net), CrossEntropy, optimizer, std::move(train),
                                     std::move(val), torch::Device(torch::kCPU));
}

// Records "<tag>:<event>" for every event it sees into a shared log.
class Recorder : public EventHandler {
 public:
  Recorder(std::string tag, int priority, std::vector<std::string>* log)
      : tag_(std::move(tag)), priority_(priority), log_(log) {}
  int priority() const override { return priority_; }
  void OnTrainBegin(Estimator&) override { Note("train_begin"); }
  void OnEpochBegin(Estimator& e) override { Note("epoch_begin" + std::to_string(e.state().epoch)); }
  void OnBatchBegin(Estimator& e) override { Note("batch_begin" + std::to_string(e.state().batch)); }
  void OnBatchEnd(Estimator& e) override { Note("batch_end" + std::to_string(e.state().batch)); }
  void OnEpochEnd(Estimator& e) override { Note("epoch_end" + std::to_string(e.state().epoch)); }
  void OnTrainEnd(Estimator&) override { Note("train_end"); }

 private:
  void Note(const std::string& event) { log_->push_back(tag_ + ":" + event); }
  std::string tag_;
  int priority_;
  std::vector<std::string>* log_;
};

// Publishes nothing; counts the batches it saw since Reset() as its value.
class BatchCounter : public Metric {
 public:
  BatchCounter() : Metric("batches") {}
  void Reset() override { count_ = 0; }
  void Update(const torch::Tensor&, const torch::Tensor&, const torch::Tensor&) override { ++count_; }
  double Value() const override { return count_; }
  std::unique_ptr<Metric> Fresh() const override { return std::make_unique<BatchCounter>(); }

 private:
  int count_ = 0;
};

// A validation "loss" that returns a scripted sequence, one value per evaluation.
class ScriptedMetric : public Metric {
 public:
  ScriptedMetric(std::string name, std::vector<double> values)
      : Metric(std::move(name)), values_(std::move(values)) {}
  void Reset() override {}
  void Update(const torch::Tensor&, const torch::Tensor&, const torch::Tensor&) override {}
  double Value() const override { return values_.at(next_++ % values_.size()); }
  std::unique_ptr<Metric> Fresh() const override { return std::make_unique<ScriptedMetric>(name(), values_); }

 private:
  std::vector<double> values_;
  mutable std::size_t next_ = 0;
};

MetricList Scripted(std::string name, std::vector<double> values) {
  MetricList list;
  list.push_back(std::make_unique<ScriptedMetric>(std::move(name), std::move(values)));
  return list;
}

class FitTest : public ::testing::Test {
 protected:
  void SetUp() override {
    unsetenv(kEnvMetrics);
    std::string pattern = (fs::temp_directory_path() / "gpusweep-fit-XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
    torch::set_num_threads(1);
  }
  void TearDown() override {
    unsetenv(kEnvMetrics);
    gpusweep::detail::stop_signal.store(0);
    signal(SIGTERM, SIG_DFL);
    fs::remove_all(dir_);
  }
  fs::path dir_;
  std::vector<std::string> log_;
};

TEST_F(FitTest, HandlersRunByPriorityThenInTheOrderAdded) {
  auto estimator = MakeEstimator();
  estimator->AddHandler(std::make_shared<Recorder>("late", kPriorityLogging + 1, &log_));
  estimator->AddHandler(std::make_shared<Recorder>("user1", kPriorityUser, &log_));
  estimator->AddHandler(std::make_shared<Recorder>("first", kPriorityMetrics - 1, &log_));
  estimator->AddHandler(std::make_shared<Recorder>("user2", kPriorityUser, &log_));
  estimator->Fit(Points(8, 1), Points(4, 2), {.epochs = 2, .batch_size = 4});

  std::vector<std::string> expected{"first:train_begin", "user1:train_begin", "user2:train_begin",
                                    "late:train_begin"};
  for (int epoch = 1; epoch <= 2; ++epoch) {
    for (const char* tag : {"first", "user1", "user2", "late"})
      expected.push_back(std::string(tag) + ":epoch_begin" + std::to_string(epoch));
    for (int batch = 0; batch < 2; ++batch)
      for (const char* event : {"batch_begin", "batch_end"})
        for (const char* tag : {"first", "user1", "user2", "late"})
          expected.push_back(std::string(tag) + ":" + event + std::to_string(batch));
    for (const char* tag : {"first", "user1", "user2", "late"})
      expected.push_back(std::string(tag) + ":epoch_end" + std::to_string(epoch));
  }
  for (const char* tag : {"first", "user1", "user2", "late"}) expected.push_back(std::string(tag) + ":train_end");
  EXPECT_EQ(log_, expected);

  // The built-ins sit where their priorities say: metrics, validation, user handlers.
  const auto& handlers = estimator->handlers();
  ASSERT_EQ(handlers.size(), 6u);
  EXPECT_NE(dynamic_cast<MetricHandler*>(handlers[1].get()), nullptr);
  EXPECT_NE(dynamic_cast<ValidationHandler*>(handlers[2].get()), nullptr);
}

// A user handler that asks to stop at a given (epoch, batch) end.
class StopAt : public EventHandler {
 public:
  StopAt(int epoch, std::int64_t batch) : epoch_(epoch), batch_(batch) {}
  void OnBatchEnd(Estimator& e) override {
    if (e.state().epoch == epoch_ && e.state().batch == batch_) e.RequestStop("asked");
  }

 private:
  int epoch_;
  std::int64_t batch_;
};

TEST_F(FitTest, AStopAtBatchEndAbandonsTheEpochButTrainEndRuns) {
  auto estimator = MakeEstimator();
  estimator->AddHandler(std::make_shared<Recorder>("r", kPriorityUser, &log_));
  estimator->AddHandler(std::make_shared<StopAt>(2, 0));
  const FitResult result = estimator->Fit(Points(12, 1), {}, {.epochs = 3, .batch_size = 4});
  EXPECT_EQ(result.completed_epochs, 1);
  EXPECT_EQ(result.stop_reason, "asked");
  EXPECT_EQ(std::count(log_.begin(), log_.end(), "r:epoch_end2"), 0);
  EXPECT_EQ(std::count(log_.begin(), log_.end(), "r:batch_begin1"), 1);  // epoch 1 only
  EXPECT_EQ(log_.back(), "r:train_end");
}

TEST_F(FitTest, TrainAndValidationMetricsAreSeparateInstances) {
  auto estimator = MakeEstimator();
  estimator->train_metrics().push_back(std::make_unique<BatchCounter>());
  estimator->val_metrics().push_back(std::make_unique<BatchCounter>());
  ASSERT_EQ(estimator->val_metrics().size(), 3u);  // Fresh() copies of loss and acc, + counter
  for (std::size_t i = 0; i < 2; ++i)
    EXPECT_NE(estimator->train_metrics()[i].get(), estimator->val_metrics()[i].get());
  // Training labels are learnable, validation labels are all inverted: a shared
  // metric would make val_acc look like train_acc.
  const FitResult result =
      estimator->Fit(Points(200, 1), Points(100, 2, /*flip=*/true),
                     {.epochs = 3, .batch_size = 20, .eval_batch_size = 50});
  const TrainState& s = estimator->state();
  EXPECT_EQ(s.Find("train_batches")->value, 10);  // 200 / 20 per epoch, reset each epoch
  EXPECT_EQ(s.Find("val_batches")->value, 2);     // 100 / 50, nothing from training
  EXPECT_GT(s.Find("train_acc")->value, 0.8);
  EXPECT_LT(s.Find("val_acc")->value, 0.2);
  EXPECT_GT(s.Find("val_loss")->value, s.Find("train_loss")->value);
  EXPECT_EQ(result.metrics.size(), 6u);
}

TEST_F(FitTest, EarlyStoppingOnAValidationLossInMinMode) {
  auto estimator = MakeEstimator(1, Scripted("loss", {1.0, 0.9, 0.95, 0.91, 0.5}));
  auto stopping = std::make_shared<EarlyStoppingHandler>("val_loss", Mode::kAuto, 2);
  estimator->AddHandler(stopping);
  const FitResult result = estimator->Fit(Points(8, 1), Points(4, 2), {.epochs = 10, .batch_size = 4});
  EXPECT_EQ(stopping->mode(), Mode::kMin);
  EXPECT_EQ(result.completed_epochs, 4);  // no improvement at epochs 3 and 4
  EXPECT_EQ(stopping->stopped_epoch(), 4);
  EXPECT_EQ(stopping->best(), 0.9);
  EXPECT_EQ(stopping->best_epoch(), 2);
  EXPECT_NE(result.stop_reason.find("val_loss (min) did not improve"), std::string::npos) << result.stop_reason;
}

TEST_F(FitTest, EarlyStoppingInMaxModeHonoursMinDelta) {
  auto estimator = MakeEstimator(1, Scripted("acc", {0.5, 0.6, 0.605, 0.609, 0.7}));
  auto stopping = std::make_shared<EarlyStoppingHandler>("val_acc", Mode::kMax, 2, 0.01);
  estimator->AddHandler(stopping);
  const FitResult result = estimator->Fit(Points(8, 1), Points(4, 2), {.epochs = 10, .batch_size = 4});
  EXPECT_EQ(result.completed_epochs, 4);  // +0.005 and +0.009 are within min_delta
  EXPECT_EQ(stopping->best(), 0.6);
}

TEST_F(FitTest, EarlyStoppingCountsEvaluationsNotEpochsWhenValidatingEveryN) {
  auto estimator = MakeEstimator(1, Scripted("loss", {1.0, 2.0, 3.0}));
  auto stopping = std::make_shared<EarlyStoppingHandler>("val_loss", Mode::kMin, 2);
  estimator->AddHandler(stopping);
  estimator->AddHandler(std::make_shared<ValidationHandler>(2));
  const FitResult result = estimator->Fit(Points(8, 1), Points(4, 2), {.epochs = 10, .batch_size = 4});
  EXPECT_EQ(result.completed_epochs, 6);  // evaluations at epochs 2, 4, 6
}

TEST_F(FitTest, EarlyStoppingCanWatchATrainingMetricAndRejectsUnknownNames) {
  auto estimator = MakeEstimator();
  auto stopping = std::make_shared<EarlyStoppingHandler>("train_acc", Mode::kAuto, 1, 0.5);
  estimator->AddHandler(stopping);
  const FitResult result = estimator->Fit(Points(40, 1), {}, {.epochs = 5, .batch_size = 10});
  EXPECT_EQ(stopping->mode(), Mode::kMax);
  EXPECT_EQ(result.completed_epochs, 2);  // no accuracy gain of 0.5 after epoch 1

  auto other = MakeEstimator();
  other->AddHandler(std::make_shared<EarlyStoppingHandler>("valid_acc", Mode::kMax));
  try {
    other->Fit(Points(8, 1), Points(4, 2), {.epochs = 1, .batch_size = 4});
    FAIL() << "unknown monitor accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("\"valid_acc\""), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("train_loss, train_acc, val_loss, val_acc"), std::string::npos)
        << e.what();
  }
  EXPECT_THROW(EarlyStoppingHandler("learning_rate"), std::invalid_argument);  // auto undecidable
}

// The parameters of `estimator`'s model, flattened into one tensor.
torch::Tensor Weights(Estimator& estimator) {
  std::vector<torch::Tensor> flat;
  for (const auto& p : estimator.model().module->parameters()) flat.push_back(p.detach().flatten());
  return torch::cat(flat);
}

TEST_F(FitTest, ResumingFromTheLatestCheckpointEqualsAnUninterruptedRun) {
  const Dataset train = Points(64, 1), val = Points(32, 2);
  const FitOptions four{.epochs = 4, .batch_size = 16, .seed = 9};
  auto straight = MakeEstimator(3);
  straight->Fit(train, val, four);

  const fs::path ckpt = dir_ / "ckpt";
  auto first = MakeEstimator(3);
  auto first_stop = std::make_shared<EarlyStoppingHandler>("val_loss", Mode::kMin, 5);
  first->AddHandler(first_stop);
  first->AddHandler(std::make_shared<CheckpointHandler>(ckpt, "val_acc"));
  FitOptions two = four;
  two.epochs = 2;
  first->Fit(train, val, two);
  ASSERT_TRUE(fs::exists(ckpt / "latest.pt"));
  ASSERT_TRUE(fs::exists(ckpt / "best.pt"));
  EXPECT_FALSE(fs::exists(ckpt / "latest.pt.tmp"));

  auto second = MakeEstimator(77);  // other initial weights: all must come from the file
  auto second_stop = std::make_shared<EarlyStoppingHandler>("val_loss", Mode::kMin, 5);
  auto checkpoint = std::make_shared<CheckpointHandler>(ckpt, "val_acc");
  second->AddHandler(std::make_shared<Recorder>("r", kPriorityUser, &log_));
  second->AddHandler(second_stop);
  second->AddHandler(checkpoint);
  const FitResult result = second->Fit(train, val, four);
  EXPECT_EQ(checkpoint->resumed_epoch(), 2);
  EXPECT_EQ(result.completed_epochs, 4);
  EXPECT_EQ(std::count(log_.begin(), log_.end(), "r:epoch_begin1"), 0);
  EXPECT_EQ(std::count(log_.begin(), log_.end(), "r:epoch_begin3"), 1);
  EXPECT_TRUE(torch::allclose(Weights(*second), Weights(*straight)));  // model, Adam state, order
  EXPECT_EQ(second->state().Find("val_loss")->value, straight->state().Find("val_loss")->value);
  EXPECT_GT(second_stop->best_epoch(), 0);
  EXPECT_GE(second_stop->best_epoch(), first_stop->best_epoch());  // restored, not restarted
}

TEST_F(FitTest, ResumeKNeverStartsOverAndResumeWithNothingLeftReportsAgain) {
  const fs::path ckpt = dir_ / "ckpt";
  const fs::path metrics = dir_ / "metrics.jsonl";
  auto first = MakeEstimator();
  first->AddHandler(std::make_shared<CheckpointHandler>(ckpt));
  first->Fit(Points(16, 1), Points(8, 2), {.epochs = 2, .batch_size = 8});

  setenv(kEnvMetrics, metrics.c_str(), 1);
  auto again = MakeEstimator();
  again->AddHandler(std::make_shared<CheckpointHandler>(ckpt));
  again->AddHandler(std::make_shared<GpusweepHandler>());
  EXPECT_EQ(again->Fit(Points(16, 1), Points(8, 2), {.epochs = 2, .batch_size = 8}).completed_epochs, 2);
  std::stringstream text;
  text << std::ifstream(metrics).rdbuf();
  EXPECT_EQ(text.str().rfind("{\"epoch\":2,\"train_loss\":", 0), 0u) << text.str();

  auto fresh = MakeEstimator();
  auto never = std::make_shared<CheckpointHandler>(ckpt, "", Mode::kAuto, Resume::kNever);
  fresh->AddHandler(never);
  fresh->AddHandler(std::make_shared<Recorder>("r", kPriorityUser, &log_));
  fresh->Fit(Points(16, 1), {}, {.epochs = 1, .batch_size = 8});
  EXPECT_EQ(never->resumed_epoch(), 0);
  EXPECT_EQ(std::count(log_.begin(), log_.end(), "r:epoch_begin1"), 1);
}

TEST_F(FitTest, GpusweepHandlerReportsEachEpochWithTheEpochKey) {
  const fs::path metrics = dir_ / "metrics.jsonl";
  setenv(kEnvMetrics, metrics.c_str(), 1);
  auto estimator = MakeEstimator();
  estimator->AddHandler(std::make_shared<GpusweepHandler>());
  estimator->AddHandler(std::make_shared<ValidationHandler>(2));
  estimator->Fit(Points(16, 1), Points(8, 2), {.epochs = 3, .batch_size = 8});
  std::ifstream in(metrics);
  std::vector<Json> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(Json::parse(line));
  ASSERT_EQ(lines.size(), 3u);
  std::vector<std::string> keys;
  for (const auto& [key, value] : lines[1].items()) keys.push_back(key);
  EXPECT_EQ(keys, (std::vector<std::string>{"epoch", "train_loss", "train_acc", "val_loss", "val_acc"}));
  EXPECT_EQ(lines[0]["epoch"], 1);
  EXPECT_FALSE(lines[0].contains("val_acc"));  // validated at epochs 2 and 3 (the last)
  EXPECT_TRUE(lines[2].contains("val_acc"));
}

// Sends SIGTERM to this process at a given epoch's second batch, as gpusweep does.
class SigtermAt : public EventHandler {
 public:
  explicit SigtermAt(int epoch) : epoch_(epoch) {}
  void OnBatchBegin(Estimator& e) override {
    if (e.state().epoch == epoch_ && e.state().batch == 1) kill(getpid(), SIGTERM);
  }

 private:
  int epoch_;
};

TEST_F(FitTest, SigtermStopsCleanlyThroughShouldStop) {
  const fs::path metrics = dir_ / "metrics.jsonl";
  setenv(kEnvMetrics, metrics.c_str(), 1);
  auto estimator = MakeEstimator();
  estimator->AddHandler(std::make_shared<SigtermAt>(2));
  estimator->AddHandler(std::make_shared<GpusweepHandler>());
  estimator->AddHandler(std::make_shared<CheckpointHandler>(dir_ / "ckpt"));
  const FitResult result = estimator->Fit(Points(32, 1), {}, {.epochs = 5, .batch_size = 8});
  EXPECT_TRUE(should_stop());
  EXPECT_EQ(result.completed_epochs, 1);  // epoch 2 abandoned at its second batch
  EXPECT_NE(result.stop_reason.find("SIGTERM"), std::string::npos);
  std::ifstream in(metrics);
  std::string line;
  int count = 0;
  while (std::getline(in, line)) ++count;
  EXPECT_EQ(count, 1);
  EXPECT_TRUE(fs::exists(dir_ / "ckpt" / "latest.pt"));  // epoch 1's state is kept
}

TEST_F(FitTest, ADivergedLossIsReportedAsNullAndStopsTraining) {
  const fs::path metrics = dir_ / "metrics.jsonl";
  setenv(kEnvMetrics, metrics.c_str(), 1);
  auto estimator = MakeEstimator(1, Scripted("loss", {0.5, std::nan("")}));
  estimator->AddHandler(std::make_shared<GpusweepHandler>());
  const FitResult result = estimator->Fit(Points(8, 1), Points(4, 2), {.epochs = 5, .batch_size = 8});
  EXPECT_EQ(result.completed_epochs, 2);
  EXPECT_NE(result.stop_reason.find("val_loss is not finite"), std::string::npos) << result.stop_reason;
  std::ifstream in(metrics);
  std::string first, second;
  std::getline(in, first);
  std::getline(in, second);
  EXPECT_TRUE(Json::parse(second)["val_loss"].is_null()) << second;
}

}  // namespace
}  // namespace gpusweep::fit
