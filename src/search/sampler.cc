// MakeSampler and GridSize: validation of the search space and options for a sampler kind.
#include "gpusweep/sampler.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string_view>

#include <fmt/format.h>

#include "search/cmaes_sampler.h"
#include "search/cmaes_space.h"
#include "search/evolution_sampler.h"
#include "search/samplers.h"

namespace gpusweep {
namespace {

std::string_view KindName(ParamKind kind) {
  switch (kind) {
    case ParamKind::kChoice: return "choice";
    case ParamKind::kUniform: return "uniform";
    case ParamKind::kLogUniform: return "loguniform";
    case ParamKind::kInt: return "int";
    case ParamKind::kConstant: return "constant";
    case ParamKind::kNormal: return "normal";
    case ParamKind::kLogNormal: return "lognormal";
  }
  return "unknown";
}

// The distribution block of ParamSpec (config.h): normal shapes, q, weights.
Status ValidateShape(const ParamSpec& p) {
  const auto bad = [&](std::string_view what) {
    return Fail(ErrorCode::kInvalidConfig,
                fmt::format("search_space.{}: {} parameter {}", p.name, KindName(p.kind), what));
  };
  if (p.kind == ParamKind::kNormal || p.kind == ParamKind::kLogNormal) {
    if (!std::isfinite(p.mu) || !std::isfinite(p.sigma) || p.sigma <= 0)
      return bad(fmt::format("needs a finite mu and sigma > 0 (got {}, {})", p.mu, p.sigma));
    const double floor = p.kind == ParamKind::kLogNormal ? 0.0 : -HUGE_VAL;
    if (std::isnan(p.low) || std::isnan(p.high) || p.low < floor || !(p.low < p.high))
      return bad(fmt::format("needs {} <= low < high (got {}..{})", floor, p.low, p.high));
  }
  if (!(p.q >= 0) || !std::isfinite(p.q)) return bad(fmt::format("needs q >= 0 (got {})", p.q));
  if (p.q_clip && !(p.q > 0)) return bad("clips only a q-rounded value (q > 0)");
  if (!p.weights.empty()) {
    if (p.kind != ParamKind::kChoice || p.weights.size() != p.values.size())
      return bad("needs one weight per value");
    double sum = 0;
    for (double w : p.weights) {
      if (!(w >= 0) || !std::isfinite(w)) return bad(fmt::format("has a weight {} < 0", w));
      sum += w;
    }
    if (std::abs(sum - 1) > 1e-9) return bad(fmt::format("weights sum to {}, not 1", sum));
  }
  return {};
}

// A sampler that models a choice by its own categorical kernel (tpe, gp, nsga2) has no
// place for a choice's weights: refused rather than ignored after the first trials.
Status RefuseWeights(const SearchSpace& space, std::string_view sampler) {
  for (const ParamSpec& p : space.params)
    if (!p.weights.empty())
      return Fail(ErrorCode::kInvalidConfig,
                  fmt::format("sampler: {} cannot honour the weights of the choice '{}' (its "
                              "model of a choice ignores a prior); remove weights, or use "
                              "sampler type: random or sobol (or evolution, with one objective)",
                              sampler, p.name));
  return {};
}

// Checks what every sampler relies on; the config loader checks the same with file
// positions, this is the library's own guard.
Status ValidateParam(const ParamSpec& p) {
  const auto bad = [&](std::string_view what) {
    return Fail(ErrorCode::kInvalidConfig,
                fmt::format("search_space.{}: {} parameter {}", p.name, KindName(p.kind), what));
  };
  switch (p.kind) {
    case ParamKind::kChoice:
      if (p.values.empty()) return bad("needs at least one value");
      break;
    case ParamKind::kInt:
      if (p.int_step <= 0) return bad(fmt::format("needs step > 0 (got {})", p.int_step));
      if (p.int_high < p.int_low)
        return bad(fmt::format("needs low <= high (got {}..{})", p.int_low, p.int_high));
      if (p.int_log && (p.int_low < 1 || p.int_step != 1))
        return bad(fmt::format("on a log scale needs low >= 1 and step 1 (got low {}, step {})",
                               p.int_low, p.int_step));
      break;
    case ParamKind::kUniform:
      if (!std::isfinite(p.low) || !std::isfinite(p.high) || p.high < p.low)
        return bad(fmt::format("needs finite low <= high (got {}..{})", p.low, p.high));
      break;
    case ParamKind::kLogUniform:
      if (!std::isfinite(p.low) || !std::isfinite(p.high) || p.low <= 0 || p.high <= p.low)
        return bad(fmt::format("needs finite 0 < low < high (got {}..{})", p.low, p.high));
      break;
    case ParamKind::kNormal:  // ValidateShape
    case ParamKind::kLogNormal:
    case ParamKind::kConstant:
      break;
  }
  return {};
}

Expected<std::unique_ptr<Sampler>> MakeGrid(const SamplerConfig& config,
                                            const SearchSpace& space) {
  for (const ParamSpec& p : space.params) {
    if (p.kind == ParamKind::kUniform || p.kind == ParamKind::kLogUniform ||
        p.kind == ParamKind::kNormal || p.kind == ParamKind::kLogNormal)
      return Fail(ErrorCode::kInvalidConfig,
                  fmt::format("sampler: grid cannot enumerate the continuous {} parameter "
                              "'{}'; make it a choice or int, or use the random sampler",
                              KindName(p.kind), p.name));
    if (p.q > 0 || !p.weights.empty())
      return Fail(ErrorCode::kInvalidConfig,
                  fmt::format("sampler: grid runs every value of '{}' once, so its {} means "
                              "nothing; write the values as a choice (without weights)",
                              p.name, p.q > 0 ? "q" : "weights"));
  }
  if (config.repeats < 1)
    return Fail(ErrorCode::kInvalidConfig,
                fmt::format("sampler.repeats: must be >= 1 (got {})", config.repeats));
  const std::int64_t size = GridSize(space);
  if (size > kMaxGridTrials / config.repeats)
    return Fail(ErrorCode::kInvalidConfig,
                fmt::format("sampler: the grid has {} points x {} repeats, more than the "
                            "{} trials a grid may have; shrink the search space or use the "
                            "random sampler",
                            size, config.repeats, kMaxGridTrials));
  return std::make_unique<search::GridSampler>(space, size, config.repeats);
}

Status CheckTrials(const SamplerConfig& config) {
  if (config.trials < 1)
    return Fail(ErrorCode::kInvalidConfig,
                fmt::format("sampler.trials: must be >= 1 (got {})", config.trials));
  return {};
}

Expected<std::unique_ptr<Sampler>> MakeSobol(const SamplerConfig& config,
                                             const SearchSpace& space) {
  GS_TRY(CheckTrials(config));
  std::size_t varying = 0;
  for (const ParamSpec& p : space.params) varying += p.kind != ParamKind::kConstant ? 1 : 0;
  if (varying > search::MaxSobolDimensions())
    return Fail(ErrorCode::kInvalidConfig,
                fmt::format("sampler: sobol supports at most {} varying parameters (got {}); "
                            "use the random sampler",
                            search::MaxSobolDimensions(), varying));
  return std::make_unique<search::SobolSampler>(space, config.trials, config.seed);
}

Expected<std::unique_ptr<Sampler>> MakeTpe(const SamplerConfig& config, const SearchSpace& space,
                                           const Objective& objective) {
  GS_TRY(CheckTrials(config));
  const TpeConfig& tpe = config.tpe;
  if (tpe.n_startup_trials < 0)
    return Fail(ErrorCode::kInvalidConfig,
                fmt::format("sampler.n_startup_trials: must be >= 0 (got {})",
                            tpe.n_startup_trials));
  if (tpe.n_ei_candidates < 1)
    return Fail(ErrorCode::kInvalidConfig,
                fmt::format("sampler.n_ei_candidates: must be >= 1 (got {})",
                            tpe.n_ei_candidates));
  if (!std::isfinite(tpe.prior_weight) || tpe.prior_weight <= 0)
    return Fail(ErrorCode::kInvalidConfig,
                fmt::format("sampler.prior_weight: must be a finite number > 0 (got {})",
                            tpe.prior_weight));
  return std::make_unique<search::TpeSampler>(space, config.trials, config.seed, tpe, objective);
}

Expected<std::unique_ptr<Sampler>> MakeCmaes(const SamplerConfig& config,
                                             const SearchSpace& space, Mode mode) {
  GS_TRY(CheckTrials(config));
  for (const ParamSpec& p : space.params)
    if (p.kind == ParamKind::kChoice && p.values.size() >= 2)
      return Fail(ErrorCode::kInvalidConfig,
                  fmt::format("sampler: cmaes cannot model the choice parameter '{}' ({} "
                              "values); make it an int if its values are ordered, or use "
                              "sampler type: tpe or evolution",
                              p.name, p.values.size()));
  if (search::CmaesSpace(space).dims() == 0)
    return Fail(ErrorCode::kInvalidConfig,
                "sampler: cmaes needs at least one uniform, loguniform or int parameter "
                "that can take more than one value; use the random or grid sampler");
  const CmaesConfig& cmaes = config.cmaes;
  if (cmaes.population_size != 0 && cmaes.population_size < 2)
    return Fail(ErrorCode::kInvalidConfig,
                fmt::format("sampler.population_size: must be >= 2 (got {}); leave it out "
                            "for 4 + 3 ln(dimensions)",
                            cmaes.population_size));
  if (!std::isfinite(cmaes.sigma0) || cmaes.sigma0 <= 0)
    return Fail(ErrorCode::kInvalidConfig,
                fmt::format("sampler.sigma0: must be a finite number > 0 (got {})",
                            cmaes.sigma0));
  return std::make_unique<search::CmaesSampler>(space, config.trials, config.seed, cmaes, mode);
}

Expected<std::unique_ptr<Sampler>> MakeEvolution(const SamplerConfig& config,
                                                 const SearchSpace& space, Mode mode) {
  GS_TRY(CheckTrials(config));
  const EvolutionConfig& evolution = config.evolution;
  if (evolution.population < 1)
    return Fail(ErrorCode::kInvalidConfig,
                fmt::format("sampler.population: must be >= 1 (got {})", evolution.population));
  if (evolution.sample < 1 || evolution.sample > evolution.population)
    return Fail(ErrorCode::kInvalidConfig,
                fmt::format("sampler.sample: must be between 1 and population ({}) (got {})",
                            evolution.population, evolution.sample));
  return std::make_unique<search::EvolutionSampler>(space, config.trials, config.seed,
                                                    evolution, mode);
}

// Largest max_model_trials: the GP's cost grows as its cube (docs/samplers.md, "gp").
constexpr int kMaxGpModelTrials = 1000;

Expected<std::unique_ptr<Sampler>> MakeGp(const SamplerConfig& config, const SearchSpace& space,
                                          const Objective& objective) {
  GS_TRY(CheckTrials(config));
  const GpConfig& gp = config.gp;
  if (gp.n_startup_trials < 1)
    return Fail(ErrorCode::kInvalidConfig,
                fmt::format("sampler.n_startup_trials: must be >= 1 (got {})",
                            gp.n_startup_trials));
  if (gp.max_model_trials < 2 || gp.max_model_trials > kMaxGpModelTrials)
    return Fail(ErrorCode::kInvalidConfig,
                fmt::format("sampler.max_model_trials: must be in 2..{} (got {})",
                            kMaxGpModelTrials, gp.max_model_trials));
  return std::make_unique<search::GpSampler>(space, config.trials, config.seed, gp, objective);
}

Expected<std::unique_ptr<Sampler>> MakeNsga2(const SamplerConfig& config, const SearchSpace& space,
                                             const Objective& objective) {
  GS_TRY(CheckTrials(config));
  const Nsga2Config& nsga2 = config.nsga2;
  if (nsga2.population < 2)
    return Fail(ErrorCode::kInvalidConfig,
                fmt::format("sampler.population: must be >= 2 (got {})", nsga2.population));
  for (const auto& [name, value] : {std::pair{"crossover_prob", nsga2.crossover_prob},
                                    std::pair{"mutation_prob", nsga2.mutation_prob}})
    if (!(value >= 0 && value <= 1))
      return Fail(ErrorCode::kInvalidConfig,
                  fmt::format("sampler.{}: must be in [0, 1] (got {})", name, value));
  for (const auto& [name, value] : {std::pair{"crossover_eta", nsga2.crossover_eta},
                                    std::pair{"mutation_eta", nsga2.mutation_eta}})
    if (!(value >= 0) || !std::isfinite(value))
      return Fail(ErrorCode::kInvalidConfig,
                  fmt::format("sampler.{}: must be a finite number >= 0 (got {})", name, value));
  return std::make_unique<search::Nsga2Sampler>(space, config.trials, config.seed, nsga2, objective);
}

// Grid, random, sobol and tpe handle conditional leaves (param_conditions.h); the
// others model a fixed set of dimensions. The config loader says the same at the line.
Status CheckConditionsSupported(SamplerKind kind, const SearchSpace& space) {
  if (!IsConditional(space) || kind == SamplerKind::kGrid || kind == SamplerKind::kRandom ||
      kind == SamplerKind::kSobol || kind == SamplerKind::kTpe)
    return {};
  for (const ParamSpec& p : space.params)
    for (const ParamCondition& condition : p.when)
      return Fail(ErrorCode::kInvalidConfig,
                  fmt::format("search_space.{}: the sampler cannot handle conditional parameters "
                              "(active only when {} has some values); use sampler type: tpe, "
                              "random, sobol or grid",
                              p.name, condition.param));
  return {};
}

// The YAML name of a sampler that optimises one metric (config's ToString lives in the
// config module, which search does not link).
std::string_view SingleObjectiveSamplerName(SamplerKind kind) {
  switch (kind) {
    case SamplerKind::kCmaes: return "cmaes";
    case SamplerKind::kEvolution: return "evolution";
    default: return "this sampler";
  }
}

Expected<std::unique_ptr<Sampler>> MakeBareSampler(const SamplerConfig& config,
                                                   const SearchSpace& space,
                                                   const Objective& objective) {
  const Mode mode = objective.primary().mode;
  for (const ParamSpec& p : space.params) {
    GS_TRY(ValidateParam(p));
    GS_TRY(ValidateShape(p));
  }
  GS_TRY(CheckConditionsSupported(config.kind, space));
  switch (config.kind) {
    case SamplerKind::kGrid:
      return MakeGrid(config, space);
    case SamplerKind::kRandom:
      GS_TRY(CheckTrials(config));
      return std::make_unique<search::RandomSampler>(space, config.trials, config.seed);
    case SamplerKind::kSobol:
      return MakeSobol(config, space);
    case SamplerKind::kNsga2:
      GS_TRY(RefuseWeights(space, "nsga2"));
      return MakeNsga2(config, space, objective);
    case SamplerKind::kTpe:  // several metrics or constraints: multi-objective TPE
      GS_TRY(RefuseWeights(space, "tpe"));
      return MakeTpe(config, space, objective);
    case SamplerKind::kGp:  // several metrics: ParEGO; constraints: a GP per bound
      GS_TRY(RefuseWeights(space, "gp"));
      return MakeGp(config, space, objective);
    default:
      break;
  }
  if (objective.multi() || objective.constrained())
    return Fail(ErrorCode::kInvalidConfig,
                fmt::format("sampler: {} models one metric without constraints; use tpe, gp, nsga2 or random",
                            SingleObjectiveSamplerName(config.kind)));
  switch (config.kind) {
    case SamplerKind::kCmaes:
      return MakeCmaes(config, space, mode);
    case SamplerKind::kEvolution:
      return MakeEvolution(config, space, mode);
    default:
      break;
  }
  return Fail(ErrorCode::kInvalidConfig, "sampler: unknown sampler kind");
}

// The library's own guard for what the config loader checks with file positions: every
// enqueued name is a parameter, and a trial count holds them all (the values are
// checked against their parameters there: FitToParam).
Status CheckEnqueued(const SamplerConfig& config, const SearchSpace& space) {
  if (config.kind != SamplerKind::kGrid &&
      static_cast<std::size_t>(config.trials) < config.enqueue.size())
    return Fail(ErrorCode::kInvalidConfig,
                fmt::format("enqueue: {} settings are enqueued but sampler.trials is {}",
                            config.enqueue.size(), config.trials));
  for (std::size_t i = 0; i < config.enqueue.size(); ++i) {
    for (const auto& item : config.enqueue[i].items()) {
      const std::string& name = item.key();
      const auto param = std::find_if(space.params.begin(), space.params.end(),
                                      [&](const ParamSpec& p) { return p.name == name; });
      if (param == space.params.end())
        return Fail(ErrorCode::kInvalidConfig,
                    fmt::format("enqueue[{}].{}: not a search-space parameter", i, name));
    }
  }
  return {};
}

}  // namespace

std::int64_t GridSize(const SearchSpace& space) {
  constexpr std::uint64_t kMax = std::numeric_limits<std::int64_t>::max();
  if (IsConditional(space)) return static_cast<std::int64_t>(std::min(ActiveGridSize(space), kMax));
  std::uint64_t size = 1;
  for (const ParamSpec& p : space.params) {
    std::uint64_t n = 1;
    if (p.kind == ParamKind::kChoice) n = p.values.size();
    if (p.kind == ParamKind::kInt) n = search::IntCardinality(p);
    if (n == 0) return 0;
    size = size > kMax / n ? kMax : size * n;
  }
  return static_cast<std::int64_t>(size);
}

Expected<std::unique_ptr<Sampler>> MakeSampler(const SamplerConfig& config,
                                               const SearchSpace& space,
                                               Mode mode) {
  if (config.kind == SamplerKind::kNsga2)  // it reads every objective from the trials
    return Fail(ErrorCode::kInvalidArgument,
                "sampler: nsga2 needs the experiment's objective, not only its mode");
  return MakeSampler(config, space, Objective(MetricSpec{"objective", mode}));
}

Expected<std::unique_ptr<Sampler>> MakeSampler(const SamplerConfig& config,
                                               const SearchSpace& space,
                                               const Objective& objective) {
  GS_ASSIGN_OR_RETURN(std::unique_ptr<Sampler> sampler, MakeBareSampler(config, space, objective));
  if (config.enqueue.empty()) return sampler;
  GS_TRY(CheckEnqueued(config, space));
  using Numbering = search::EnqueuedFirst::Numbering;
  return std::make_unique<search::EnqueuedFirst>(
      std::move(sampler), space, config.enqueue,
      config.kind == SamplerKind::kGrid ? Numbering::kAfterEnqueued : Numbering::kSameNumbers);
}


}  // namespace gpusweep
