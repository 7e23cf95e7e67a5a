#include <gpusweep/fit/mode.hpp>

#include <array>
#include <cctype>
#include <stdexcept>
#include <string_view>
#include <vector>

namespace gpusweep::fit {
namespace {

constexpr std::array<std::string_view, 11> kMinWords{
    "loss", "error", "err", "mse", "mae", "rmse", "nll", "perplexity", "ppl", "cer", "wer"};
constexpr std::array<std::string_view, 11> kMaxWords{
    "acc", "accuracy", "f1", "auc", "precision", "recall", "iou", "map", "top1", "top5", "r2"};

// Lower-cased words of `name`, split at every character that is not a letter or digit.
std::vector<std::string> Words(const std::string& name) {
  std::vector<std::string> words;
  std::string current;
  for (char c : name) {
    if (std::isalnum(static_cast<unsigned char>(c))) {
      current += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    } else if (!current.empty()) {
      words.push_back(current);
      current.clear();
    }
  }
  if (!current.empty()) words.push_back(current);
  return words;
}

template <std::size_t N>
bool HasWord(const std::vector<std::string>& words, const std::array<std::string_view, N>& set) {
  for (const auto& word : words)
    for (std::string_view known : set)
      if (word == known) return true;
  return false;
}

}  // namespace

const char* ModeName(Mode mode) {
  switch (mode) {
    case Mode::kMin: return "min";
    case Mode::kMax: return "max";
    case Mode::kAuto: return "auto";
  }
  return "?";
}

Mode ParseMode(const std::string& text) {
  if (text == "min") return Mode::kMin;
  if (text == "max") return Mode::kMax;
  if (text == "auto") return Mode::kAuto;
  throw std::invalid_argument("mode \"" + text + "\" is not one of min, max, auto");
}

Mode ResolveMode(const std::string& metric, Mode mode) {
  if (mode != Mode::kAuto) return mode;
  const auto words = Words(metric);
  const bool min_like = HasWord(words, kMinWords);
  const bool max_like = HasWord(words, kMaxWords);
  if (min_like && !max_like) return Mode::kMin;
  if (max_like && !min_like) return Mode::kMax;
  throw std::invalid_argument(
      "mode auto cannot tell whether \"" + metric + "\" is better " +
      (min_like ? "small or large (its name reads both as a loss and as an accuracy)"
                : "small or large (its name is neither loss-like nor accuracy-like)") +
      "; give the mode: min or max");
}

bool Improves(Mode mode, double value, double best, double min_delta) {
  switch (mode) {
    case Mode::kMin: return value < best - min_delta;
    case Mode::kMax: return value > best + min_delta;
    case Mode::kAuto: break;
  }
  throw std::logic_error("Improves() needs a resolved mode (min or max), not auto");
}

}  // namespace gpusweep::fit
