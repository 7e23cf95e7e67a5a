#!/usr/bin/python3
"""Seconds per multi-objective TPE suggestion at a fixed history (bench/README.md,
"multiobjective"): gpusweep's tpe against Optuna 3.1's TPESampler.

    time_suggest.py [--driver build/bench/multiobjective/gs_bench_mo] [--history 500]
                    [--repeat 10] [--optuna-repeat 3] [--problems zdt1,dtlz2]

Per problem: `history` uniform random points of the unit cube (numpy seed 0) are
evaluated (run_optuna.py's problems) and become completed trials on both sides; then
gpusweep times `repeat` tpe suggestions with that history (`gs_bench_mo time`, Suggest
only), and Optuna times `optuna-repeat` calls of study.ask() plus one suggest_float per
variable with TPESampler(seed=0) -- its sampling work, which happens inside the
suggest calls (each asked trial stays running, which TPE ignores without the constant
liar, so every call sees the same history). Prints one JSON line per problem with both
medians and their ratio (target, issue 21: gpusweep at most 1/20 of Optuna).
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from run_optuna import PROBLEMS, study_with_history  # noqa: E402


def optuna_seconds(name, xs, repeat):
    import optuna
    variables, _, constrained = PROBLEMS[name]
    constraints = (lambda t: [t.user_attrs["violation"]]) if constrained else None
    study = study_with_history(name, xs, optuna.samplers.TPESampler(seed=0, constraints_func=constraints))
    seconds = []
    for _ in range(repeat):
        start = time.perf_counter()
        trial = study.ask()
        for i in range(variables):
            trial.suggest_float(f"x{i}", 0, 1)
        seconds.append(time.perf_counter() - start)
    return seconds


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--driver", default="build/bench/multiobjective/gs_bench_mo")
    parser.add_argument("--history", type=int, default=500)
    parser.add_argument("--repeat", type=int, default=10)
    parser.add_argument("--optuna-repeat", type=int, default=3)
    parser.add_argument("--problems", default="zdt1,dtlz2")
    args = parser.parse_args()
    import warnings
    warnings.simplefilter("ignore")  # constraints_func is experimental in 3.1
    for name in args.problems.split(","):
        variables = PROBLEMS[name][0]
        xs = np.random.default_rng(0).random((args.history, variables))
        ours = subprocess.run([args.driver, "time", "--problem", name, "--repeat", str(args.repeat)],
                              input=json.dumps({"x": xs.tolist()}), capture_output=True, text=True,
                              check=True)
        gpusweep = json.loads(ours.stdout)["seconds"]
        theirs = optuna_seconds(name, xs, args.optuna_repeat)
        g, o = statistics.median(gpusweep), statistics.median(theirs)
        print(json.dumps({"problem": name, "history": args.history, "variables": variables,
                          "gpusweep_median_ms": 1e3 * g, "optuna_median_ms": 1e3 * o,
                          "ratio": g / o, "gpusweep_s": gpusweep, "optuna_s": theirs}), flush=True)


if __name__ == "__main__":
    main()
