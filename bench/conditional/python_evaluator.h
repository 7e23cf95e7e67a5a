// python_evaluator.h — one long-lived Python process that scores trials for the driver:
// a JSON line of flat params on its stdin, a number on its stdout (cash.py serve). One
// process for the whole run, so sklearn's import is paid once, not per evaluation.
#pragma once

#include <sys/types.h>

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "gpusweep/json.h"
#include "gpusweep/status.h"

namespace gpusweep::bench {

class PythonEvaluator {
 public:
  // Starts `argv` (argv[0] a path) with pipes on its stdin and stdout.
  static Expected<std::unique_ptr<PythonEvaluator>> Start(const std::vector<std::string>& argv);
  ~PythonEvaluator();
  PythonEvaluator(const PythonEvaluator&) = delete;
  PythonEvaluator& operator=(const PythonEvaluator&) = delete;

  Expected<double> Evaluate(const Params& flat);

 private:
  PythonEvaluator(pid_t pid, std::FILE* to, std::FILE* from) : pid_(pid), to_(to), from_(from) {}
  pid_t pid_;
  std::FILE* to_;
  std::FILE* from_;
};

}  // namespace gpusweep::bench
