// status_header.h — the parts of `status` that `status --group` and `best` share.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpusweep/report.h"
#include "report/param_text.h"

namespace gpusweep::report {

// "Label      value", the value wrapped under itself to ctx.width.
void AppendHeaderLine(std::string& out, std::string_view label, const std::string& value,
                      const ReportContext& ctx);

// Experiment, Directory, Trials (counts), Best, Stopped (early stopping), Constants.
void AppendStatusHeader(std::string& out, const std::vector<TrialRecord>& trials,
                        const ReportContext& ctx, const ParamText& params);

// `best` over groups of trials with the same params (group_views.cc); nullopt when no
// params ran more than once, so the best single trial is the answer.
std::optional<std::string> FormatBestGroup(const std::vector<TrialRecord>& trials,
                                           const ReportContext& ctx,
                                           const GroupingOptions& grouping);

}  // namespace gpusweep::report
