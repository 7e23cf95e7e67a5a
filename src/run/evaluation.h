// evaluation.h — what the run loop tells its policy about a report or a finished job
// (scheduler.h's Evaluation), and how the journal stores it.
//
// One metric without constraints: the value alone, as the loop always passed it, and
// nothing new in the journal. Several metrics or constraints: also every objective as
// a loss and the total violation, read from the trial's latest reported metrics
// (objective.h's Values, Losses and Violation), so a rung ranks whole vectors.
#pragma once

#include <optional>

#include "gpusweep/config.h"
#include "gpusweep/json.h"
#include "gpusweep/scheduler.h"

namespace gpusweep {

// `value`: the primary objective as the loop decided it (nullopt for a failed job);
// `metrics`: the trial's last_metrics.
Evaluation EvaluationOf(const ExperimentConfig& config, std::optional<double> value,
                        const Json& metrics);

// Adds "losses" and "violation" to a journal event's detail when the evaluation has
// losses; non-finite numbers are written as null (JSON has no infinity).
void WriteEvaluation(const Evaluation& evaluation, Json& detail);
// The evaluation in an event's detail: "value" (null: missing), and "losses" and
// "violation" when present (null read as +inf). Journals written before them, and
// single-objective ones, give the value alone.
Evaluation ReadEvaluation(const Json& detail);

}  // namespace gpusweep
