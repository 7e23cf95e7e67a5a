// The `sampler:` section (see sampler_parser.h).
#include "config/sampler_parser.h"

#include <array>
#include <cmath>
#include <string_view>
#include <utility>

#include <fmt/format.h>

namespace gpusweep::config_detail {
namespace {

constexpr std::array<std::string_view, 8> kSamplerTypes{"random", "grid",      "sobol", "tpe",
                                                        "cmaes",  "evolution", "gp",    "nsga2"};
constexpr std::array<std::string_view, 3> kRandomKeys{"type", "trials", "seed"};
constexpr std::array<std::string_view, 2> kGridKeys{"type", "repeats"};
constexpr std::array<std::string_view, 10> kTpeKeys{
    "type",           "trials",       "seed",          "n_startup_trials",
    "n_ei_candidates", "prior_weight", "multivariate", "constant_liar",
    "consider_magic_clip", "consider_endpoints"};
constexpr std::array<std::string_view, 5> kGpKeys{"type", "trials", "seed", "n_startup_trials",
                                                  "max_model_trials"};

constexpr std::array<std::string_view, 6> kCmaesKeys{"type",   "trials", "seed",
                                                     "population_size", "sigma0", "restart"};
constexpr std::array<std::string_view, 2> kCmaesRestarts{"ipop", "none"};
constexpr std::array<std::string_view, 5> kEvolutionKeys{"type", "trials", "seed", "population",
                                                         "sample"};
constexpr std::array<std::string_view, 8> kNsga2Keys{
    "type", "trials", "seed", "population", "crossover_prob", "mutation_prob", "crossover_eta",
    "mutation_eta"};

// Other tools' sampler names that have a counterpart here.
constexpr std::array<std::pair<std::string_view, std::string_view>, 13> kForeignSamplers{{
    {"gaussian_process", "gp"}, {"gpsampler", "gp"}, {"bayes", "tpe"}, {"bayesian", "tpe"},
    {"optuna", "tpe"}, {"hyperopt", "tpe"}, {"qmc", "sobol"}, {"grid_search", "grid"},
    {"random_search", "random"}, {"cma", "cmaes"}, {"cma-es", "cmaes"},
    {"regularized_evolution", "evolution"}, {"aging_evolution", "evolution"}}};

Status CheckForeignSamplerName(const Value& type) {
  if (!type.IsScalar()) return {};
  for (const auto& [foreign, ours] : kForeignSamplers)
    if (type.node().Scalar() == foreign)
      return type.Invalid(fmt::format("unknown sampler '{}'", foreign),
                          fmt::format("gpusweep's counterpart is type: {} (see docs/samplers.md)",
                                      ours));
  return {};
}

// `trials` (required) and `seed` (optional), shared by random, sobol and tpe.
Status ParseTrialsAndSeed(const Mapping& sampler, SamplerConfig& out) {
  GS_ASSIGN_OR_RETURN(Value trials, sampler.Require("trials", "add e.g. trials: 16"));
  GS_ASSIGN_OR_RETURN(out.trials, trials.ToIntAtLeast(1));
  if (const Value* seed = sampler.Find("seed")) {
    GS_ASSIGN_OR_RETURN(std::int64_t seed_value, seed->ToInt());
    if (seed_value < 0) return seed->Invalid("the seed is negative", "use an integer >= 0");
    out.seed = static_cast<std::uint64_t>(seed_value);
  }
  return {};
}

Status ParseBool(const Mapping& sampler, std::string_view key, bool& out) {
  if (const Value* value = sampler.Find(key)) {
    GS_ASSIGN_OR_RETURN(out, value->ToBool());
  }
  return {};
}

// The TpeConfig options; absent keys keep Optuna 3.1's defaults.
Status ParseTpeOptions(const Mapping& sampler, TpeConfig& tpe) {
  if (const Value* startup = sampler.Find("n_startup_trials")) {
    GS_ASSIGN_OR_RETURN(tpe.n_startup_trials, startup->ToIntAtLeast(0));
  }
  if (const Value* candidates = sampler.Find("n_ei_candidates")) {
    GS_ASSIGN_OR_RETURN(tpe.n_ei_candidates, candidates->ToIntAtLeast(1));
  }
  if (const Value* prior = sampler.Find("prior_weight")) {
    GS_ASSIGN_OR_RETURN(tpe.prior_weight, prior->ToNumber());
    if (!(tpe.prior_weight > 0))
      return prior->Invalid(fmt::format("the prior weight must be > 0 (got {})", tpe.prior_weight),
                            "e.g. prior_weight: 1.0");
  }
  GS_TRY(ParseBool(sampler, "multivariate", tpe.multivariate));
  GS_TRY(ParseBool(sampler, "constant_liar", tpe.constant_liar));
  GS_TRY(ParseBool(sampler, "consider_magic_clip", tpe.consider_magic_clip));
  GS_TRY(ParseBool(sampler, "consider_endpoints", tpe.consider_endpoints));
  return {};
}

// The CmaesConfig options; absent keys keep the defaults (config.h).
Status ParseCmaesOptions(const Mapping& sampler, CmaesConfig& cmaes) {
  if (const Value* size = sampler.Find("population_size")) {
    GS_ASSIGN_OR_RETURN(cmaes.population_size, size->ToIntAtLeast(2));
  }
  if (const Value* sigma = sampler.Find("sigma0")) {
    GS_ASSIGN_OR_RETURN(cmaes.sigma0, sigma->ToNumber());
    if (!(cmaes.sigma0 > 0) || !std::isfinite(cmaes.sigma0))
      return sigma->Invalid(fmt::format("sigma0 must be a finite number > 0 (got {})", cmaes.sigma0),
                            "it is a fraction of each parameter's range, e.g. sigma0: 0.2");
  }
  if (const Value* restart = sampler.Find("restart")) {
    GS_ASSIGN_OR_RETURN(std::string_view text, restart->ToEnum(kCmaesRestarts));
    cmaes.ipop = text == "ipop";
  }
  return {};
}

Status ParseEvolutionOptions(const Mapping& sampler, EvolutionConfig& evolution) {
  if (const Value* population = sampler.Find("population")) {
    GS_ASSIGN_OR_RETURN(evolution.population, population->ToIntAtLeast(1));
  }
  if (const Value* sample = sampler.Find("sample")) {
    GS_ASSIGN_OR_RETURN(evolution.sample, sample->ToIntAtLeast(1));
    if (evolution.sample > evolution.population)
      return sample->Invalid(
          fmt::format("the tournament sample ({}) is larger than the population ({})",
                      evolution.sample, evolution.population),
          "use sample <= population, e.g. population: 20, sample: 5");
  } else if (evolution.sample > evolution.population) {
    evolution.sample = evolution.population;  // a small population, the default sample
  }
  return {};
}

// The GpConfig options; absent keys keep the defaults (config.h).
Status ParseGpOptions(const Mapping& sampler, GpConfig& gp) {
  if (const Value* startup = sampler.Find("n_startup_trials")) {
    GS_ASSIGN_OR_RETURN(gp.n_startup_trials, startup->ToIntAtLeast(1));
  }
  if (const Value* cap = sampler.Find("max_model_trials")) {
    GS_ASSIGN_OR_RETURN(gp.max_model_trials, cap->ToIntAtLeast(2));
    if (gp.max_model_trials > 1000)
      return cap->Invalid(
          fmt::format("at most 1000 trials in the GP model (got {}): its cost per "
                      "suggestion grows as the cube of this number",
                      gp.max_model_trials),
          "e.g. max_model_trials: 200 (the default), or use type: tpe for long searches");
  }
  return {};
}

// The Nsga2Config options; absent keys keep their defaults (config.h).
Status ParseNsga2Options(const Mapping& sampler, Nsga2Config& nsga2) {
  if (const Value* population = sampler.Find("population")) {
    GS_ASSIGN_OR_RETURN(nsga2.population, population->ToIntAtLeast(2));
  }
  for (const auto& [key, out] : {std::pair<std::string_view, double*>{"crossover_prob", &nsga2.crossover_prob},
                                 std::pair<std::string_view, double*>{"mutation_prob", &nsga2.mutation_prob}})
    if (const Value* value = sampler.Find(key)) {
      GS_ASSIGN_OR_RETURN(*out, value->ToNumber());
      if (!(*out >= 0 && *out <= 1))
        return value->Invalid(fmt::format("{} must be in [0, 1] (got {})", key, *out),
                              key == "mutation_prob" ? "e.g. 0.1, or leave it out for 1 / parameters"
                                                     : "e.g. 0.9");
    }
  for (const auto& [key, out] : {std::pair<std::string_view, double*>{"crossover_eta", &nsga2.crossover_eta},
                                 std::pair<std::string_view, double*>{"mutation_eta", &nsga2.mutation_eta}})
    if (const Value* value = sampler.Find(key)) {
      GS_ASSIGN_OR_RETURN(*out, value->ToNumber());
      if (!(*out >= 0) || !std::isfinite(*out))
        return value->Invalid(fmt::format("{} must be a finite number >= 0 (got {})", key, *out),
                              "e.g. 20 (larger keeps children nearer their parents)");
    }
  return {};
}

}  // namespace

Expected<SamplerConfig> ParseSampler(const Value& value) {
  GS_ASSIGN_OR_RETURN(Mapping sampler, value.ToMapping());
  GS_ASSIGN_OR_RETURN(Value type,
                      sampler.Require("type", "add type: random, grid, sobol, tpe, cmaes, evolution, gp or nsga2"));
  GS_TRY(CheckForeignSamplerName(type));
  GS_ASSIGN_OR_RETURN(std::string_view type_text, type.ToEnum(kSamplerTypes));
  SamplerConfig out;
  if (type_text == "grid") {
    out.kind = SamplerKind::kGrid;
    GS_TRY(sampler.CheckKeys(kGridKeys));
    if (const Value* repeats = sampler.Find("repeats")) {
      GS_ASSIGN_OR_RETURN(out.repeats, repeats->ToIntAtLeast(1));
    }
    return out;
  }
  if (type_text == "tpe") {
    out.kind = SamplerKind::kTpe;
    GS_TRY(sampler.CheckKeys(kTpeKeys));
    GS_TRY(ParseTrialsAndSeed(sampler, out));
    GS_TRY(ParseTpeOptions(sampler, out.tpe));
    return out;
  }
  if (type_text == "cmaes") {
    out.kind = SamplerKind::kCmaes;
    GS_TRY(sampler.CheckKeys(kCmaesKeys));
    GS_TRY(ParseTrialsAndSeed(sampler, out));
    GS_TRY(ParseCmaesOptions(sampler, out.cmaes));
    return out;
  }
  if (type_text == "evolution") {
    out.kind = SamplerKind::kEvolution;
    GS_TRY(sampler.CheckKeys(kEvolutionKeys));
    GS_TRY(ParseTrialsAndSeed(sampler, out));
    GS_TRY(ParseEvolutionOptions(sampler, out.evolution));
    return out;
  }
  if (type_text == "gp") {
    out.kind = SamplerKind::kGp;
    GS_TRY(sampler.CheckKeys(kGpKeys));
    GS_TRY(ParseTrialsAndSeed(sampler, out));
    GS_TRY(ParseGpOptions(sampler, out.gp));
    return out;
  }
  if (type_text == "nsga2") {
    out.kind = SamplerKind::kNsga2;
    GS_TRY(sampler.CheckKeys(kNsga2Keys));
    GS_TRY(ParseTrialsAndSeed(sampler, out));
    GS_TRY(ParseNsga2Options(sampler, out.nsga2));
    return out;
  }
  out.kind = type_text == "sobol" ? SamplerKind::kSobol : SamplerKind::kRandom;
  GS_TRY(sampler.CheckKeys(kRandomKeys));
  GS_TRY(ParseTrialsAndSeed(sampler, out));
  return out;
}

}  // namespace gpusweep::config_detail
