// cv_parser.h — `cv:`: k-fold cross-validation of every configuration (docs/config.md,
// "Cross-validation").
#pragma once

#include "config/yaml_reader.h"
#include "gpusweep/config.h"

namespace gpusweep::config_detail {

// `cv: {folds: k, allow_failed_folds: n}` (null/absent: no cross-validation).
// Error{kInvalidConfig} located at the key when: folds is not an integer in
// 2..kMaxFolds; allow_failed_folds is not in 0..folds-1 (a configuration needs at
// least one fold to have a mean); an unknown key (did-you-mean); a search-space
// parameter is named `fold` or `folds` (the template names cv adds would shadow it).
Expected<CvConfig> ParseCv(const Value* value, const SearchSpace& space);

}  // namespace gpusweep::config_detail
