// cv_views.h — the reports of a cross-validated experiment (ctx.cv.enabled()):
// configurations (gpusweep/cv.h) with mean ± std, their folds under them.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "gpusweep/cv.h"
#include "gpusweep/report.h"

namespace gpusweep::report {

// "0.8712 ± 0.0041 (n=5)" over the folds with a value; "-" without any.
std::string CvMeanText(const CvConfiguration& configuration);

// The status header's "Best" under cv: "val_acc = 0.82 ± 0.02 (n=3) (max) configuration
// 0, mean over its folds"; "-" before a configuration completed.
std::string CvBestText(const std::vector<TrialRecord>& trials, const ReportContext& ctx);

// `status`: the status header (its "Best" the best configuration) plus a "CV" line
// (fold counts), then per
// configuration one row (CONFIG, FOLD "all", STATE — "queued" while no fold runs and
// some are still to run —, mean ± std, why it failed, params) followed by one row per
// fold (fold, trial number, state, gpus, objective, note). options.state filters and
// options.sort == kObjective orders configurations (by mean); top cuts them.
std::string FormatCvStatus(const std::vector<TrialRecord>& trials, const ReportContext& ctx,
                           const StatusOptions& options);

// `best`: the best completed configuration by mean (RankConfigurations): its number,
// mean ± std, each fold's value, params and its folds' trial directories. nullopt when
// no configuration completed.
std::optional<std::string> FormatCvBest(const std::vector<TrialRecord>& trials,
                                        const ReportContext& ctx);

// `show` of fold trial `trial`: which fold of which configuration it is, the
// configuration's state and mean ± std (why it failed), and a table of its folds
// (fold, trial, state, objective, note; this trial's row marked). `trials`: the
// experiment's trials (the siblings are taken from them; `trial` itself wins over its
// entry there). Precondition: ctx.cv.enabled(), trial.number >= 0.
std::string FormatCvFold(const TrialRecord& trial, const std::vector<TrialRecord>& trials,
                         const ReportContext& ctx);

// The run summary's ranking: the top `limit` configurations (all for limit <= 0).
std::string FormatCvRanking(const std::vector<TrialRecord>& trials, const ReportContext& ctx,
                            int limit);

}  // namespace gpusweep::report
