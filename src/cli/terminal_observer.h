// terminal_observer.h — live progress of `gpusweep run` on the terminal.
//
// On a TTY: one status line (done / running / queued / failed, best so far, elapsed,
// ETA) redrawn in place and elided to the terminal width; trial events print above it.
// Otherwise: plain timestamped lines, and a progress line every kPlainProgressSeconds.
#pragma once

#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "cli/terminal.h"
#include "gpusweep/experiment.h"
#include "gpusweep/report.h"

namespace gpusweep {

class TerminalObserver : public RunObserver {
 public:
  TerminalObserver(std::FILE* out, TerminalInfo terminal, ReportContext context,
                   std::function<double()> wall_clock);

  void OnStart(const RunInfo& info) override;
  void OnWarning(const std::string& message) override;
  void OnTrialStarted(const TrialRecord& trial) override;
  void OnTrialFinished(const TrialRecord& trial) override;
  void OnTrialPruned(const TrialRecord& trial, const std::string& reason) override;
  void OnTick(const std::vector<TrialRecord>& trials) override;

  // Erases the live line (before the final summary).
  void Close();

 private:
  void PrintEvent(const std::string& text);
  void DrawStatus();
  std::string ResultText(const TrialRecord& trial) const;
  void WarnUnreportedConstraints(const TrialRecord& trial);
  std::string Timestamp() const;

  std::FILE* out_;
  TerminalInfo terminal_;
  ReportContext context_;
  std::function<double()> wall_clock_;
  RunInfo info_;
  double started_at_ = 0;
  double last_draw_ = 0;
  double last_plain_progress_ = 0;
  std::string status_line_;  // what is on screen now (TTY only)
  const std::vector<TrialRecord>* trials_ = nullptr;  // from the last OnTick
  std::vector<std::string> unreported_warned_;  // constraint metrics already warned about
};

}  // namespace gpusweep
