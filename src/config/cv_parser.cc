#include "config/cv_parser.h"

#include <array>
#include <string_view>

#include <fmt/format.h>

namespace gpusweep::config_detail {
namespace {

constexpr std::array<std::string_view, 2> kCvKeys{"folds", "allow_failed_folds"};

// {{fold}} and {{folds}} are cv's; a parameter of that name would be silently shadowed
// in templates while params.json still held its value.
Status CheckFoldNames(const Value& cv, const SearchSpace& space) {
  for (const ParamSpec& param : space.params)
    if (param.name == "fold" || param.name == "folds")
      return cv.Invalid(
          fmt::format("the search-space parameter '{}' (line {}) would be shadowed by cv's "
                      "{{{{{}}}}}",
                      param.name, param.line, param.name),
          "rename the parameter");
  return {};
}

}  // namespace

Expected<CvConfig> ParseCv(const Value* value, const SearchSpace& space) {
  CvConfig cv;
  if (value == nullptr || value->IsNull()) return cv;
  if (!value->IsMapping())
    return value->WrongType("a mapping", "e.g. cv: {folds: 5} (5-fold cross-validation)");
  GS_ASSIGN_OR_RETURN(Mapping mapping, value->ToMapping());
  GS_TRY(mapping.CheckKeys(kCvKeys));
  GS_ASSIGN_OR_RETURN(Value folds,
                      mapping.Require("folds", "add e.g. folds: 5 (each configuration runs "
                                               "as 5 fold trials)"));
  GS_ASSIGN_OR_RETURN(cv.folds, folds.ToIntAtLeast(2));
  if (cv.folds > kMaxFolds)
    return folds.Invalid(fmt::format("at most {} folds, found {}", kMaxFolds, cv.folds),
                         "e.g. folds: 5 or folds: 10");
  if (const Value* allowed = mapping.Find("allow_failed_folds"); allowed && !allowed->IsNull()) {
    GS_ASSIGN_OR_RETURN(cv.allow_failed_folds, allowed->ToIntAtLeast(0));
    if (cv.allow_failed_folds >= cv.folds)
      return allowed->Invalid(
          fmt::format("{} of {} folds may fail, so a configuration could have no fold to "
                      "average",
                      cv.allow_failed_folds, cv.folds),
          fmt::format("use 0..{}", cv.folds - 1));
  }
  cv.line = value->mark().line + 1;
  GS_TRY(CheckFoldNames(*value, space));
  return cv;
}

}  // namespace gpusweep::config_detail
