// gpusweep/fit/mode.hpp: which direction of a monitored metric is better.
//
// Contract: pure functions, no LibTorch. `Mode::kAuto` is decided from the metric's
// name, and only when the name says it: loss-like names (loss, error, mse, ...) are
// minimised, accuracy-like names (acc, f1, auc, ...) maximised, anything else (or a
// name that says both) is an error asking for the mode. This fixes the upstream bug
// where `'acc' or 'f1' in name` was always true and a loss got maximised.
#pragma once

#include <string>

namespace gpusweep::fit {

/// Direction of a monitored metric: smaller is better, larger is better, or decide
/// from its name (ResolveMode).
enum class Mode { kMin, kMax, kAuto };

/// "min", "max" or "auto".
const char* ModeName(Mode mode);

/// Parses "min", "max" or "auto"; throws std::invalid_argument naming the text.
Mode ParseMode(const std::string& text);

/// `mode` itself unless it is kAuto; then kMin or kMax from the words of `metric`
/// (split at every character that is not a letter or digit, lower-cased): a
/// word among loss, error, err, mse, mae, rmse, nll, perplexity, ppl, cer, wer → kMin;
/// among acc, accuracy, f1, auc, precision, recall, iou, map, top1, top5, r2 → kMax.
/// Throws std::invalid_argument, naming the metric and asking for mode min or max,
/// when no word or words of both kinds match (e.g. "lr", "acc_loss").
Mode ResolveMode(const std::string& metric, Mode mode);

/// Whether `value` is better than `best` by more than `min_delta` (>= 0) under the
/// resolved mode `mode` (kMin or kMax; kAuto throws std::logic_error).
bool Improves(Mode mode, double value, double best, double min_delta);

}  // namespace gpusweep::fit
