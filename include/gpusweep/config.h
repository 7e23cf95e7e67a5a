// config.h — the experiment configuration (the YAML file a user writes).
//
// Contract: LoadConfig/ParseConfig either return a fully validated ExperimentConfig or
// an Error{kInvalidConfig} whose message names `file:line:column`, the key path (e.g.
// `search_space.lr.low`), what is wrong and what would be valid (did-you-mean for
// unknown keys). Nothing is started and nothing is written while parsing.
// The schema is documented in docs/config.md.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpusweep/cv.h"
#include "gpusweep/json.h"
#include "gpusweep/metric.h"
#include "gpusweep/nas_config.h"
#include "gpusweep/objective.h"
#include "gpusweep/status.h"

namespace gpusweep {

// kNormal / kLogNormal (appended, so the values of the others stay): see ParamSpec's
// distribution block below.
enum class ParamKind { kChoice, kUniform, kLogUniform, kInt, kConstant, kNormal, kLogNormal };

// ---- Nested and conditional parameters (issue 22 part B; param_conditions.h) ----
// A condition on a leaf: the leaf is active only when the earlier leaf `param` (its full
// dotted name; a choice, int or constant) is active with one of `values`.
struct ParamCondition {
  std::string param;
  std::vector<Json> values;  // >= 1, each a value `param` can take
  int line = 0;              // of the condition in the YAML (`when:` or the choice's value)
};

// One search-space dimension.
struct ParamSpec {
  std::string name;
  ParamKind kind = ParamKind::kConstant;
  std::vector<Json> values;  // kChoice: the candidates (any JSON value), >= 1
  double low = 0, high = 0;  // kUniform: [low, high); kLogUniform: 0 < low < high
  std::int64_t int_low = 0, int_high = 0, int_step = 1;  // kInt: low..high inclusive, step > 0
  // kInt: drawn log-uniformly over the integers (then 1 <= low, step == 1): a draw is
  // log-uniform over [low - 0.5, high + 0.5], rounded to the nearest integer, so each
  // integer k gets the mass of its own cell, about proportional to 1/k. Grid: every integer.
  bool int_log = false;
  Json constant;             // kConstant: the value every trial gets
  int line = 0;              // 1-based line in the YAML file, for later error messages

  // ---- Distributions beyond even draws: normal, log-normal, q-rounding, weights ----
  // (docs/config.md, "Distributions"; the samplers' handling in docs/samplers.md.)
  // kNormal: x ~ N(mu, sigma^2). kLogNormal: x = exp(y), y ~ N(mu, sigma^2) (mu and sigma
  // are of log x, as in W&B, Hyperopt and NNI). Both truncated to [low, high], which are
  // -inf/+inf (kLogNormal: 0/+inf) where not given.
  double mu = 0, sigma = 1;  // sigma > 0
  // q > 0 (uniform, loguniform, int, normal, lognormal): each draw x becomes
  // round(x / q) * q, as W&B, Hyperopt, NNI and Ray quantise (so a value may lie up to
  // q/2 outside [low, high]); 0 = not rounded. An integer q gives JSON integers.
  double q = 0;
  bool q_clip = false;       // q > 0: the rounded value is then clamped into [low, high] (NNI)
  // kChoice: probability of each value (same size as values, summing to 1); empty: equal.
  std::vector<double> weights;
  // Where another tool's words were read ("distribution: q_uniform", "_type: randint",
  // "type: hp.quniform", "min/max without a type"): what `gpusweep check` says it was
  // read as. Empty for our own words. Not part of the identity.
  std::string spelled;
  // ---- Nested and conditional parameters (issue 22 part B) ----
  // `name` is the leaf's full dotted path ("model.encoder.depth": groups, dotted names,
  // a choice's sub-spaces). `when`: the conditions under which the leaf is active, all of
  // them (a `when:` of its own, and one per enclosing choice branch); empty = always.
  std::vector<ParamCondition> when;
};

// Parameters in declaration order (the order of keys under `search_space:`; a group's
// leaves where the group is, a choice's sub-space leaves right after the choice).
struct SearchSpace {
  std::vector<ParamSpec> params;
};

enum class SamplerKind { kGrid, kRandom, kSobol, kTpe, kCmaes, kEvolution, kGp, kNsga2 };

// Options of the TPE sampler (defaults are Optuna 3.1's TPESampler defaults).
struct TpeConfig {
  int n_startup_trials = 10;     // trials sampled at random (from the prior) before TPE
  int n_ei_candidates = 24;      // candidates drawn from l(x); the best l/g ratio wins
  double prior_weight = 1.0;     // weight of the prior component in each estimator
  bool multivariate = false;     // joint kernel density across parameters (BOHB)
  bool constant_liar = true;     // running trials count as worst, in the "bad" group
  bool consider_magic_clip = true;
  bool consider_endpoints = false;
};

// "grid", "random", "sobol", "tpe", "cmaes", "evolution" (the YAML names).
std::string_view ToString(SamplerKind kind);

// Options of the CMA-ES sampler (docs/samplers.md, "cmaes"). Coordinates are each
// param's range mapped to [0, 1] (log params on a log scale).
struct CmaesConfig {
  int population_size = 0;      // lambda of the first run; 0: 4 + floor(3 ln n)
  double sigma0 = 1.0 / 6;      // initial step size, in units of a param's whole range
  bool ipop = true;             // restart with twice the population when a run stops
};

// Options of regularized (aging) evolution (Real et al., AAAI 2019).
struct EvolutionConfig {
  int population = 20;  // P: the most recent results that form the population
  int sample = 5;       // S: tournament size (<= P), the parent is the sample's best
};

// Options of the Gaussian-process sampler (gpusweep/sampler.h; docs/samplers.md, "gp").
struct GpConfig {
  int n_startup_trials = 10;    // completed trials drawn by Sobol (random) before the GP
  int max_model_trials = 200;   // most trials the GP conditions on (bounds its cost)
};

// Options of the NSGA-II sampler (Deb et al. 2002; docs/samplers.md, "nsga2").
struct Nsga2Config {
  int population = 32;          // >= 2: parents kept, and the random first generation
  double crossover_prob = 0.9;  // [0, 1]: a child crosses two parents, else copies one
  double mutation_prob = 0;     // [0, 1] per varying parameter; 0 = 1 / their number
  double crossover_eta = 20;    // >= 0: SBX distribution index (larger: children nearer)
  double mutation_eta = 20;     // >= 0: polynomial mutation distribution index
};

struct SamplerConfig {
  SamplerKind kind = SamplerKind::kRandom;
  int trials = 0;           // every kind but kGrid: number of trials (>= 1)
  std::uint64_t seed = 0;   // every kind but kGrid: reproducible stream
  int repeats = 1;          // kGrid: repeat the whole grid this many times (>= 1)
  TpeConfig tpe;            // kTpe only
  CmaesConfig cmaes;        // kCmaes only
  EvolutionConfig evolution;  // kEvolution only
  GpConfig gp;              // kGp only
  Nsga2Config nsga2;        // kNsga2 only
  // From the top-level `enqueue:`: parameter settings run first, as trials 0..n-1
  // (Optuna's enqueue_trial, Ray Tune's points_to_evaluate). Each holds a subset of the
  // search space's parameters, validated against it; the sampler fills the rest.
  std::vector<Params> enqueue;
};

// Early stopping / multi-fidelity scheduler (config `scheduler:`).
enum class SchedulerKind { kNone, kMedian, kSuccessiveHalving, kAsha, kHyperband, kPbt, kBohb };

// How successive halving's budget grows from one round to the next.
enum class BudgetGrowth { kGeometric, kLinear };

// "none", "median", "successive_halving", "asha", "hyperband", "pbt", "bohb" (the YAML names).
std::string_view ToString(SchedulerKind kind);

// Population-based training (`scheduler: {type: pbt, ...}`; Jaderberg et al., 2017;
// docs/config.md, "Population-based training"). Not a Scheduler: a search policy of its
// own (src/policy/pbt_policy.h). Each member trains in segments of
// perturbation_interval resource; every segment is a trial of its own.
struct PbtConfig {
  double perturbation_interval = 0;  // > 0, <= max_resource: resource per segment
  int population = 0;                // >= 2 members (= the sampler's trials)
  double quantile = 0.25;            // (0, 0.5]: bottom copies from top
  bool synchronous = false;          // true: segment s+1 starts once all finished s
  double resample_probability = 0.25;      // [0, 1]: a mutation redraws from the space
  std::vector<double> factors{0.8, 1.2};   // > 0 each: a mutation multiplies by one
  std::vector<std::string> mutations;      // params that may change; empty: every varying one
  // Non-empty: a replay (`replay:`, what `gpusweep best --replay` writes; Ray's
  // PopulationBasedTrainingReplay): one member (population 1) trains with these params
  // in segment s (size = the number of segments), continuing its own checkpoint, and
  // nothing is ranked, exploited or explored.
  std::vector<Params> replay;
};

// BOHB (`scheduler: {type: bohb, ...}`; Falkner, Klein & Hutter, "BOHB: Robust and
// Efficient Hyperparameter Optimization at Scale", ICML 2018; src/policy/bohb_policy.h):
// Hyperband's brackets, with each new configuration drawn by the tpe sampler from the
// results at the largest budget that has enough of them.
struct BohbConfig {
  double random_fraction = 1.0 / 3;  // [0, 1]: share of configurations drawn at random
  int min_points_in_model = 0;       // >= 1 results-at-a-budget count N_min; 0: varying params + 1
};

struct SchedulerConfig {
  SchedulerKind kind = SchedulerKind::kNone;
  // Key of the step in the trial's reports ("epoch"): the resource (fidelity) the
  // rungs and the median rule are measured in.
  std::string resource = "epoch";
  double min_resource = 1;        // > 0; the first rung (sh/asha/hyperband)
  double max_resource = 0;        // >= min_resource; required for sh/asha/hyperband
  double reduction_factor = 3;    // eta > 1 (successive_halving defaults to 2)
  BudgetGrowth growth = BudgetGrowth::kGeometric;  // successive_halving only
  double budget_step = 0;         // kLinear: budget added per round (> 0)
  double grace_steps = 0;         // median: never stop before this resource value
  int min_trials = 3;             // median: other trials needed at a step to judge
  std::optional<int> brackets;    // hyperband: number of brackets (default: all, s_max + 1)
  PbtConfig pbt;                  // pbt only (with resource and max_resource)
  BohbConfig bohb;                // bohb only (with the hyperband keys)
};

enum class GpuMode { kAuto, kList, kNone };

struct ResourcesConfig {
  GpuMode gpus = GpuMode::kAuto;      // auto: NVML inventory; list: gpu_list; none: CPU only
  std::vector<int> gpu_list;          // kList: GPU indices (NVML/PCI bus order)
  // GPUs per trial. Size 1: every trial gets that many. Otherwise one count per trial
  // in trial-number order (grid order), validated to have exactly total-trials entries.
  std::vector<int> gpus_per_trial{1};
  // Where gpus_per_trial's value is in the YAML (1-based), for errors found at run time
  // (more GPUs than are available); 0 when the key is not written.
  int gpus_per_trial_line = 0;
  int gpus_per_trial_column = 0;
  std::optional<int> cpu_slots;       // nullopt = auto (usable cores); concurrency without GPUs
  std::optional<int> max_concurrent;  // nullopt = no cap beyond resources
  // GPU sharing and memory checks (docs/config.md, "GPU memory and sharing").
  // trials_per_gpu: at most this many trials at once on one GPU; nullopt = 1 (exclusive)
  // unless gpu_memory_per_trial is set, then as many as its memory allows.
  std::optional<int> trials_per_gpu;
  // Bytes each trial reserves on each of its GPUs; a trial starts only where NVML's free
  // memory minus what running trials reserved and have not allocated yet covers it.
  std::optional<std::uint64_t> gpu_memory_per_trial;
  std::uint64_t min_free_gpu_memory = 0;  // bytes; a GPU with less free is not used
  // After a trial ends its GPUs are handed on only once NVML shows none of its processes
  // and used memory back within gpu_release_tolerance of its level before the trial;
  // after gpu_release_timeout_seconds the GPU is quarantined.
  double gpu_release_timeout_seconds = 30;
  std::uint64_t gpu_release_tolerance = 256ull * 1024 * 1024;
};

// `max_failures:` — when to stop starting trials because too many fail (an import
// error fails every trial). Counted over the trials that finish in one run.
struct FailureLimit {
  int count = 0;        // >= 1: stop once this many trials failed; 0 when a fraction is set
  double fraction = 0;  // (0, 1]: stop once failed / finished >= fraction, ...
  int after = 0;        // ... judged only once at least `after` (>= 1) trials finished
};

// `warm_start: {from: DIR, defaults: {...}}` — an earlier experiment whose trials seed
// the sampler.
struct WarmStartConfig {
  std::filesystem::path from;  // absolute experiment directory (resolved like output_dir)
  int line = 0;                // 1-based line of `from:` in the YAML, for later errors
  // Values assumed for parameters an earlier trial does not have (a parameter added to
  // the search space since), each one the parameter allows; an object, empty for none.
  Params defaults = Json::object();
};

// Where a string is in the experiment YAML (1-based; 0 = unknown, e.g. a config built in
// code), kept for errors found only when the string is rendered for a trial.
struct YamlPosition {
  int line = 0;
  int column = 0;
};

struct TemplateSpec {
  std::filesystem::path src;  // absolute (resolved against the config file's directory)
  std::string dst;            // relative path inside the trial directory (validated)
  YamlPosition position;      // of the entry in `templates:`
  std::string text;           // src's content, read once when the config is loaded, so
                              // validation, identity and rendering all see the same text
};

// `backend:` — where trials run. kLocal: processes on this machine (the default).
// kSlurm: one SLURM job per trial (per job of a budgeted trial), see docs/slurm.md.
enum class BackendKind { kLocal, kSlurm };

struct SlurmConfig {
  std::string partition;                // "" = the cluster's default partition
  std::string account;                  // "" = the user's default account
  std::string qos;                      // "" = the default QOS
  std::optional<double> time_seconds;   // --time; nullopt = timeout + kill_grace, else none
  std::vector<std::string> extra_args;  // more sbatch options, passed as given
  int cpus_per_trial = 1;               // --cpus-per-task of every job (>= 1)
  // squeue is asked at most every poll_interval seconds while jobs change, backing off
  // by 1.5x per quiet poll up to max_poll_interval (docs/slurm.md).
  double poll_interval_seconds = 2;
  double max_poll_interval_seconds = 30;
  int max_jobs = 16;                    // jobs queued or running at once without max_concurrent
};

struct BackendConfig {
  BackendKind kind = BackendKind::kLocal;
  SlurmConfig slurm;
  int line = 0;  // 1-based line of backend's value in the YAML, for errors found at run time
};

struct ExperimentConfig {
  std::filesystem::path config_path;  // absolute path of the YAML file
  std::string yaml_text;              // the file as given, stored in the journal
  std::string name;                   // [A-Za-z0-9._-]+

  // Exactly one of: argv (shell == false) or shell_command (shell == true).
  // Elements/command are Mustache templates over the trial's params.
  std::vector<std::string> command;
  bool shell = false;
  std::string shell_command;
  // Where each argv element (or the one shell command) is in the YAML, same order.
  std::vector<YamlPosition> command_positions;

  // The objective (docs/config.md, "Several objectives and constraints"). `metric:` sets
  // `metric` and leaves `metrics` empty; `metrics:` (2 to 8 unique names) sets `metrics`
  // and `metric` = metrics[0], the primary objective that single-number views show.
  MetricSpec metric;
  std::vector<MetricSpec> metrics;
  std::vector<ConstraintSpec> constraints;  // `constraints:`; empty = every trial feasible
  // `hypervolume_reference: {val_acc: 0.5, params_m: 10}` (several objectives only): the
  // point hypervolume is measured from, in each objective's own units, in `metrics`
  // order; empty: derived from the trials. A reporting choice, not in the identity.
  std::vector<double> hypervolume_reference;
  SamplerConfig sampler;
  SchedulerConfig scheduler;
  SearchSpace search_space;
  ResourcesConfig resources;
  std::optional<double> timeout_seconds;  // per trial; nullopt = none
  double kill_grace_seconds = 10;         // SIGTERM -> SIGKILL delay
  std::vector<TemplateSpec> templates;
  // Where the experiment lives; nullopt = <cwd>/runs/<name>. Relative paths in the
  // YAML are resolved against the config file's directory.
  std::optional<std::filesystem::path> output_dir;
  std::optional<FailureLimit> max_failures;  // nullopt = never stop for failures
  std::optional<WarmStartConfig> warm_start;
  // `nas:` — a neural-architecture search (docs/nas.md). When set, the NAS engine plans
  // every trial (sampler, search_space and scheduler are refused by the parser).
  std::optional<NasConfig> nas;
  CvConfig cv;  // folds == 0: no cross-validation
  BackendConfig backend;  // not part of the identity: a sweep may move between backends
  // Located notes about things that are valid but probably not meant (a bare list as a
  // parameter under a sampler that draws trials); the run prints them before starting.
  std::vector<std::string> warnings;
};

// The experiment's objective: every metric of `metrics:` (else `metric` alone) with the
// constraints; the one Objective every ranking of this experiment's results uses.
inline Objective ObjectiveOf(const ExperimentConfig& config) {
  if (config.metrics.empty()) return Objective(config.metric, config.constraints);
  return Objective(config.metrics, config.constraints);
}

// Most objectives `metrics:` takes.
inline constexpr std::size_t kMaxObjectives = 8;

// `value` as parameter `spec` gives it, when it is a value the parameter can take: the
// matching choice (1 matches 1.0, and 1.0 becomes the listed 1), a number in
// [low, high] as a float (uniform, loguniform), an integer on int's step grid, the
// constant itself. Error{kInvalidConfig} saying why not ("0.5 is outside [0.0001, 0.1]",
// no location) otherwise. Used for enqueued settings and warm-start trials.
Expected<Json> FitToParam(const ParamSpec& spec, const Json& value);

// Reads and validates `path`. Error{kNotFound} if it does not exist, kIo if unreadable.
Expected<ExperimentConfig> LoadConfig(const std::filesystem::path& path);

// Validates YAML text; `path` is used for messages and to resolve relative paths.
Expected<ExperimentConfig> ParseConfig(std::string_view yaml_text,
                                       const std::filesystem::path& path);

// The config of a PBT replay (PbtConfig::replay; `gpusweep best --replay`), rewritten
// from the YAML text a pbt experiment ran with (ExperimentRecord::config_yaml): `name`
// gains "-replay", the sampler draws one trial, `enqueue:` goes, and `scheduler:` becomes
// a replay of `schedule` (one flat params object per segment, first segment first) up to
// `max_resource`, with `comment` after `replay:`. Every other top-level block is the
// original text, comments and quoting included. Error{kInvalidConfig} if the text does
// not parse, is not a block mapping, or has no pbt scheduler.
Expected<std::string> PbtReplayYaml(std::string_view config_yaml, const std::vector<Params>& schedule,
                                    double max_resource, std::string_view comment);

// Parses a duration: "90" or "90s", "20m", "1.5h", "1h30m", "250ms". Returns seconds.
// Error{kInvalidConfig} (message without location) on anything else or a negative value.
Expected<double> ParseDuration(std::string_view text);

// Parses a memory size: bytes as an integer ("1073741824"), or a number with a unit,
// case-insensitive: B, KiB, MiB, GiB, TiB (powers of 1024), KB, MB, GB, TB (powers of
// 1000): "10GiB", "512MiB", "1.5GB" (rounded down to whole bytes).
// Error{kInvalidConfig} (message without location) on anything else.
Expected<std::uint64_t> ParseByteSize(std::string_view text);

// The parts of a config that define an experiment's results (command, shell, metric,
// sampler, search_space, templates with file contents). Resuming with a different
// identity is refused; resources, timeout and output_dir may change between runs.
Json ConfigIdentity(const ExperimentConfig& config);

// Names of the top-level keys whose identity differs, e.g. {"sampler.trials",
// "search_space.lr"} — dotted paths, as precise as the difference allows.
std::vector<std::string> DiffConfigIdentity(const Json& before, const Json& after);

}  // namespace gpusweep

#include "gpusweep/param_conditions.h"  // IsActive, NestParams, ActiveGridSize (inline)
