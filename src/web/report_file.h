// report_file.h — `gpusweep report`: the dashboard of one experiment as one HTML file.
#pragma once

#include <filesystem>
#include <string>

#include "gpusweep/status.h"
#include "web/live_experiment.h"

namespace gpusweep::web {

// Trial pages a report includes in full (results, decisions, log tail): every trial of
// a sweep up to this size, else the best ones up to it, so a 10,000-trial report stays
// a few MB. The others still appear in the table and every chart.
inline constexpr int kReportTrialPages = 200;

// The self-contained page (ReportPage) for the experiment at `dir`, read read-only.
// Errors as LiveExperiment::Open and its reads.
Expected<std::string> BuildReport(const std::filesystem::path& dir, DecisionFormatter decisions);

}  // namespace gpusweep::web
