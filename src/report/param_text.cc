#include "report/param_text.h"

#include <cmath>

#include <fmt/format.h>

#include "gpusweep/report.h"
#include "report/text.h"

namespace gpusweep::report {
namespace {

constexpr int kMinDigits = 6;
constexpr int kMaxDigits = 17;  // enough for any double to round-trip

std::string WithDigits(double value, int digits) {
  if (!std::isfinite(value)) return FormatNumber(value);
  return fmt::format("{:.{}g}", value, digits);
}

// The fewest digits (>= kMinDigits) that print each of `values` differently.
int DigitsToTellApart(const std::set<double>& values) {
  for (int digits = kMinDigits; digits < kMaxDigits; ++digits) {
    std::set<std::string> texts;
    for (double value : values) texts.insert(WithDigits(value, digits));
    if (texts.size() == values.size()) return digits;
  }
  return kMaxDigits;
}

}  // namespace

ParamText::ParamText(const std::vector<TrialRecord>& trials) {
  std::vector<std::string> order;
  std::map<std::string, std::vector<Json>> values;  // per name, one per trial holding it
  for (const TrialRecord& t : trials)
    for (auto& [name, value] : FlattenParams(t.params)) {
      auto [it, inserted] = values.try_emplace(name);
      if (inserted) order.push_back(name);
      it->second.push_back(std::move(value));
    }
  for (const std::string& name : order) {
    const std::vector<Json>& seen = values[name];
    bool same = trials.size() >= 2 && seen.size() == trials.size();
    std::set<double> floats;
    for (const Json& value : seen) {
      same = same && value == seen.front();
      if (value.is_number_float()) floats.insert(value.get<double>());
    }
    if (same) {
      constants_.emplace_back(name, seen.front());
      constant_names_.insert(name);
    }
    if (const int digits = DigitsToTellApart(floats); digits > kMinDigits) digits_[name] = digits;
  }
}

ParamText::ParamText(const std::vector<TrialRecord>& trials,
                     std::vector<std::pair<std::string, Json>> constants)
    : ParamText(trials) {
  constants_ = std::move(constants);
  constant_names_.clear();
  for (const auto& [name, value] : constants_) constant_names_.insert(name);
}

std::string ParamText::Value(const std::string& name, const Json& value) const {
  const auto digits = digits_.find(name);
  if (digits != digits_.end() && value.is_number_float())
    return WithDigits(value.get<double>(), digits->second);
  return FormatValue(value, Precision::kShort);
}

std::string ParamText::Constants() const {
  std::string out;
  for (const auto& [name, value] : constants_)
    out += (out.empty() ? "" : ", ") + name + "=" + Value(name, value);
  return out;
}

std::string ParamText::Varying(const Json& params) const {
  std::string out;
  for (const auto& [name, value] : FlattenParams(params)) {
    if (constant_names_.count(name) != 0) continue;
    out += (out.empty() ? "" : ", ") + name + "=" + Value(name, value);
  }
  return out;
}

}  // namespace gpusweep::report
