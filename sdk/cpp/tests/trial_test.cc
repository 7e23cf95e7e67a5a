// Tests of gpusweep/trial.hpp against real files, real environment variables and a
// real signal. Each test sets the GPUSWEEP_* variables it needs and clears them after.
#include <gpusweep/trial.hpp>

#include <gtest/gtest.h>
#include <signal.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

namespace gpusweep {
namespace {

namespace fs = std::filesystem;

constexpr const char* kAllVars[] = {kEnvTrialId, kEnvTrialDir, kEnvParams,   kEnvMetrics,
                                    kEnvBudget,  kEnvRung,     kEnvAttempt,  kEnvMetric,
                                    kEnvVerdicts, kEnvResource, kEnvStopPoints,
                                    kEnvFold,    kEnvFolds,    kEnvCheckpointDir};

// A fresh directory under $TMPDIR, removed with its files; no GPUSWEEP_* variable set.
class TrialApiTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* name : kAllVars) unsetenv(name);
    std::string pattern = (fs::temp_directory_path() / "gpusweep-sdk-XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
  }
  void TearDown() override {
    for (const char* name : kAllVars) unsetenv(name);
    detail::verdicts = {};
    detail::stop_signal.store(0);
    fs::remove_all(dir_);
  }
  fs::path Write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ / name) << text;
    return dir_ / name;
  }
  static std::string Read(const fs::path& path) {
    std::stringstream text;
    text << std::ifstream(path).rdbuf();
    return text.str();
  }
  void UseParams(const std::string& json) {
    setenv(kEnvParams, Write("params.json", json).c_str(), 1);
  }
  fs::path dir_;
};

// Runs `body` and returns the message of the ParamError it must throw.
template <typename Body>
std::string ParamErrorOf(Body body) {
  try {
    body();
  } catch (const ParamError& e) {
    return e.what();
  }
  ADD_FAILURE() << "no ParamError thrown";
  return "";
}

TEST_F(TrialApiTest, ReadsTypedParamsFromTheFileGpusweepNames) {
  UseParams(R"({"lr": 0.003, "channels": 16, "act": "relu", "bn": true, "epochs": 4.0,
                "net": {"depth": [1, 2]}})");
  const Params p = params();
  EXPECT_DOUBLE_EQ(p.get<double>("lr"), 0.003);
  EXPECT_EQ(p.get<int>("channels"), 16);
  EXPECT_DOUBLE_EQ(p.get<double>("channels"), 16.0);  // an integer is a number
  EXPECT_EQ(p.get<std::string>("act"), "relu");
  EXPECT_TRUE(p.get<bool>("bn"));
  EXPECT_EQ(p.get<long>("epochs"), 4);  // 4.0 is integral
  EXPECT_EQ(p.get<Json>("net")["depth"][1], 2);
  EXPECT_EQ(p.get<Json>("net")["depth"].get<std::vector<int>>(), (std::vector<int>{1, 2}));
  EXPECT_NE(ParamErrorOf([&] { p.get<std::vector<int>>("net"); }).find("cannot be read"),
            std::string::npos);  // a mapping is no list
}

TEST_F(TrialApiTest, AMissingParamIsNamedWithThoseThatExist) {
  UseParams(R"({"lr": 0.1, "channels": 8})");
  const std::string message = ParamErrorOf([] { params().get<double>("dropout"); });
  EXPECT_NE(message.find("\"dropout\" is not a parameter"), std::string::npos) << message;
  EXPECT_NE(message.find("have: lr, channels"), std::string::npos) << message;
  EXPECT_NE(message.find("params.json"), std::string::npos) << message;
  EXPECT_DOUBLE_EQ(params().get("dropout", 0.25), 0.25);
  EXPECT_EQ(params().get("act", "relu"), "relu");
}

TEST_F(TrialApiTest, AMistypedParamIsAnErrorEvenWithADefault) {
  UseParams(R"({"lr": "fast", "channels": 0.5, "bn": 1, "epochs": true})");
  const Params p = params();
  std::string message = ParamErrorOf([&] { p.get<double>("lr"); });
  EXPECT_NE(message.find("parameter \"lr\""), std::string::npos) << message;
  EXPECT_NE(message.find("is a string (\"fast\"), expected a number"), std::string::npos) << message;
  message = ParamErrorOf([&] { p.get<int>("channels", 8); });
  EXPECT_NE(message.find("is a number (0.5), expected an integer"), std::string::npos) << message;
  message = ParamErrorOf([&] { p.get<bool>("bn"); });
  EXPECT_NE(message.find("expected a bool"), std::string::npos) << message;
  message = ParamErrorOf([&] { p.get<int>("epochs"); });
  EXPECT_NE(message.find("is a bool (true), expected an integer"), std::string::npos) << message;
}

TEST_F(TrialApiTest, BadParamsFilesAreErrorsNamingTheFile) {
  UseParams("[1, 2]");
  std::string message = ParamErrorOf([] { params(); });
  EXPECT_NE(message.find("params.json holds a list, expected a JSON object"), std::string::npos)
      << message;
  UseParams("{\"lr\": ");
  message = ParamErrorOf([] { params(); });
  EXPECT_NE(message.find("is not valid JSON"), std::string::npos) << message;
  setenv(kEnvParams, (dir_ / "absent.json").c_str(), 1);
  message = ParamErrorOf([] { params(); });
  EXPECT_NE(message.find("cannot read params file"), std::string::npos) << message;
}

TEST_F(TrialApiTest, StandaloneHasEmptyParamsAndPrintsReports) {
  EXPECT_FALSE(in_gpusweep());
  EXPECT_TRUE(params().empty());
  EXPECT_EQ(trial_id(), std::nullopt);
  EXPECT_EQ(budget(), std::nullopt);
  EXPECT_EQ(rung(), std::nullopt);
  EXPECT_EQ(trial_dir(), fs::current_path());
  std::ostringstream captured;
  std::streambuf* saved = std::cout.rdbuf(captured.rdbuf());
  report(2, {{"val_acc", 0.5}});
  std::cout.rdbuf(saved);
  EXPECT_EQ(captured.str(), "{\"step\":2,\"val_acc\":0.5}\n");
  EXPECT_EQ(attempt(), 1);
}

TEST_F(TrialApiTest, ParamsCanBeGivenByHandOutsideGpusweep) {
  const Params p = Params::Parse(R"({"lr": 0.5})", "--params");
  EXPECT_DOUBLE_EQ(p.get<double>("lr"), 0.5);
  const std::string message = ParamErrorOf([] { Params::Parse("3", "--params"); });
  EXPECT_NE(message.find("--params holds an integer"), std::string::npos) << message;
}

TEST_F(TrialApiTest, ReportAppendsOneLinePerCallInGivenOrder) {
  const fs::path metrics = dir_ / "metrics.jsonl";
  setenv(kEnvMetrics, metrics.c_str(), 1);
  EXPECT_TRUE(in_gpusweep());
  report({{"epoch", 1}, {"val_loss", 0.5}, {"val_acc", 0.75}});
  report(7, {{"loss", 0.25}, {"step", 99}, {"tags", {"a", "b"}}, {"note", nullptr}});
  EXPECT_EQ(Read(metrics),
            "{\"epoch\":1,\"val_loss\":0.5,\"val_acc\":0.75}\n"
            "{\"step\":7,\"loss\":0.25,\"tags\":[\"a\",\"b\"],\"note\":null}\n");
}

TEST_F(TrialApiTest, NonFiniteValuesAreRefusedAndNothingIsWritten) {
  const fs::path metrics = dir_ / "metrics.jsonl";
  setenv(kEnvMetrics, metrics.c_str(), 1);
  const double nan = std::nan("");
  try {
    report(1, {{"loss", 0.5}, {"hist", {1.0, nan}}});
    FAIL() << "NaN accepted";
  } catch (const MetricError& e) {
    EXPECT_NE(std::string(e.what()).find("metric hist[1] is NaN"), std::string::npos) << e.what();
  }
  EXPECT_THROW(report({{"loss", {{"inner", 1.0 / 0.0}}}}), MetricError);
  EXPECT_THROW(report(Json::object()), MetricError);
  EXPECT_THROW(report(Json::array({1})), MetricError);
  EXPECT_FALSE(fs::exists(metrics));
}

TEST_F(TrialApiTest, ReportsAnUnwritableMetricsFileAsASystemError) {
  setenv(kEnvMetrics, (dir_ / "missing-dir" / "metrics.jsonl").c_str(), 1);
  EXPECT_THROW(report({{"loss", 1}}), std::system_error);
}

TEST_F(TrialApiTest, ReadsTheCrossValidationFold) {
  EXPECT_EQ(fold(), std::nullopt);  // no cv
  EXPECT_EQ(folds(), std::nullopt);
  setenv(kEnvFold, "3", 1);
  setenv(kEnvFolds, "5", 1);
  EXPECT_EQ(fold(), 3);
  EXPECT_EQ(folds(), 5);
  setenv(kEnvFold, "three", 1);
  EXPECT_NE(ParamErrorOf([] { fold(); }).find("GPUSWEEP_FOLD=\"three\" is not an integer"),
            std::string::npos);
}

TEST_F(TrialApiTest, ReadsTrialIdDirBudgetAndRung) {
  setenv(kEnvTrialId, "7", 1);
  setenv(kEnvTrialDir, dir_.c_str(), 1);
  setenv(kEnvBudget, "9", 1);
  setenv(kEnvRung, "2", 1);
  setenv(kEnvAttempt, "3", 1);
  EXPECT_EQ(attempt(), 3);
  EXPECT_EQ(trial_id(), 7);
  EXPECT_EQ(trial_dir(), dir_);
  EXPECT_EQ(budget(), 9.0);
  EXPECT_EQ(rung(), 2);
  setenv(kEnvBudget, "2.5", 1);
  EXPECT_EQ(budget(), 2.5);
  setenv(kEnvBudget, "lots", 1);
  EXPECT_NE(ParamErrorOf([] { budget(); }).find("GPUSWEEP_BUDGET=\"lots\" is not a number"),
            std::string::npos);
  setenv(kEnvRung, "1x", 1);
  EXPECT_NE(ParamErrorOf([] { rung(); }).find("GPUSWEEP_RUNG=\"1x\" is not an integer"),
            std::string::npos);
}

TEST_F(TrialApiTest, SigtermSetsShouldStopInsteadOfEndingTheProcess) {
  EXPECT_FALSE(should_stop());
  handle_stop();
  ASSERT_EQ(kill(getpid(), SIGTERM), 0);  // delivered before kill returns (own process)
  EXPECT_TRUE(should_stop());
  signal(SIGTERM, SIG_DFL);
}

// The verdict protocol as gpusweep runs it: asha over `epoch`, metric val_acc, rungs at
// epochs 1 and 3; verdicts.jsonl written by another thread, as gpusweep's poll would.
class VerdictTest : public TrialApiTest {
 protected:
  void SetUp() override {
    TrialApiTest::SetUp();
    metrics_ = dir_ / "metrics.jsonl";
    verdicts_ = dir_ / "verdicts.jsonl";
    std::ofstream(verdicts_).close();
    setenv(kEnvMetrics, metrics_.c_str(), 1);
    setenv(kEnvVerdicts, verdicts_.c_str(), 1);
    setenv(kEnvResource, "epoch", 1);
    setenv(kEnvMetric, "val_acc", 1);
    setenv(kEnvStopPoints, "1,3", 1);
  }
  void Answer(const std::string& line) { std::ofstream(verdicts_, std::ios::app) << line << "\n"; }
  // Answers `line` after `delay`, from another thread (joined by the caller).
  std::thread AnswerLater(std::string line, int delay_ms = 100) {
    return std::thread([this, line, delay_ms] {
      std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));
      Answer(line);
    });
  }
  fs::path metrics_, verdicts_;
};

TEST_F(VerdictTest, WaitsAtRungsForTheVerdictAndStopsOnStop) {
  std::thread answer = AnswerLater(R"({"resource":1,"verdict":"continue","rung":0})");
  EXPECT_FALSE(report({{"epoch", 1}, {"val_acc", 0.5}}));  // waits for the answer
  answer.join();
  // Epoch 2 is no stop point: no wait although no answer will come.
  EXPECT_FALSE(report({{"epoch", 2}, {"val_acc", 0.6}}, Wait::kAtStopPoints, std::chrono::milliseconds(60000)));
  answer = AnswerLater(R"({"resource":3,"verdict":"stop","rung":1,"reason":"rank 3 of 3"})");
  EXPECT_TRUE(report({{"epoch", 3}, {"val_acc", 0.55}}));
  answer.join();
  EXPECT_TRUE(should_stop());
  EXPECT_FALSE(stop_requested());  // a verdict, not a signal
  EXPECT_TRUE(stopped_by_verdict());
}

TEST_F(VerdictTest, ALineTheSchedulerDoesNotJudgeNeverWaits) {
  // No val_acc: gpusweep does not judge this line, so no answer would ever come.
  EXPECT_FALSE(report({{"epoch", 1}, {"train_loss", 0.5}}, Wait::kAlways, std::chrono::milliseconds(60000)));
  EXPECT_FALSE(report({{"epoch", true}, {"val_acc", 0.5}}, Wait::kAlways, std::chrono::milliseconds(60000)));
  unsetenv(kEnvVerdicts);  // a scheduler without verdicts (or none)
  EXPECT_FALSE(report({{"epoch", 1}, {"val_acc", 0.5}}, Wait::kAlways, std::chrono::milliseconds(60000)));
}

TEST_F(VerdictTest, NoAnswerInTimeMeansContinueAndALaterStopIsStillSeen) {
  EXPECT_FALSE(report({{"epoch", 1}, {"val_acc", 0.5}}, Wait::kAtStopPoints, std::chrono::milliseconds(50)));
  Answer(R"({"resource":1,"verdict":"continue"})");
  std::ofstream(verdicts_, std::ios::app) << R"({"resource":2,"verdict":"stop")";  // no newline yet
  EXPECT_FALSE(report({{"epoch", 2}, {"val_acc", 0.5}}, Wait::kAlways, std::chrono::milliseconds(50)));
  std::ofstream(verdicts_, std::ios::app) << "}\n";
  EXPECT_TRUE(report({{"epoch", 3}, {"val_acc", 0.5}}));
}

TEST_F(VerdictTest, ASigtermEndsTheWait) {
  handle_stop();
  std::thread signal_later([] {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    kill(getpid(), SIGTERM);
  });
  EXPECT_TRUE(report({{"epoch", 1}, {"val_acc", 0.5}}));  // would wait 60 s without it
  signal_later.join();
  EXPECT_TRUE(stop_requested());
  signal(SIGTERM, SIG_DFL);
}

TEST_F(TrialApiTest, ACheckpointIsSavedWholeWithItsMarkerAndRestored) {
  setenv(kEnvTrialId, "6", 1);
  setenv(kEnvTrialDir, dir_.c_str(), 1);
  setenv(kEnvBudget, "4", 1);
  EXPECT_EQ(checkpoint_dir(), dir_ / "checkpoint");
  EXPECT_FALSE(restore_checkpoint());
  save_checkpoint([](const fs::path& d) { std::ofstream(d / "model.bin") << "old"; }, {{"epoch", 2}});
  const fs::path saved = save_checkpoint(
      [](const fs::path& d) { std::ofstream(d / "weights.bin") << "w"; }, {{"epoch", 4}});
  const auto restored = restore_checkpoint();
  ASSERT_TRUE(restored);
  EXPECT_EQ(*restored, saved);
  EXPECT_EQ(checkpoint_state(*restored), (Json{{"epoch", 4}}));
  EXPECT_EQ(Read(saved / "weights.bin"), "w");
  EXPECT_FALSE(fs::exists(saved / "model.bin")) << "the old checkpoint is replaced whole";
  EXPECT_EQ(Json::parse(Read(saved / kCheckpointMarker)), (Json{{"trial", 6}, {"resource", 4.0}}));
  int beside = 0;
  for (const auto& entry : fs::directory_iterator(dir_)) beside += entry.path().filename() != "checkpoint";
  EXPECT_EQ(beside, 0);
}

TEST_F(TrialApiTest, ACheckpointWithoutItsMarkerIsNotRestoredAndAFailedSaveKeepsTheOld) {
  setenv(kEnvCheckpointDir, (dir_ / "ckpt").c_str(), 1);
  fs::create_directories(dir_ / "ckpt");
  std::ofstream(dir_ / "ckpt" / "half.bin") << "x";
  EXPECT_FALSE(restore_checkpoint());
  fs::remove_all(dir_ / "ckpt");
  save_checkpoint({}, {{"epoch", 1}}, 1.0);
  EXPECT_THROW(save_checkpoint([](const fs::path&) { throw std::system_error(
                                   std::make_error_code(std::errc::no_space_on_device)); },
                               {{"epoch", 2}}),
               std::system_error);
  EXPECT_EQ(checkpoint_state(*restore_checkpoint()), (Json{{"epoch", 1}}));
}

}  // namespace
}  // namespace gpusweep
