// status_header.h — the parts of `status` that `status --group` and `best` share.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpusweep/report.h"
#include "report/groups.h"
#include "report/param_text.h"

namespace gpusweep::report {

// "Label      value", the value wrapped under itself to ctx.width.
void AppendHeaderLine(std::string& out, std::string_view label, const std::string& value,
                      const ReportContext& ctx);

// Experiment, Directory, Trials (counts), Best, Stopped (early stopping), Constants.
// When params ran more than once (repeats, seeds; grouped as `grouping` says), Best
// names the best group by its mean, as `best` does, not the luckiest run.
void AppendStatusHeader(std::string& out, const std::vector<TrialRecord>& trials,
                        const ReportContext& ctx, const ParamText& params,
                        const GroupingOptions& grouping = {});

// The first `shown` of `groups` (ranked, see groups.h) as a table: rank, runs,
// mean ± std (n), min, max, trial numbers, the params that differ between groups.
void AppendGroupTable(std::string& out, const std::vector<ParamGroup>& groups,
                      const ReportContext& ctx, size_t shown);
// The groups' params as records (params only), for the ParamText of what differs
// between groups.
std::vector<TrialRecord> GroupKeys(const std::vector<ParamGroup>& groups);
// The same with the params' text given (a slice's: the constants found over every
// trial, the digits from the groups listed); `groups` may be only those listed.
void AppendGroupTable(std::string& out, const std::vector<ParamGroup>& groups,
                      const ReportContext& ctx, size_t shown, const ParamText& params);

// "acc=0.3 ± 0 (n=3) (max), mean of trials #1 #3 #5 with the same params": the first
// (best) of non-empty ranked `groups`, whose front has a mean.
std::string BestGroupText(const std::vector<ParamGroup>& groups, const MetricSpec& metric);

// `best` over groups of trials with the same params (group_views.cc); nullopt when no
// params ran more than once, so the best single trial is the answer.
std::optional<std::string> FormatBestGroup(const std::vector<TrialRecord>& trials,
                                           const ReportContext& ctx,
                                           const GroupingOptions& grouping);

// The same from the best group itself (`best` of a TrialSlice): `group_count` groups in
// all, `ignored_text` as "the repeat index and seed".
std::string FormatBestOfGroups(const ParamGroup& best, size_t group_count,
                               const std::string& ignored_text, const ReportContext& ctx);
// "the repeat index and seed": the ignored names some of `trials` holds.
std::string IgnoredParamsText(const GroupingOptions& grouping, const std::vector<TrialRecord>& trials);

}  // namespace gpusweep::report
