#include "run/output_tail.h"

#include <gtest/gtest.h>

#include "run/test_util.h"

namespace gpusweep {
namespace {

TEST(LastOutputLineTest, TheExceptionAfterATraceback) {
  TempDir dir;
  const auto log = dir.Write("output.log",
                             "epoch 1\nTraceback (most recent call last):\n  File \"train.py\", "
                             "line 3, in <module>\nValueError: lr must be positive\n\n  \n");
  EXPECT_EQ(LastOutputLine(log), "ValueError: lr must be positive");
}

TEST(LastOutputLineTest, MissingOrBlankGivesNothing) {
  TempDir dir;
  EXPECT_EQ(LastOutputLine(dir.path() / "none.log"), "");
  EXPECT_EQ(LastOutputLine(dir.Write("blank.log", "\n \n\t\n")), "");
  EXPECT_EQ(LastOutputLine(dir.path()), "");  // a directory is no log
}

TEST(LastOutputLineTest, ReadsOnlyTheTailAndCutsLongLines) {
  TempDir dir;
  const std::string huge(100000, 'x');
  EXPECT_EQ(LastOutputLine(dir.Write("a.log", "first\n" + huge + "\nlast words")), "last words");
  EXPECT_EQ(LastOutputLine(dir.Write("b.log", huge), 4096, 10), "xxxxxxxxxx…");
}

TEST(LastOutputLineTest, ControlBytesAndCarriageReturnsAreTamed) {
  TempDir dir;
  EXPECT_EQ(LastOutputLine(dir.Write("a.log", "10%\r50%\r100%\n")), "100%");
  EXPECT_EQ(LastOutputLine(dir.Write("b.log", std::string("bad\x1b[31m\0red\xff", 13))),
            "bad?[31m?red?");
  EXPECT_EQ(LastOutputLine(dir.Write("c.log", "naïve ✓\n")), "naïve ✓");
}

}  // namespace
}  // namespace gpusweep
