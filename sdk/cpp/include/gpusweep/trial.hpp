// gpusweep/trial.hpp: the trial side of gpusweep's protocol, for C++ trials.
//
// Contract: this header speaks docs/protocol.md and nothing else. It reads the
// GPUSWEEP_* environment variables and params.json that gpusweep gives a trial, and
// appends JSON lines to $GPUSWEEP_METRICS. It links nothing of the controller: it
// needs only the C++20 standard library, POSIX and nlohmann-json (header-only).
// With an iterative scheduler, report() waits at a rung for the scheduler's verdict
// ($GPUSWEEP_VERDICTS) and returns whether to stop, as python/gpusweep.py does.
// Outside gpusweep (GPUSWEEP_METRICS unset) it works standalone, like the Python
// helper: params() is empty unless GPUSWEEP_PARAMS names a file, report() prints the
// line to stdout.
//
// Errors are exceptions (std::runtime_error and subclasses), the idiom of the user
// code a trial is: ParamError for a missing or mistyped parameter, MetricError for a
// value JSON cannot hold, std::system_error for I/O.
//
//   #include <gpusweep/trial.hpp>
//   const gpusweep::Params p = gpusweep::params();
//   double lr = p.get<double>("lr");              // ParamError if missing/mistyped
//   int channels = p.get<int>("channels", 16);    // with a default
//   gpusweep::handle_stop();                      // SIGTERM sets should_stop()
//   for (int epoch = 1; epoch <= epochs; ++epoch) {
//     ...
//     if (gpusweep::report({{"epoch", epoch}, {"val_acc", acc}}))
//       break;                                    // pruned at a rung, or SIGTERM
//   }
// Population-based training: restore_checkpoint() gives the directory gpusweep copied
// the parent's checkpoint into (or nullopt), save_checkpoint(write) saves atomically.
#pragma once

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <initializer_list>
#include <iostream>
#include <limits>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace gpusweep {

/// JSON value with insertion order kept (params.json is in declaration order, and a
/// reported line keeps the order its metrics were given in).
using Json = nlohmann::ordered_json;

/// The environment variables of docs/protocol.md.
inline constexpr const char* kEnvTrialId = "GPUSWEEP_TRIAL_ID";
inline constexpr const char* kEnvTrialDir = "GPUSWEEP_TRIAL_DIR";
inline constexpr const char* kEnvParams = "GPUSWEEP_PARAMS";
inline constexpr const char* kEnvMetrics = "GPUSWEEP_METRICS";
inline constexpr const char* kEnvBudget = "GPUSWEEP_BUDGET";
inline constexpr const char* kEnvRung = "GPUSWEEP_RUNG";
inline constexpr const char* kEnvAttempt = "GPUSWEEP_ATTEMPT";
inline constexpr const char* kEnvFold = "GPUSWEEP_FOLD";
inline constexpr const char* kEnvFolds = "GPUSWEEP_FOLDS";
inline constexpr const char* kEnvMetric = "GPUSWEEP_METRIC";
inline constexpr const char* kEnvVerdicts = "GPUSWEEP_VERDICTS";
inline constexpr const char* kEnvResource = "GPUSWEEP_RESOURCE";
inline constexpr const char* kEnvStopPoints = "GPUSWEEP_STOP_POINTS";
inline constexpr const char* kEnvCheckpointDir = "GPUSWEEP_CHECKPOINT_DIR";
// Written last into a checkpoint: {"trial": id, "resource": r} (docs/protocol.md,
// "Population-based training: checkpoints"); gpusweep copies a checkpoint to another
// member only when this names the trial that saved it.
inline constexpr const char* kCheckpointMarker = "gpusweep-checkpoint.json";
inline constexpr const char* kCheckpointState = "state.json";

/// How long report() waits for gpusweep's verdict at a rung before it carries on as if
/// told to continue (gpusweep answers within a fraction of a second; it may be gone).
inline constexpr std::chrono::milliseconds kVerdictTimeout{60'000};

/// When report() waits for the scheduler's verdict on a judged line (see report()).
enum class Wait {
  kAtStopPoints,  // when the line reaches a stop point not passed yet (the default)
  kAlways,        // at every judged line
  kNever,         // never: the stop signal alone ends a pruned trial
};

/// A parameter is missing, has another type than asked for, or params.json is bad.
class ParamError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A reported value that JSON cannot hold (NaN, infinity) or a malformed report.
class MetricError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

namespace detail {

/// The value of environment variable `name`, or nullopt when unset or empty.
inline std::optional<std::string> Env(const char* name) {
  const char* value = std::getenv(name);
  if (value == nullptr || *value == '\0') return std::nullopt;
  return std::string(value);
}

/// Parses an integer variable; throws ParamError naming it when it is not one.
inline std::int64_t EnvInteger(const char* name, const std::string& text) {
  std::size_t used = 0;
  long long value = 0;
  try {
    value = std::stoll(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != text.size())
    throw ParamError(std::string(name) + "=\"" + text + "\" is not an integer");
  return value;
}

/// "a number", "a string", ...: the JSON type of `value`, for error messages.
inline std::string TypeName(const Json& value) {
  if (value.is_number_integer()) return "an integer";
  if (value.is_number()) return "a number";
  if (value.is_string()) return "a string";
  if (value.is_boolean()) return "a bool";
  if (value.is_null()) return "null";
  if (value.is_array()) return "a list";
  return "a mapping";
}

/// The JSON type `T` needs, for error messages.
template <typename T>
std::string WantedName() {
  if constexpr (std::is_same_v<T, bool>) return "a bool";
  else if constexpr (std::is_integral_v<T>) return "an integer";
  else if constexpr (std::is_floating_point_v<T>) return "a number";
  else if constexpr (std::is_convertible_v<T, std::string_view>) return "a string";
  else return "a value of the requested type";
}

/// Whether `value` is what `T` may be read from, without the silent conversions
/// nlohmann allows (a bool read as int, 0.5 read as int 0).
template <typename T>
bool Fits(const Json& value) {
  if constexpr (std::is_same_v<T, bool>) {
    return value.is_boolean();
  } else if constexpr (std::is_integral_v<T>) {
    if (value.is_number_integer()) return true;
    if (!value.is_number_float()) return false;
    const double d = value.get<double>();
    return std::isfinite(d) && d == std::floor(d);  // 3.0 is an integer
  } else if constexpr (std::is_floating_point_v<T>) {
    return value.is_number();
  } else if constexpr (std::is_convertible_v<T, std::string_view>) {
    return value.is_string();
  } else {
    return true;  // containers, Json, user types: nlohmann decides below
  }
}

/// Throws MetricError when `value` holds NaN or infinity anywhere; `where` names it.
inline void CheckFinite(const Json& value, const std::string& where) {
  if (value.is_number_float() && !std::isfinite(value.get<double>()))
    throw MetricError("metric " + where + " is " + (std::isnan(value.get<double>()) ? "NaN" : "infinite") +
                      "; JSON cannot hold NaN or infinity (report a finite number or null)");
  if (value.is_array()) {
    for (std::size_t i = 0; i < value.size(); ++i)
      CheckFinite(value[i], where + "[" + std::to_string(i) + "]");
  } else if (value.is_object()) {
    for (const auto& [key, item] : value.items()) CheckFinite(item, where + "." + key);
  }
}

/// Appends `line` and a newline to `path` in one write() on an O_APPEND descriptor,
/// so that gpusweep never reads half a line (docs/protocol.md, metrics.jsonl).
inline void AppendLine(const std::string& path, std::string line) {
  line += '\n';
  const int fd = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) throw std::system_error(errno, std::generic_category(), "open " + path);
  std::size_t done = 0;
  while (done < line.size()) {  // short writes happen only on unusual filesystems
    const ssize_t n = ::write(fd, line.data() + done, line.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int saved = errno;
      ::close(fd);
      throw std::system_error(saved, std::generic_category(), "write " + path);
    }
    done += static_cast<std::size_t>(n);
  }
  ::close(fd);
}

/// The signal handle_stop() caught, 0 before. Lock-free atomic: async-signal-safe.
inline std::atomic<int> stop_signal{0};

inline void NoteStopSignal(int signum) { stop_signal.store(signum); }

/// What this process learnt from $GPUSWEEP_VERDICTS (one trial process reads it alone).
struct VerdictState {
  bool stopped = false;                         // a verdict said "stop"
  std::uintmax_t bytes_read = 0;                // of verdicts.jsonl
  std::vector<std::pair<double, std::string>> answers;  // (resource, verdict)
  double passed = -std::numeric_limits<double>::infinity();  // resource of the last judged line
};
inline VerdictState verdicts;

/// The resource value of a line gpusweep judges (it holds $GPUSWEEP_RESOURCE and
/// $GPUSWEEP_METRIC as numbers), or nullopt; always nullopt without GPUSWEEP_VERDICTS.
inline std::optional<double> JudgedResource(const Json& line) {
  const auto resource = Env(kEnvResource), metric = Env(kEnvMetric);
  if (!Env(kEnvVerdicts) || !resource || !metric) return std::nullopt;
  const auto r = line.find(*resource), m = line.find(*metric);
  if (r == line.end() || m == line.end() || !r->is_number() || !m->is_number()) return std::nullopt;
  return r->get<double>();
}

/// Whether a judged line at resource `at` waits: at (or past) a stop point of
/// $GPUSWEEP_STOP_POINTS not passed before; every judged line when it is empty.
inline bool ShouldWait(double at, Wait wait) {
  bool crossed = true;
  if (const auto text = Env(kEnvStopPoints)) {
    crossed = false;
    std::stringstream points(*text);
    for (std::string point; std::getline(points, point, ',');) {
      const double p = std::strtod(point.c_str(), nullptr);
      // Rungs are reached when at >= rung (up to rounding), as the scheduler decides.
      if (verdicts.passed < p * (1 - 1e-9) && p * (1 - 1e-9) <= at) crossed = true;
    }
  }
  verdicts.passed = std::max(verdicts.passed, at);
  return wait == Wait::kAlways || (wait == Wait::kAtStopPoints && crossed);
}

/// Adds the complete lines appended to verdicts.jsonl since the last call.
inline void ReadVerdicts(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return;
  in.seekg(static_cast<std::streamoff>(verdicts.bytes_read));
  for (std::string line; std::getline(in, line);) {
    if (in.eof()) break;  // no newline yet: read it whole next time
    verdicts.bytes_read += line.size() + 1;
    const Json answer = Json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (answer.is_object() && answer.contains("resource") && answer["resource"].is_number() &&
        answer.contains("verdict") && answer["verdict"].is_string())
      verdicts.answers.emplace_back(answer["resource"].get<double>(), answer["verdict"].get<std::string>());
  }
}

/// Polls $GPUSWEEP_VERDICTS until it answers a report at `at` or says "stop", a stop
/// signal arrives, or `timeout` passes (then a warning on stderr; the trial continues).
inline void AwaitVerdict(double at, std::chrono::milliseconds timeout) {
  const std::string path = *Env(kEnvVerdicts);
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  auto pause = std::chrono::milliseconds(5);
  while (true) {
    ReadVerdicts(path);
    for (const auto& [resource, verdict] : verdicts.answers) {
      if (verdict == "stop") {
        verdicts.stopped = true;
        return;
      }
    }
    for (const auto& answer : verdicts.answers)
      if (answer.first >= at) return;
    if (stop_signal.load() != 0) return;
    if (std::chrono::steady_clock::now() >= deadline) break;
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::milliseconds(50));
  }
  std::cerr << "gpusweep: no verdict for " << Env(kEnvResource).value_or("?") << "=" << at << " within "
            << timeout.count() / 1000.0 << "s; continuing" << std::endl;
}

}  // namespace detail

/// A trial's parameters: the JSON object of params.json, with typed access.
class Params {
 public:
  /// Empty parameters (a standalone run).
  Params() : values_(Json::object()) {}

  /// Wraps `values`; throws ParamError unless it is a JSON object. `source` names
  /// where it came from in error messages (a path, "command line").
  explicit Params(Json values, std::string source = "params")
      : values_(std::move(values)), source_(std::move(source)) {
    if (!values_.is_object())
      throw ParamError(source_ + " holds " + detail::TypeName(values_) + ", expected a JSON object");
  }

  /// Parses `text` (a JSON object), e.g. from a command-line flag; throws ParamError.
  static Params Parse(const std::string& text, std::string source = "params") {
    try {
      return Params(Json::parse(text), std::move(source));
    } catch (const Json::parse_error& e) {
      throw ParamError(source + " is not valid JSON: " + e.what());
    }
  }

  /// Reads a params.json file; throws ParamError naming the file when it cannot be
  /// read or is not a JSON object.
  static Params FromFile(const std::filesystem::path& path) {
    std::ifstream in(path);
    if (!in) throw ParamError("cannot read params file " + path.string());
    std::stringstream text;
    text << in.rdbuf();
    return Parse(text.str(), path.string());
  }

  /// Whether parameter `name` is present.
  bool contains(const std::string& name) const { return values_.contains(name); }

  /// The value of parameter `name` as T (bool, an integer or floating type,
  /// std::string, Json, or anything nlohmann can convert to).
  /// Throws ParamError naming the parameter when it is missing ("... is not a
  /// parameter; have: lr, channels") or of another type ("... is a string, expected a
  /// number"). An integer T accepts an integral float (3.0), never 0.5 or a bool.
  template <typename T>
  T get(const std::string& name) const {
    const auto it = values_.find(name);
    if (it == values_.end())
      throw ParamError("\"" + name + "\" is not a parameter in " + source_ + "; have: " + Names() +
                       " (add it to the search space, or give a default: get(name, default))");
    return Convert<T>(name, *it);
  }

  /// Like get<T>(name), but `fallback` when the parameter is missing (a standalone
  /// run). A present parameter of the wrong type still throws ParamError.
  template <typename T>
  T get(const std::string& name, T fallback) const {
    const auto it = values_.find(name);
    return it == values_.end() ? fallback : Convert<T>(name, *it);
  }

  /// Overload so that get("name", "text") yields a std::string.
  std::string get(const std::string& name, const char* fallback) const {
    return get<std::string>(name, std::string(fallback));
  }

  /// All parameters as the JSON object, in params.json's order.
  const Json& json() const { return values_; }
  bool empty() const { return values_.empty(); }

 private:
  template <typename T>
  T Convert(const std::string& name, const Json& value) const {
    if (!detail::Fits<T>(value))
      throw ParamError("parameter \"" + name + "\" in " + source_ + " is " + detail::TypeName(value) +
                       " (" + value.dump() + "), expected " + detail::WantedName<T>());
    if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
      if (value.is_number_float()) return static_cast<T>(value.get<double>());
    }
    try {
      return value.get<T>();
    } catch (const Json::exception& e) {
      throw ParamError("parameter \"" + name + "\" in " + source_ + " (" + value.dump() +
                       ") cannot be read as the requested type: " + e.what());
    }
  }

  std::string Names() const {
    std::string names;
    for (const auto& [key, unused] : values_.items()) names += (names.empty() ? "" : ", ") + key;
    return names.empty() ? "(none)" : names;
  }

  Json values_;
  std::string source_ = "params";
};

/// True when this process is a trial started by gpusweep ($GPUSWEEP_METRICS is set).
inline bool in_gpusweep() { return detail::Env(kEnvMetrics).has_value(); }

/// The trial's params from $GPUSWEEP_PARAMS; empty Params when it is unset (standalone).
/// Throws ParamError when the file cannot be read or is not a JSON object.
inline Params params() {
  const auto path = detail::Env(kEnvParams);
  return path ? Params::FromFile(*path) : Params();
}

/// The trial's number ($GPUSWEEP_TRIAL_ID, 0-based), nullopt outside gpusweep.
inline std::optional<std::int64_t> trial_id() {
  const auto text = detail::Env(kEnvTrialId);
  if (!text) return std::nullopt;
  return detail::EnvInteger(kEnvTrialId, *text);
}

/// The trial's directory ($GPUSWEEP_TRIAL_DIR, also its cwd); the cwd outside gpusweep.
inline std::filesystem::path trial_dir() {
  const auto path = detail::Env(kEnvTrialDir);
  return path ? std::filesystem::path(*path) : std::filesystem::current_path();
}

/// This job's budget ($GPUSWEEP_BUDGET, e.g. epochs to train up to), nullopt when the
/// experiment's scheduler gives none. Throws ParamError when it is not a number.
inline std::optional<double> budget() {
  const auto text = detail::Env(kEnvBudget);
  if (!text) return std::nullopt;
  std::size_t used = 0;
  double value = 0;
  try {
    value = std::stod(*text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != text->size() || !std::isfinite(value))
    throw ParamError(std::string(kEnvBudget) + "=\"" + *text + "\" is not a number");
  return value;
}

/// This job's rung ($GPUSWEEP_RUNG: 0, 1, ...), nullopt without a scheduler.
inline std::optional<int> rung() {
  const auto text = detail::Env(kEnvRung);
  if (!text) return std::nullopt;
  return static_cast<int>(detail::EnvInteger(kEnvRung, *text));
}

/// Makes SIGTERM (gpusweep's stop request: pruned, timed out, interrupted) set the flag
/// should_stop() reads instead of ending the process. gpusweep sends SIGKILL
/// `kill_grace` (default 10 s) later: save a checkpoint and exit before then.
/// Throws std::system_error when sigaction fails.
inline void handle_stop() {
  struct sigaction action {};
  action.sa_handler = detail::NoteStopSignal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;  // a read() of training data is resumed, not failed
  if (::sigaction(SIGTERM, &action, nullptr) != 0)
    throw std::system_error(errno, std::generic_category(), "sigaction(SIGTERM)");
}

/// True once SIGTERM arrived after handle_stop().
inline bool stop_requested() { return detail::stop_signal.load() != 0; }

/// True once the scheduler's verdict at a rung said "stop": the trial is pruned (the
/// SIGTERM gpusweep sends right after may have arrived too).
inline bool stopped_by_verdict() { return detail::verdicts.stopped; }

/// True once the scheduler's verdict said "stop" (the trial is pruned) or SIGTERM
/// arrived after handle_stop(): finish the step, save what is needed, exit.
inline bool should_stop() { return detail::verdicts.stopped || stop_requested(); }

/// This run's attempt ($GPUSWEEP_ATTEMPT): 1, then 2, 3, ... when the trial runs again in
/// the same directory after an interruption (its checkpoint is still there); 1 outside
/// gpusweep. Throws ParamError when it is not an integer.
inline int attempt() {
  const auto text = detail::Env(kEnvAttempt);
  return text ? static_cast<int>(detail::EnvInteger(kEnvAttempt, *text)) : 1;
}

/// This trial's cross-validation fold ($GPUSWEEP_FOLD, 0..folds()-1) when the experiment
/// has `cv: {folds: k}` (every configuration runs as k trials with the same params: train
/// on the other folds, report the metric on this one); nullopt without cv and outside
/// gpusweep. Throws ParamError when it is not an integer.
inline std::optional<int> fold() {
  const auto text = detail::Env(kEnvFold);
  if (!text) return std::nullopt;
  return static_cast<int>(detail::EnvInteger(kEnvFold, *text));
}

/// The number of cross-validation folds k ($GPUSWEEP_FOLDS); nullopt without cv.
/// Throws ParamError when it is not an integer.
inline std::optional<int> folds() {
  const auto text = detail::Env(kEnvFolds);
  if (!text) return std::nullopt;
  return static_cast<int>(detail::EnvInteger(kEnvFolds, *text));
}

/// Appends one JSON object line to $GPUSWEEP_METRICS (stdout outside gpusweep) and
/// returns should_stop(). `metrics` must be a non-empty JSON object; keys are free
/// (`epoch`, `step` or `iteration` gives the line's step, a scheduler reads its
/// `resource` key, `epoch` by default).
///
/// Waiting for the verdict (docs/protocol.md): with an iterative scheduler
/// (GPUSWEEP_VERDICTS set), a line holding the scheduler's resource and the metric as
/// numbers, at a point where the trial may be stopped (GPUSWEEP_STOP_POINTS), makes
/// report() wait until gpusweep has judged it (a fraction of a second), so a pruned
/// trial trains no further: it then returns true. `wait` changes when it waits;
/// `timeout` bounds the wait (then a warning on stderr, and the trial continues).
///
/// Throws MetricError when `metrics` is not a non-empty object or holds NaN or infinity
/// anywhere (nothing is written then: a diverged run is noticed where it happens),
/// std::system_error when the file cannot be written.
inline bool report(const Json& metrics, Wait wait = Wait::kAtStopPoints,
                   std::chrono::milliseconds timeout = kVerdictTimeout) {
  if (!metrics.is_object() || metrics.empty())
    throw MetricError("report() needs a non-empty JSON object of metrics, got " + metrics.dump());
  for (const auto& [key, value] : metrics.items()) detail::CheckFinite(value, key);
  const std::string text = metrics.dump();
  const auto path = detail::Env(kEnvMetrics);
  if (!path) {
    std::cout << text << std::endl;  // standalone: flushed, as the Python helper does
    return false;
  }
  detail::AppendLine(*path, text);
  if (const auto at = detail::JudgedResource(metrics); at && detail::ShouldWait(*at, wait))
    detail::AwaitVerdict(*at, timeout);
  return should_stop();
}

/// Where this trial's checkpoint lives: $GPUSWEEP_CHECKPOINT_DIR (set under
/// population-based training), else trial_dir() / "checkpoint".
inline std::filesystem::path checkpoint_dir() {
  if (auto dir = detail::Env(kEnvCheckpointDir)) return *dir;
  return trial_dir() / "checkpoint";
}

/// The checkpoint to continue from, or nullopt: under population-based training
/// gpusweep copied the parent trial's (the member's previous segment, or the donor's)
/// into checkpoint_dir() before the trial started. Counts only with its marker.
inline std::optional<std::filesystem::path> restore_checkpoint() {
  const std::filesystem::path dir = checkpoint_dir();
  std::error_code ec;
  if (!std::filesystem::is_regular_file(dir / kCheckpointMarker, ec)) return std::nullopt;
  return dir;
}

/// The JSON object save_checkpoint(state) saved in `dir` (a restore_checkpoint()
/// result), or nullopt when it saved none. std::system_error when unreadable.
inline std::optional<Json> checkpoint_state(const std::filesystem::path& dir) {
  std::ifstream in(dir / kCheckpointState);
  if (!in) return std::nullopt;
  try {
    return Json::parse(in);
  } catch (const Json::exception& e) {
    throw std::system_error(std::make_error_code(std::errc::io_error),
                            (dir / kCheckpointState).string() + ": " + e.what());
  }
}

/// Saves the checkpoint atomically into checkpoint_dir(): `write` (may be empty)
/// fills a fresh directory beside it and `state` (if not null) goes to state.json;
/// then the marker {"trial": trial_id(), "resource": resource or budget()} is written
/// and the directory renamed into place (the old one removed), so a reader sees the
/// old checkpoint or the new one, never half. Returns the checkpoint directory.
/// std::system_error on I/O errors (the old checkpoint is then left as it was).
inline std::filesystem::path save_checkpoint(
    const std::function<void(const std::filesystem::path&)>& write, const Json& state = nullptr,
    std::optional<double> resource = std::nullopt) {
  namespace fs = std::filesystem;
  const fs::path final_dir = checkpoint_dir();
  const std::string pid = std::to_string(::getpid());
  const fs::path fresh = final_dir.parent_path() / ("." + final_dir.filename().string() + ".saving-" + pid);
  const fs::path old = final_dir.parent_path() / ("." + final_dir.filename().string() + ".old-" + pid);
  fs::create_directories(final_dir.parent_path());
  fs::remove_all(fresh);
  fs::remove_all(old);
  fs::create_directory(fresh);
  auto write_json = [](const fs::path& path, const Json& value) {
    std::ofstream out(path, std::ios::trunc);
    out << value.dump();
    out.flush();
    if (!out) throw std::system_error(std::make_error_code(std::errc::io_error), path.string());
  };
  if (!state.is_null()) write_json(fresh / kCheckpointState, state);
  if (write) write(fresh);
  Json marker = {{"trial", trial_id() ? Json(*trial_id()) : Json()}};
  const std::optional<double> at = resource ? resource : budget();
  marker["resource"] = at ? Json(*at) : Json();
  write_json(fresh / kCheckpointMarker, marker);
  if (fs::exists(final_dir)) fs::rename(final_dir, old);
  fs::rename(fresh, final_dir);
  fs::remove_all(old);
  return final_dir;
}

/// report() with {"step": step} first, then `metrics` (a "step" in `metrics` is
/// replaced by `step`). E.g. report(3, {{"val_acc", 0.91}}).
inline bool report(std::int64_t step, const Json& metrics, Wait wait = Wait::kAtStopPoints,
                   std::chrono::milliseconds timeout = kVerdictTimeout) {
  if (!metrics.is_object())
    throw MetricError("report() needs a JSON object of metrics, got " + metrics.dump());
  Json line = {{"step", step}};
  for (const auto& [key, value] : metrics.items())
    if (key != "step") line[key] = value;
  return report(line, wait, timeout);
}

}  // namespace gpusweep
