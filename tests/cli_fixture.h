// cli_fixture.h — the fixture of the end-to-end tests: a scratch directory holding a
// sweep.yaml, the experiment it runs (runs/e2e) and a read-only look at its journal.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "gpusweep/journal.h"
#include "run/test_util.h"

namespace gpusweep {

class CliTest : public ::testing::Test {
 protected:
  std::filesystem::path Write(const std::string& yaml) {
    auto path = dir_.path() / "sweep.yaml";
    WriteFile(path, yaml);
    return path;
  }
  std::filesystem::path exp() const { return dir_.path() / "runs" / "e2e"; }
  std::vector<TrialRecord> Trials() {
    auto journal = OpenJournal(exp() / "gpusweep.db", JournalAccess::kReadOnly);
    if (!journal) return {};
    return (*journal)->LoadTrials().value_or(std::vector<TrialRecord>{});
  }
  int CountState(TrialState state) {
    int n = 0;
    for (const TrialRecord& t : Trials()) n += t.state == state;
    return n;
  }
  TempDir dir_;
};

}  // namespace gpusweep
