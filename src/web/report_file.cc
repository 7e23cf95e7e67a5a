#include "web/report_file.h"

#include <algorithm>

#include "gpusweep/objective.h"
#include "gpusweep/report.h"
#include "web/page.h"

namespace gpusweep::web {
namespace {

// Numbers of the trials whose pages the report carries: all, or the best-ranked.
Expected<std::vector<int>> TrialsWithPages(LiveExperiment& experiment, const Json& trials) {
  std::vector<int> numbers;
  for (const Json& t : trials) numbers.push_back(t["number"].get<int>());
  if (numbers.size() <= static_cast<std::size_t>(kReportTrialPages)) return numbers;
  const Mode mode = experiment.meta().metric.mode;
  std::vector<std::pair<double, int>> ranked;  // (objective, trial number)
  for (const Json& t : trials)
    if (t["state"] == "completed" && t["objective"].is_number())
      ranked.emplace_back(t["objective"].get<double>(), t["number"].get<int>());
  std::sort(ranked.begin(), ranked.end(), [mode](const auto& a, const auto& b) {
    if (const auto order = Order(mode, a.first, b.first); order != 0) return order < 0;
    return a.second < b.second;
  });
  ranked.resize(std::min<std::size_t>(ranked.size(), kReportTrialPages));
  numbers.clear();
  for (auto& [value, number] : ranked) numbers.push_back(number);
  return numbers;
}

}  // namespace

Expected<std::string> BuildReport(const std::filesystem::path& dir, DecisionFormatter decisions) {
  GS_ASSIGN_OR_RETURN(std::unique_ptr<LiveExperiment> experiment,
                      LiveExperiment::Open(dir, std::move(decisions)));
  Json data = Json::object();
  GS_ASSIGN_OR_RETURN(data["experiment"], experiment->Summary());
  GS_ASSIGN_OR_RETURN(const std::string trials, experiment->TrialsSince(0));
  GS_ASSIGN_OR_RETURN(const std::string points, experiment->PointsAfter(0));
  data["trials"] = Json::parse(trials);
  data["points"] = Json::parse(points);
  GS_ASSIGN_OR_RETURN(data["importance"], experiment->Importance());
  GS_ASSIGN_OR_RETURN(std::vector<int> pages, TrialsWithPages(*experiment, data["trials"]["trials"]));
  Json details = Json::object();
  for (int number : pages) {
    GS_ASSIGN_OR_RETURN(details[std::to_string(number)], experiment->TrialDetail(number));
  }
  data["details"] = std::move(details);
  return ReportPage(data);
}

}  // namespace gpusweep::web
