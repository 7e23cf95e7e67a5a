// importance_of_export EXPORT.json [CONFIG.yaml] — prints {"name": importance, ...} (most important
// first) computed by gpusweep's fANOVA (src/importance) from `gpusweep export --format
// json` output, so a script can set it beside Optuna's on the very same trials.
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include "importance/importance.h"

int main(int argc, char** argv) {
  using namespace gpusweep;
  if (argc != 2 && argc != 3) {
    std::fprintf(stderr, "usage: importance_of_export EXPORT.json [CONFIG.yaml]\n");
    return 2;
  }
  std::ifstream in(argv[1]);
  std::stringstream text;
  text << in.rdbuf();
  Json rows = Json::parse(text.str(), nullptr, false);
  if (!rows.is_array()) {
    std::fprintf(stderr, "%s: not a gpusweep JSON export\n", argv[1]);
    return 2;
  }
  std::vector<TrialRecord> trials;
  for (const Json& row : rows) {
    TrialRecord t;
    t.number = row["trial"].get<int>();
    t.state = TrialStateFromString(row["state"].get<std::string>()).value_or(TrialState::kFailed);
    if (row["objective"].is_number()) t.objective = row["objective"].get<double>();
    for (const auto& [key, value] : row.items())
      if (key.starts_with("param.")) t.params[key.substr(6)] = value;
    trials.push_back(std::move(t));
  }
  SearchSpace space;  // declared bounds, as the dashboard takes them from the journal
  if (argc == 3) {
    auto config = LoadConfig(argv[2]);
    if (!config) {
      std::fprintf(stderr, "%s\n", config.error().message.c_str());
      return 2;
    }
    space = config->search_space;
  }
  auto importances = importance::FanovaImportances(trials, space);
  if (!importances) {
    std::fprintf(stderr, "%s\n", importances.error().message.c_str());
    return 1;
  }
  Json out = Json::object();
  for (const auto& p : *importances) out[p.name] = p.importance;
  std::cout << out.dump() << "\n";
  return 0;
}
