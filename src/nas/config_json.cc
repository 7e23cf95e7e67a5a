// NasConfigFromJson (gpusweep/nas.h): the inverse of NasConfigJson, for the read-only
// commands, which find the NAS config in the journal's stored identity.
#include <fmt/format.h>

#include "gpusweep/nas.h"

namespace gpusweep {
namespace {

NasConvSpace ConvFrom(const Json& json) {
  NasConvSpace space;
  if (!json.is_object()) return space;
  space.enabled = true;
  space.filters = json.at("filters").get<std::vector<std::vector<int>>>();
  space.kernel = json.at("kernel").get<std::vector<int>>();
  space.activation = json.at("activation").get<std::vector<std::string>>();
  return space;
}

NasElimination PolicyFrom(const std::string& name) {
  if (name == "history_average") return NasElimination::kHistoryAverage;
  if (name == "current_best") return NasElimination::kCurrentBest;
  if (name == "current_average") return NasElimination::kCurrentAverage;
  return NasElimination::kHistoryBest;
}

NasConfig FromJson(const Json& json) {
  NasConfig config;
  config.blocks = json.at("blocks").get<int>();
  config.depth = json.at("depth").get<int>();
  config.width = json.at("width").get<int>();
  config.max_depth = json.at("max_depth").get<int>();
  const Json& ops = json.at("operations");
  config.operations.conv = ConvFrom(ops.at("conv"));
  config.operations.sep_conv = ConvFrom(ops.at("sep_conv"));
  if (ops.at("pooling").is_object()) {
    config.operations.pooling.enabled = true;
    config.operations.pooling.pool = ops["pooling"].at("pool").get<std::vector<std::string>>();
    config.operations.pooling.kernel = ops["pooling"].at("kernel").get<std::vector<int>>();
  }
  config.skip_max_distance = json.at("skip").at("max_distance").get<int>();
  config.skip_max_count = json.at("skip").at("max_count").get<int>();
  const Json& racos = json.at("racos");
  config.racos = RacosConfig{racos.at("sample_size").get<int>(), racos.at("positive_num").get<int>(),
                             racos.at("uncertain_bit").get<int>(),
                             racos.at("rand_probability").get<double>()};
  config.samples_per_round = json.at("samples_per_round").get<int>();
  config.elimination = PolicyFrom(json.at("elimination").get<std::string>());
  config.winner_samples = json.at("winner_samples").get<int>();
  const Json& data = json.at("data_size");
  config.data_size.schedule =
      data.at("schedule") == "geometric" ? DataSchedule::kGeometric : DataSchedule::kLinear;
  config.data_size.init = data.at("init").get<int>();
  if (data.contains("step")) config.data_size.step = data["step"].get<double>();
  if (data.contains("scale")) config.data_size.scale = data["scale"].get<double>();
  if (data.contains("max")) config.data_size.max = data["max"].get<int>();
  if (const Json& size = json.at("confirm").at("data_size"); size.is_number())
    config.confirm_data_size = size.get<int>();
  config.retrain_data_size = json.at("retrain").at("data_size").get<int>();
  const Json& epochs = json.at("epochs");
  config.epochs = NasEpochs{epochs.at("search").get<int>(), epochs.at("confirm").get<int>(),
                            epochs.at("retrain").get<int>()};
  if (const Json& failed = json.at("failed_score"); failed.is_number())
    config.failed_score = failed.get<double>();
  config.dry_run = json.at("dry_run").get<bool>();
  const Json& search = json.at("search");
  config.search = search == "random"      ? NasSearch::kRandom
                  : search == "evolution" ? NasSearch::kEvolution
                                          : NasSearch::kTournament;
  if (const auto evolution = json.find("evolution"); evolution != json.end())  // since 24
    config.evolution = NasEvolutionConfig{evolution->at("population").get<int>(),
                                          evolution->at("sample").get<int>()};
  config.seed = json.at("seed").get<std::uint64_t>();
  return config;
}

}  // namespace

Expected<NasConfig> NasConfigFromJson(const Json& json) {
  try {
    return FromJson(json);
  } catch (const Json::exception& e) {
    return Fail(ErrorCode::kJournal,
                fmt::format("the journal's NAS config is malformed ({}); was it written by a "
                            "newer gpusweep?",
                            e.what()));
  }
}

}  // namespace gpusweep
