// Mode resolution for early stopping and checkpoints, including the upstream Gluon
// bug: `if 'acc' or 'f1' in monitor.get()[0]` is always true, so a loss was maximised.
#include <gpusweep/fit/mode.hpp>

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

namespace gpusweep::fit {
namespace {

std::string AutoError(const std::string& metric) {
  try {
    ResolveMode(metric, Mode::kAuto);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  ADD_FAILURE() << metric << " resolved";
  return "";
}

TEST(ResolveModeTest, LossLikeNamesAreMinimisedNotMaximised) {
  // The upstream bug cases: every one of these was "max" in Gluon 1.5.
  EXPECT_EQ(ResolveMode("loss", Mode::kAuto), Mode::kMin);
  EXPECT_EQ(ResolveMode("val_loss", Mode::kAuto), Mode::kMin);
  EXPECT_EQ(ResolveMode("train_loss", Mode::kAuto), Mode::kMin);
  EXPECT_EQ(ResolveMode("validation cross-entropy loss", Mode::kAuto), Mode::kMin);
  EXPECT_EQ(ResolveMode("val/MSE", Mode::kAuto), Mode::kMin);
  EXPECT_EQ(ResolveMode("test_error", Mode::kAuto), Mode::kMin);
  EXPECT_EQ(ResolveMode("val_ppl", Mode::kAuto), Mode::kMin);
}

TEST(ResolveModeTest, AccuracyLikeNamesAreMaximised) {
  EXPECT_EQ(ResolveMode("val_acc", Mode::kAuto), Mode::kMax);
  EXPECT_EQ(ResolveMode("train_accuracy", Mode::kAuto), Mode::kMax);
  EXPECT_EQ(ResolveMode("f1", Mode::kAuto), Mode::kMax);
  EXPECT_EQ(ResolveMode("val-AUC", Mode::kAuto), Mode::kMax);
  EXPECT_EQ(ResolveMode("top1", Mode::kAuto), Mode::kMax);
}

TEST(ResolveModeTest, UndecidableNamesAskForTheMode) {
  std::string message = AutoError("lr");
  EXPECT_NE(message.find("\"lr\""), std::string::npos) << message;
  EXPECT_NE(message.find("give the mode: min or max"), std::string::npos) << message;
  EXPECT_NE(message.find("neither loss-like nor accuracy-like"), std::string::npos) << message;
  message = AutoError("acc_loss");
  EXPECT_NE(message.find("both as a loss and as an accuracy"), std::string::npos) << message;
  AutoError("val_accloss");  // no substring guessing: "accloss" is no known word
  AutoError("");
}

TEST(ResolveModeTest, AnExplicitModeIsKeptWhateverTheName) {
  EXPECT_EQ(ResolveMode("val_loss", Mode::kMax), Mode::kMax);
  EXPECT_EQ(ResolveMode("lr", Mode::kMin), Mode::kMin);
}

TEST(ModeTest, ImprovementNeedsMoreThanMinDelta) {
  EXPECT_TRUE(Improves(Mode::kMin, 0.89, 0.9, 0.0));
  EXPECT_FALSE(Improves(Mode::kMin, 0.9, 0.9, 0.0));
  EXPECT_FALSE(Improves(Mode::kMin, 0.895, 0.9, 0.01));
  EXPECT_TRUE(Improves(Mode::kMax, 0.92, 0.9, 0.01));
  EXPECT_FALSE(Improves(Mode::kMax, 0.905, 0.9, 0.01));
  EXPECT_THROW(Improves(Mode::kAuto, 1, 0, 0), std::logic_error);
}

TEST(ModeTest, ParsesAndNamesModes) {
  EXPECT_EQ(ParseMode("min"), Mode::kMin);
  EXPECT_EQ(ParseMode("auto"), Mode::kAuto);
  EXPECT_STREQ(ModeName(Mode::kMax), "max");
  EXPECT_THROW(ParseMode("maximum"), std::invalid_argument);
}

}  // namespace
}  // namespace gpusweep::fit
