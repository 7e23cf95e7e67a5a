// status.h — the one error model of the gpusweep library.
//
// Contract: library functions never exit, abort or throw for expected failures (bad
// input, I/O errors, a busy experiment). They return Expected<T> (a value or an Error)
// or Status (Expected<void>). Only front ends (src/cli/main.cc) turn an Error into a
// message and an exit code; ExitCodeFor() gives the mapping.
#pragma once

#include <string>
#include <utility>

#include <tl/expected.hpp>

namespace gpusweep {

enum class ErrorCode {
  kInvalidArgument,  // a caller passed something malformed (CLI flag, trial id)
  kInvalidConfig,    // the experiment YAML or a template is wrong; message has file:line
  kIo,               // a file or directory could not be read or written
  kJournal,          // SQLite failed
  kResource,         // GPU inventory / allocation impossible (e.g. needs more GPUs than exist)
  kProcess,          // a trial process could not be started
  kAlreadyRunning,   // another gpusweep holds the experiment's lock
  kConfigChanged,    // resume refused: the config differs from the journal's
  kNotFound,         // experiment or trial does not exist
  kInterrupted,      // SIGINT/SIGTERM received; trials were stopped
  kTooManyFailures,  // max_failures reached: no new trial was started
  kOutputClosed,     // the reader of stdout went away (`... | head`): end quietly
};

struct Error {
  ErrorCode code;
  std::string message;  // complete, user-facing sentence(s); no trailing newline
};

template <class T>
using Expected = tl::expected<T, Error>;
using Status = tl::expected<void, Error>;

// Fail(code, msg): the error value to `return` from a function returning Expected/Status.
inline tl::unexpected<Error> Fail(ErrorCode code, std::string message) {
  return tl::unexpected<Error>(Error{code, std::move(message)});
}

// Process exit code a front end should use for an error (2 for bad input/config or
// something named that does not exist, 130 for an interrupt, 141 = 128 + SIGPIPE, what a
// shell reports for a tool whose reader closed the pipe, 1 otherwise).
inline int ExitCodeFor(ErrorCode code) {
  switch (code) {
    case ErrorCode::kInvalidArgument:
    case ErrorCode::kInvalidConfig:
    case ErrorCode::kConfigChanged:
    case ErrorCode::kNotFound:
      return 2;
    case ErrorCode::kInterrupted:
      return 130;
    case ErrorCode::kOutputClosed:
      return 141;
    default:
      return 1;
  }
}

}  // namespace gpusweep

#define GS_CONCAT_INNER_(a, b) a##b
#define GS_CONCAT_(a, b) GS_CONCAT_INNER_(a, b)

// GS_TRY(expr): evaluate an Expected<...>/Status; on error return it from the caller.
#define GS_TRY(expr)                                                   \
  do {                                                                 \
    auto&& gs_try_result_ = (expr);                                    \
    if (!gs_try_result_) return tl::unexpected(gs_try_result_.error()); \
  } while (0)

// GS_ASSIGN_OR_RETURN(lhs, expr): `lhs = *expr` or return expr's error.
// Usage: GS_ASSIGN_OR_RETURN(auto cfg, LoadConfig(path));
#define GS_ASSIGN_OR_RETURN(lhs, expr) \
  GS_ASSIGN_OR_RETURN_IMPL_(GS_CONCAT_(gs_result_, __LINE__), lhs, expr)
#define GS_ASSIGN_OR_RETURN_IMPL_(tmp, lhs, expr)               \
  auto tmp = (expr);                                            \
  if (!tmp) return tl::unexpected(std::move(tmp).error());      \
  lhs = std::move(*tmp)
