// A gpusweep trial in C++: a small CNN on Fashion-MNIST, trained with the SDK's
// LibTorch Estimator (gpusweep/fit) and reporting through gpusweep/trial.hpp.
//
// Parameters come from params.json (gpusweep) or a JSON object given as the only
// argument (by hand); every one has a default:
//   fmnist-cnn-cpp '{"lr": 0.002, "epochs": 2}'
// Only the TRAINING set is used: a fixed permutation of its 60000 images (the same for
// every trial) gives val_size held-out validation images and train_size disjoint
// training images. Reports {"epoch", "train_loss", "train_acc", "val_loss", "val_acc"}
// after every epoch; at an ASHA rung the report waits for the verdict and a "stop"
// ends training there (a SIGTERM abandons the epoch at once). With "checkpoint": true it saves latest.pt/best.pt in
// the trial directory and resumes from latest.pt.
#include "idx.h"

#include <gpusweep/fit/estimator.hpp>
#include <gpusweep/fit/handlers.hpp>
#include <gpusweep/trial.hpp>

#include <ATen/CPUGeneratorImpl.h>
#include <torch/nn/functional/loss.h>
#include <torch/nn/functional/pooling.h>
#include <torch/nn/modules/batchnorm.h>
#include <torch/nn/modules/conv.h>
#include <torch/nn/modules/dropout.h>
#include <torch/nn/modules/linear.h>
#include <torch/optim/adam.h>

#include <cstdlib>
#include <iostream>
#include <string>

namespace {

constexpr std::int64_t kTrainCount = 60000;
constexpr std::uint64_t kSplitSeed = 20240601;  // the same train/val split for all trials
constexpr double kPixelMean = 0.2860, kPixelStd = 0.3530;

// conv3x3(c)-BN-ReLU-pool, conv3x3(2c)-BN-ReLU-pool, dropout, linear(10): as the
// Python example's SmallCnn.
struct SmallCnnImpl : torch::nn::Module {
  SmallCnnImpl(std::int64_t c, double dropout)
      : conv1(register_module("conv1", torch::nn::Conv2d(torch::nn::Conv2dOptions(1, c, 3).padding(1).bias(false)))),
        bn1(register_module("bn1", torch::nn::BatchNorm2d(c))),
        conv2(register_module("conv2", torch::nn::Conv2d(torch::nn::Conv2dOptions(c, 2 * c, 3).padding(1).bias(false)))),
        bn2(register_module("bn2", torch::nn::BatchNorm2d(2 * c))),
        drop(register_module("drop", torch::nn::Dropout(dropout))),
        fc(register_module("fc", torch::nn::Linear(2 * c * 7 * 7, 10))) {}

  torch::Tensor forward(const torch::Tensor& x) {
    namespace F = torch::nn::functional;
    auto h = F::max_pool2d(torch::relu(bn1(conv1(x))), F::MaxPool2dFuncOptions(2));  // 28 -> 14
    h = F::max_pool2d(torch::relu(bn2(conv2(h))), F::MaxPool2dFuncOptions(2));       // 14 -> 7
    return fc(drop(h.flatten(1)));
  }

  torch::nn::Conv2d conv1;
  torch::nn::BatchNorm2d bn1;
  torch::nn::Conv2d conv2;
  torch::nn::BatchNorm2d bn2;
  torch::nn::Dropout drop;
  torch::nn::Linear fc;
};
TORCH_MODULE(SmallCnn);

struct Split {
  gpusweep::fit::Dataset train, val;
};

// The training set's fixed split, normalised images [n, 1, 28, 28] and int64 labels [n].
Split LoadSplit(const std::string& dir, std::int64_t train_size, std::int64_t val_size) {
  const fmnist::IdxArray images = fmnist::ReadIdx(dir + "/train-images-idx3-ubyte.gz");
  const fmnist::IdxArray labels = fmnist::ReadIdx(dir + "/train-labels-idx1-ubyte.gz");
  if (images.shape != std::vector<std::int64_t>{kTrainCount, 28, 28} || labels.shape.at(0) != kTrainCount)
    throw std::runtime_error(dir + ": expected 60000 training images of 28x28 and their labels");
  const torch::Tensor x = torch::from_blob(const_cast<std::uint8_t*>(images.data.data()),
                                           {kTrainCount, 1, 28, 28}, torch::kUInt8);
  const torch::Tensor y = torch::from_blob(const_cast<std::uint8_t*>(labels.data.data()), {kTrainCount},
                                           torch::kUInt8);
  auto generator = at::make_generator<at::CPUGeneratorImpl>(kSplitSeed);
  const torch::Tensor order = torch::randperm(kTrainCount, generator, torch::kLong);
  const auto take = [&](std::int64_t start, std::int64_t n) {
    const torch::Tensor idx = order.narrow(0, start, n);
    return gpusweep::fit::Dataset{
        (x.index_select(0, idx).to(torch::kFloat) / 255.0 - kPixelMean) / kPixelStd,
        y.index_select(0, idx).to(torch::kLong)};
  };
  return {take(val_size, train_size), take(0, val_size)};
}

int Run(const gpusweep::Params& p) {
  const double lr = p.get("lr", 2e-3);
  const std::int64_t channels = p.get<std::int64_t>("channels", 16);
  const double dropout = p.get("dropout", 0.25);
  const std::int64_t train_size = p.get<std::int64_t>("train_size", 10000);
  const std::int64_t val_size = p.get<std::int64_t>("val_size", 2000);
  gpusweep::fit::FitOptions options;
  options.epochs = p.get("epochs", 4);
  options.batch_size = p.get<std::int64_t>("batch_size", 64);
  options.seed = p.get<std::uint64_t>("seed", 0);
  if (lr <= 0 || channels < 1 || dropout < 0 || dropout >= 1 || train_size < 1 || val_size < 1 ||
      train_size + val_size > kTrainCount)
    throw gpusweep::ParamError("need lr > 0, channels >= 1, 0 <= dropout < 1, train_size, val_size >= 1 "
                               "and train_size + val_size <= 60000");
  if (const char* threads = std::getenv("OMP_NUM_THREADS"); threads && std::atoi(threads) > 0)
    torch::set_num_threads(std::atoi(threads));  // gpusweep's share of the cores per CPU trial

  const Split data = LoadSplit(p.get("data_dir", "/usr/share/datasets/fashion-mnist"), train_size, val_size);
  torch::manual_seed(options.seed);
  SmallCnn net(channels, dropout);
  auto optimizer = std::make_shared<torch::optim::Adam>(net->parameters(), torch::optim::AdamOptions(lr));
  gpusweep::fit::MetricList train_metrics;
  train_metrics.push_back(std::make_unique<gpusweep::fit::MeanLoss>());
  train_metrics.push_back(std::make_unique<gpusweep::fit::Accuracy>());
  const auto loss = [](const torch::Tensor& out, const torch::Tensor& y) {
    return torch::nn::functional::cross_entropy(out, y);
  };
  gpusweep::fit::Estimator estimator(gpusweep::fit::Model::Of(net), loss, optimizer, std::move(train_metrics));
  estimator.AddHandler(std::make_shared<gpusweep::fit::GpusweepHandler>());
  estimator.AddHandler(std::make_shared<gpusweep::fit::LoggingHandler>(std::cout));
  if (p.get("checkpoint", false))
    estimator.AddHandler(std::make_shared<gpusweep::fit::CheckpointHandler>(gpusweep::trial_dir(), "val_acc"));
  if (const int patience = p.get("patience", 0); patience > 0)
    estimator.AddHandler(std::make_shared<gpusweep::fit::EarlyStoppingHandler>("val_loss",
                                                                               gpusweep::fit::Mode::kAuto, patience));
  estimator.Fit(data.train, data.val, options);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    if (argc > 2) throw gpusweep::ParamError("usage: fmnist-cnn-cpp [PARAMS_JSON]");
    return Run(argc == 2 ? gpusweep::Params::Parse(argv[1], "the command line") : gpusweep::params());
  } catch (const std::exception& e) {
    std::cerr << "fmnist-cnn-cpp: " << e.what() << std::endl;
    return 2;
  }
}
