// param_text.h — trials' params as table cells that tell trials apart.
//
// A status table of 40 trials that all repeat "epochs=4, train_size=10000, seed=0"
// hides what differs behind what does not, and 6 significant digits can print two
// different learning rates the same. ParamText, built once from every trial shown:
//  - names whose value is the same in every trial (given at least two trials) are
//    constants: listed once (Constants()), left out of each row (Varying());
//  - each float parameter gets the fewest significant digits, at least 6 and at most
//    17 (round-trip), that print its distinct values differently, so two rows never
//    look alike unless their params are equal.
#pragma once

#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "gpusweep/json.h"
#include "gpusweep/trial.h"

namespace gpusweep::report {

class ParamText {
 public:
  explicit ParamText(const std::vector<TrialRecord>& trials);
  // Digits from `trials` (the rows shown), the constants as given (found over more trials
  // than those: TrialSlice).
  ParamText(const std::vector<TrialRecord>& trials,
            std::vector<std::pair<std::string, Json>> constants);

  // "epochs=4, seed=0": the constants in order of first appearance; "" when none.
  std::string Constants() const;
  // "lr=0.0031, channels=16": the params of one trial without the constants.
  std::string Varying(const Json& params) const;
  // One value as it appears in those texts.
  std::string Value(const std::string& name, const Json& value) const;

 private:
  std::vector<std::pair<std::string, Json>> constants_;
  std::set<std::string> constant_names_;
  std::map<std::string, int> digits_;  // float params needing more than 6 digits
};

}  // namespace gpusweep::report
