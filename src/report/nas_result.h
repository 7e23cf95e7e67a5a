// nas_result.h — how the report names a NAS experiment's evaluations and its result.
#pragma once

#include <string>

#include <optional>
#include <vector>

#include "gpusweep/json.h"
#include "gpusweep/report.h"

namespace gpusweep::report {

// Where an evaluation sits in the plan, short, for a table cell: "block 1 round 3",
// "block 1 winner", "block 2 confirm", "retrain"; "" for params without nas_stage.
std::string NasStageLabel(const Json& params);

// Status's Best line for a NAS experiment: "val_acc=0.8957 (max) trial #96, retrain";
// "- (no block confirmed yet)".
std::string NasBestText(const std::vector<TrialRecord>& trials, const ReportContext& ctx);

// `gpusweep best` for a NAS experiment (FormatBest): the result trial, its stage,
// objective, params and directory; nullopt before a block is confirmed.
std::optional<std::string> FormatNasBest(const std::vector<TrialRecord>& trials,
                                         const ReportContext& ctx);

// FormatNoBest for a NAS experiment: no block confirmed yet, and why search
// evaluations do not count.
std::string FormatNasNoBest(const std::vector<TrialRecord>& trials, const ReportContext& ctx);

}  // namespace gpusweep::report
