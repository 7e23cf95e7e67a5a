// The `nas:` section (see nas_parser.h and docs/nas.md).
#include "config/nas_parser.h"

#include <algorithm>
#include <array>
#include <span>
#include <string_view>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace gpusweep::config_detail {
namespace {

constexpr std::array<std::string_view, 20> kNasKeys{
    "blocks",      "depth",          "width",     "max_depth", "operations",
    "skip",        "racos",          "samples_per_round", "elimination", "winner_samples",
    "data_size",   "confirm",        "retrain",   "epochs",    "failed_score",
    "dry_run",     "search",         "seed",      "topologies", "evolution"};
constexpr std::array<std::string_view, 3> kOperationKeys{"conv", "sep_conv", "pooling"};
constexpr std::array<std::string_view, 3> kConvKeys{"filters", "kernel", "activation"};
constexpr std::array<std::string_view, 2> kPoolingKeys{"pool", "kernel"};
constexpr std::array<std::string_view, 3> kActivations{"relu", "leakyrelu", "relu6"};
constexpr std::array<std::string_view, 2> kPools{"avg", "max"};
constexpr std::array<std::string_view, 2> kSkipKeys{"max_distance", "max_count"};
constexpr std::array<std::string_view, 4> kRacosKeys{"sample_size", "positive_num",
                                                     "uncertain_bit", "rand_probability"};
constexpr std::array<std::string_view, 4> kEliminations{"history_best", "history_average",
                                                        "current_best", "current_average"};
constexpr std::array<std::string_view, 5> kDataSizeKeys{"schedule", "init", "step", "scale",
                                                        "max"};
constexpr std::array<std::string_view, 2> kSchedules{"linear", "geometric"};
constexpr std::array<std::string_view, 1> kStageKeys{"data_size"};
constexpr std::array<std::string_view, 3> kEpochKeys{"search", "confirm", "retrain"};
constexpr std::array<std::string_view, 3> kSearches{"tournament", "random", "evolution"};
constexpr std::array<std::string_view, 2> kNasEvolutionKeys{"population", "sample"};

// Upper bounds that keep the topology pool and the plan small enough to enumerate.
constexpr int kMaxDepth = 12;
constexpr int kMaxWidth = 6;
constexpr int kMaxBlocks = 32;

// The mapping under `key`, checked to hold only `keys`; nullopt when absent or null.
Expected<std::optional<Mapping>> Section(const Mapping& parent, std::string_view key,
                                         std::span<const std::string_view> keys) {
  const Value* value = parent.Find(key);
  if (value == nullptr || value->IsNull()) return std::nullopt;
  GS_ASSIGN_OR_RETURN(Mapping map, value->ToMapping());
  GS_TRY(map.CheckKeys(keys));
  return map;
}

Status SetInt(const Mapping& map, std::string_view key, int min, int& out) {
  if (const Value* value = map.Find(key)) {
    GS_ASSIGN_OR_RETURN(out, value->ToIntAtLeast(min));
  }
  return {};
}

Status AtMost(const Mapping& map, std::string_view key, int value, int max) {
  if (value <= max) return {};
  return map.Find(key)->Invalid(fmt::format("{} is more than {}", value, max),
                                fmt::format("use at most {} (the pool grows combinatorially)", max));
}

Expected<std::vector<int>> IntList(const Value& value, int min) {
  if (value.IsScalar()) {
    GS_ASSIGN_OR_RETURN(int one, value.ToIntAtLeast(min));
    return std::vector<int>{one};
  }
  GS_ASSIGN_OR_RETURN(std::vector<Value> list, value.ToList());
  if (list.empty()) return value.Invalid("the list is empty", "give at least one value");
  std::vector<int> out;
  for (const Value& element : list) {
    GS_ASSIGN_OR_RETURN(int number, element.ToIntAtLeast(min));
    out.push_back(number);
  }
  return out;
}

Expected<std::vector<std::string>> EnumList(const Value& value,
                                            std::span<const std::string_view> allowed) {
  std::vector<Value> list;
  if (value.IsScalar()) list.push_back(value);
  else {
    GS_ASSIGN_OR_RETURN(list, value.ToList());
  }
  if (list.empty())
    return value.Invalid("the list is empty", fmt::format("choose from {}", fmt::join(allowed, ", ")));
  std::vector<std::string> out;
  for (const Value& element : list) {
    GS_ASSIGN_OR_RETURN(std::string_view text, element.ToEnum(allowed));
    out.emplace_back(text);
  }
  return out;
}

// `filters: [16, 32]` (every block) or `[[16, 32], [32, 64]]` (one list per block).
Expected<std::vector<std::vector<int>>> ParseFilters(const Value& value, int blocks) {
  GS_ASSIGN_OR_RETURN(std::vector<Value> list, value.ToList());
  if (list.empty()) return value.Invalid("the list is empty", "e.g. filters: [16, 32]");
  if (!list.front().IsList()) {
    GS_ASSIGN_OR_RETURN(std::vector<int> all, IntList(value, 1));
    return std::vector<std::vector<int>>{all};
  }
  if (list.size() != 1 && list.size() != static_cast<std::size_t>(blocks))
    return value.Invalid(fmt::format("has {} per-block lists but nas.blocks is {}", list.size(),
                                     blocks),
                         "give one list per block, or one flat list for every block");
  std::vector<std::vector<int>> out;
  for (const Value& element : list) {
    if (!element.IsList())
      return element.WrongType("a list of filter counts", "write every entry as a list, e.g. [16, 32]");
    GS_ASSIGN_OR_RETURN(std::vector<int> one, IntList(element, 1));
    out.push_back(std::move(one));
  }
  return out;
}

Status CheckKernels(const Value& at, const std::vector<int>& kernels) {
  for (int kernel : kernels)
    if (kernel % 2 == 0)
      return at.Invalid(fmt::format("kernel {} is even; 'same' padding needs odd sizes", kernel),
                        "use 1, 3, 5 or 7");
  return {};
}

Expected<NasConvSpace> ParseConv(const Value& value, int blocks) {
  GS_ASSIGN_OR_RETURN(Mapping map, value.ToMapping());
  GS_TRY(map.CheckKeys(kConvKeys));
  NasConvSpace out;
  out.enabled = true;
  GS_ASSIGN_OR_RETURN(Value filters, map.Require("filters", "e.g. filters: [[16, 32], [32, 64]]"));
  GS_ASSIGN_OR_RETURN(out.filters, ParseFilters(filters, blocks));
  out.kernel = {1, 3, 5};
  if (const Value* kernel = map.Find("kernel")) {
    GS_ASSIGN_OR_RETURN(out.kernel, IntList(*kernel, 1));
    GS_TRY(CheckKernels(*kernel, out.kernel));
  }
  out.activation = {"relu", "leakyrelu", "relu6"};
  if (const Value* activation = map.Find("activation")) {
    GS_ASSIGN_OR_RETURN(out.activation, EnumList(*activation, kActivations));
  }
  return out;
}

Expected<NasPoolingSpace> ParsePooling(const Value& value) {
  NasPoolingSpace out;
  out.enabled = true;
  out.pool = {"avg", "max"};
  out.kernel = {3};
  if (value.IsNull()) return out;
  GS_ASSIGN_OR_RETURN(Mapping map, value.ToMapping());
  GS_TRY(map.CheckKeys(kPoolingKeys));
  if (const Value* pool = map.Find("pool")) {
    GS_ASSIGN_OR_RETURN(out.pool, EnumList(*pool, kPools));
  }
  if (const Value* kernel = map.Find("kernel")) {
    GS_ASSIGN_OR_RETURN(out.kernel, IntList(*kernel, 1));
  }
  return out;
}

Status ParseOperations(const Mapping& nas, NasConfig& out) {
  GS_ASSIGN_OR_RETURN(Value value,
                      nas.Require("operations", "add e.g. operations: {conv: {filters: [16, 32]}, "
                                                "pooling: {pool: [avg, max]}}"));
  GS_ASSIGN_OR_RETURN(Mapping map, value.ToMapping());
  GS_TRY(map.CheckKeys(kOperationKeys));
  if (map.entries().empty())
    return value.Invalid("no operation is allowed", "add conv, sep_conv or pooling");
  if (const Value* conv = map.Find("conv")) {
    GS_ASSIGN_OR_RETURN(out.operations.conv, ParseConv(*conv, out.blocks));
  }
  if (const Value* sep = map.Find("sep_conv")) {
    GS_ASSIGN_OR_RETURN(out.operations.sep_conv, ParseConv(*sep, out.blocks));
  }
  if (const Value* pooling = map.Find("pooling")) {
    GS_ASSIGN_OR_RETURN(out.operations.pooling, ParsePooling(*pooling));
  }
  if (!out.operations.conv.enabled && !out.operations.sep_conv.enabled)
    return value.Invalid("only pooling is allowed: a cell without convolutions cannot learn",
                         "add conv or sep_conv");
  return {};
}

Status ParseSkip(const Mapping& nas, NasConfig& out) {
  GS_ASSIGN_OR_RETURN(std::optional<Mapping> section, Section(nas, "skip", kSkipKeys));
  if (!section) return {};
  const Mapping& map = *section;
  GS_TRY(SetInt(map, "max_distance", 2, out.skip_max_distance));
  out.skip_max_count = 1;
  GS_TRY(SetInt(map, "max_count", 0, out.skip_max_count));
  GS_TRY(map.Require("max_distance", "e.g. skip: {max_distance: 2, max_count: 1}"));
  return {};
}

Status ParseRacos(const Mapping& nas, RacosConfig& out) {
  GS_ASSIGN_OR_RETURN(std::optional<Mapping> section, Section(nas, "racos", kRacosKeys));
  if (!section) return {};
  const Mapping& map = *section;
  GS_TRY(SetInt(map, "sample_size", 1, out.sample_size));
  GS_TRY(SetInt(map, "positive_num", 1, out.positive_num));
  GS_TRY(SetInt(map, "uncertain_bit", 1, out.uncertain_bit));
  if (const Value* p = map.Find("rand_probability")) {
    GS_ASSIGN_OR_RETURN(out.rand_probability, p->ToNumber());
    if (out.rand_probability < 0 || out.rand_probability > 1)
      return p->Invalid("must be in [0, 1]", "e.g. rand_probability: 0.99");
  }
  return {};
}

Status ParseNasEvolution(const Mapping& nas, NasEvolutionConfig& out) {
  GS_ASSIGN_OR_RETURN(std::optional<Mapping> section,
                      Section(nas, "evolution", kNasEvolutionKeys));
  if (!section) return {};
  const Mapping& map = *section;
  GS_TRY(SetInt(map, "population", 1, out.population));
  out.sample = std::min(out.sample, out.population);
  GS_TRY(SetInt(map, "sample", 1, out.sample));
  if (out.sample > out.population)
    return map.Find("sample")->Invalid(
        fmt::format("the tournament sample ({}) is larger than the population ({})", out.sample,
                    out.population),
        "use sample <= population, e.g. evolution: {population: 10, sample: 3}");
  return {};
}

Status ParseDataSize(const Mapping& nas, NasDataSize& out) {
  GS_ASSIGN_OR_RETURN(std::optional<Mapping> section, Section(nas, "data_size", kDataSizeKeys));
  if (!section) return {};
  const Mapping& map = *section;
  if (const Value* schedule = map.Find("schedule")) {
    GS_ASSIGN_OR_RETURN(std::string_view text, schedule->ToEnum(kSchedules));
    out.schedule = text == "linear" ? DataSchedule::kLinear : DataSchedule::kGeometric;
  }
  GS_TRY(SetInt(map, "init", 1, out.init));
  if (const Value* step = map.Find("step")) {
    if (out.schedule != DataSchedule::kLinear)
      return step->Invalid("step is for schedule: linear", "use scale: with schedule: geometric");
    GS_ASSIGN_OR_RETURN(out.step, step->ToNumber());
    if (out.step < 0) return step->Invalid("must be >= 0", "e.g. step: 2000");
  }
  if (const Value* scale = map.Find("scale")) {
    if (out.schedule != DataSchedule::kGeometric)
      return scale->Invalid("scale is for schedule: geometric", "use step: with schedule: linear");
    GS_ASSIGN_OR_RETURN(out.scale, scale->ToNumber());
    if (out.scale < 1) return scale->Invalid("must be >= 1", "e.g. scale: 2");
  }
  if (const Value* max = map.Find("max")) {
    GS_ASSIGN_OR_RETURN(int cap, max->ToIntAtLeast(out.init));
    out.max = cap;
  }
  return {};
}

// `confirm: {data_size: N}` / `retrain: {data_size: N}`.
Status ParseStageDataSize(const Mapping& nas, std::string_view key, int min,
                          std::optional<int>& out) {
  GS_ASSIGN_OR_RETURN(std::optional<Mapping> section, Section(nas, key, kStageKeys));
  if (!section) return {};
  const Mapping& map = *section;
  if (const Value* size = map.Find("data_size")) {
    GS_ASSIGN_OR_RETURN(int number, size->ToIntAtLeast(min));
    out = number;
  }
  return {};
}

Status ParseEpochs(const Mapping& nas, NasEpochs& out) {
  GS_ASSIGN_OR_RETURN(std::optional<Mapping> section, Section(nas, "epochs", kEpochKeys));
  if (!section) return {};
  const Mapping& map = *section;
  GS_TRY(SetInt(map, "search", 1, out.search));
  GS_TRY(SetInt(map, "confirm", 1, out.confirm));
  return SetInt(map, "retrain", 1, out.retrain);
}

Status ParseShape(const Mapping& map, NasConfig& out) {
  GS_TRY(SetInt(map, "blocks", 1, out.blocks));
  GS_TRY(AtMost(map, "blocks", out.blocks, kMaxBlocks));
  GS_TRY(SetInt(map, "depth", 2, out.depth));
  GS_TRY(AtMost(map, "depth", out.depth, kMaxDepth));
  GS_TRY(SetInt(map, "width", 0, out.width));
  GS_TRY(AtMost(map, "width", out.width, kMaxWidth));
  GS_TRY(SetInt(map, "max_depth", 1, out.max_depth));
  return AtMost(map, "max_depth", out.max_depth, kMaxDepth);
}

Status ParseTournament(const Mapping& map, NasConfig& out) {
  GS_TRY(SetInt(map, "samples_per_round", 1, out.samples_per_round));
  GS_TRY(SetInt(map, "winner_samples", 0, out.winner_samples));
  if (const Value* policy = map.Find("elimination")) {
    GS_ASSIGN_OR_RETURN(std::string_view text, policy->ToEnum(kEliminations));
    out.elimination = text == "history_best"      ? NasElimination::kHistoryBest
                      : text == "history_average" ? NasElimination::kHistoryAverage
                      : text == "current_best"    ? NasElimination::kCurrentBest
                                                  : NasElimination::kCurrentAverage;
  }
  if (const Value* search = map.Find("search")) {
    GS_ASSIGN_OR_RETURN(std::string_view text, search->ToEnum(kSearches));
    out.search = text == "random"      ? NasSearch::kRandom
                 : text == "evolution" ? NasSearch::kEvolution
                                       : NasSearch::kTournament;
  }
  if (const Value* score = map.Find("failed_score")) {
    GS_ASSIGN_OR_RETURN(double number, score->ToNumber());
    out.failed_score = number;
  }
  if (const Value* dry = map.Find("dry_run")) {
    GS_ASSIGN_OR_RETURN(out.dry_run, dry->ToBool());
  }
  if (const Value* seed = map.Find("seed")) {
    GS_ASSIGN_OR_RETURN(std::int64_t number, seed->ToInt());
    if (number < 0) return seed->Invalid("the seed is negative", "use an integer >= 0");
    out.seed = static_cast<std::uint64_t>(number);
  }
  return {};
}

std::string_view Name(NasElimination policy) {
  return kEliminations[static_cast<std::size_t>(policy)];
}

Json ConvJson(const NasConvSpace& space) {
  if (!space.enabled) return nullptr;
  return Json{{"filters", space.filters}, {"kernel", space.kernel}, {"activation", space.activation}};
}

}  // namespace

Expected<NasConfig> ParseNas(const Value& value) {
  GS_ASSIGN_OR_RETURN(Mapping map, value.ToMapping());
  GS_TRY(map.CheckKeys(kNasKeys));
  if (const Value* topologies = map.Find("topologies"))
    return topologies->Invalid("topologies are enumerated from depth, width and max_depth",
                               "remove it; see docs/nas.md");
  NasConfig out;
  GS_TRY(ParseShape(map, out));
  GS_TRY(ParseOperations(map, out));
  GS_TRY(ParseSkip(map, out));
  GS_TRY(ParseRacos(map, out.racos));
  GS_TRY(ParseTournament(map, out));
  GS_TRY(ParseNasEvolution(map, out.evolution));
  GS_TRY(ParseDataSize(map, out.data_size));
  GS_TRY(ParseStageDataSize(map, "confirm", 1, out.confirm_data_size));
  std::optional<int> retrain;
  GS_TRY(ParseStageDataSize(map, "retrain", 0, retrain));
  out.retrain_data_size = retrain.value_or(0);
  return ParseEpochs(map, out.epochs).transform([&] { return out; });
}

}  // namespace gpusweep::config_detail

namespace gpusweep {

Json NasConfigJson(const NasConfig& config) {
  const NasDataSize& data = config.data_size;
  Json data_size{{"schedule", data.schedule == DataSchedule::kLinear ? "linear" : "geometric"},
                 {"init", data.init}};
  if (data.schedule == DataSchedule::kLinear) data_size["step"] = data.step;
  else data_size["scale"] = data.scale;
  if (data.max) data_size["max"] = *data.max;
  const NasOperations& ops = config.operations;
  Json pooling = nullptr;
  if (ops.pooling.enabled) pooling = Json{{"pool", ops.pooling.pool}, {"kernel", ops.pooling.kernel}};
  Json json{
      {"blocks", config.blocks},
      {"depth", config.depth},
      {"width", config.width},
      {"max_depth", config.max_depth},
      {"operations", {{"conv", config_detail::ConvJson(ops.conv)}, {"sep_conv", config_detail::ConvJson(ops.sep_conv)},
                      {"pooling", pooling}}},
      {"skip", {{"max_distance", config.skip_max_distance}, {"max_count", config.skip_max_count}}},
      {"racos", {{"sample_size", config.racos.sample_size},
                 {"positive_num", config.racos.positive_num},
                 {"uncertain_bit", config.racos.uncertain_bit},
                 {"rand_probability", config.racos.rand_probability}}},
      {"samples_per_round", config.samples_per_round},
      {"elimination", config_detail::Name(config.elimination)},
      {"winner_samples", config.winner_samples},
      {"data_size", data_size},
      {"confirm", {{"data_size", config.confirm_data_size ? Json(*config.confirm_data_size)
                                                          : Json(nullptr)}}},
      {"retrain", {{"data_size", config.retrain_data_size}}},
      {"epochs", {{"search", config.epochs.search}, {"confirm", config.epochs.confirm},
                  {"retrain", config.epochs.retrain}}},
      {"failed_score", config.failed_score ? Json(*config.failed_score) : Json(nullptr)},
      {"dry_run", config.dry_run},
      {"search", config.search == NasSearch::kRandom      ? "random"
                 : config.search == NasSearch::kEvolution ? "evolution"
                                                          : "tournament"},
      {"seed", static_cast<std::int64_t>(config.seed)}};
  // Only where it is used: a tournament or random NAS experiment recorded before
  // evolution existed keeps its identity, so it resumes.
  if (config.search == NasSearch::kEvolution)
    json["evolution"] = {{"population", config.evolution.population},
                         {"sample", config.evolution.sample}};
  return json;
}

}  // namespace gpusweep
