#!/usr/bin/python3
"""Optuna 3.1's half of the sampler benchmark (bench/README.md, "samplers").

  run_optuna.py check POINTS      verify test_functions.py against gs_bench_samplers'
                                  `points` output (spaces, minima, f(x) to 1e-9 relative)
  run_optuna.py run [--seeds 20 --evals 200 --samplers random,qmc,tpe,tpe_mv]
  run_optuna.py time [--function hartmann6 --history 100,1000,2000 --reps 20]

`run` and `time` print JSON lines in the same format as gs_bench_samplers, with
"side": "optuna". A sampler that cannot be built gives a line with "error".
"""
import argparse
import json
import math
import random
import sys
import time
import warnings

import optuna

from test_functions import FUNCTIONS, distributions, suggest_all

CHECKPOINTS = [10, 25, 50, 100, 150, 200]


def make_sampler(name, seed):
    s = optuna.samplers
    if name == "random":
        return s.RandomSampler(seed=seed)
    if name == "qmc":
        import scipy.stats.qmc  # noqa: F401  (QMCSampler needs it; fail here, clearly)
        # scramble=True: a randomised Sobol sequence per seed, like gpusweep's sobol
        # (Optuna's default, scramble=False, gives every seed the same points).
        return s.QMCSampler(seed=seed, scramble=True)
    if name == "tpe":
        return s.TPESampler(seed=seed)
    if name == "tpe_mv":
        return s.TPESampler(seed=seed, multivariate=True)
    if name == "cmaes":  # python3-cmaes; Optuna's defaults (no restarts)
        return s.CmaEsSampler(seed=seed)
    if name == "cmaes_ipop":
        return s.CmaEsSampler(seed=seed, restart_strategy="ipop")
    raise ValueError(f"unknown sampler {name}")


def close(a, b, rel=1e-9):
    return abs(a - b) <= rel * max(abs(a), abs(b), 1e-3)


def check(path):
    problems = []
    seen = set()
    with open(path) as lines:
        for line in lines:
            got = json.loads(line)
            name = got["function"]
            seen.add(name)
            mine = FUNCTIONS.get(name)
            if mine is None:
                problems.append(f"{name}: not defined in test_functions.py")
                continue
            if not same_space(got["space"], mine.space):
                problems.append(f"{name}: search spaces differ: {got['space']} vs {mine.space}")
            if not close(got["minimum"], mine.minimum, 1e-12):
                problems.append(f"{name}: minimum {got['minimum']} vs {mine.minimum}")
            for point in got["points"]:
                value = mine.evaluate(point["params"])
                if not close(point["value"], value):
                    problems.append(f"{name}: f({point['params']}) = {point['value']} in C++, "
                                    f"{value} in Python")
    for name in set(FUNCTIONS) - seen:
        problems.append(f"{name}: missing from the C++ side")
    for p in problems:
        print("MISMATCH", p, file=sys.stderr)
    print(f"test functions agree: {len(seen)} functions checked" if not problems else
          f"{len(problems)} mismatches", file=sys.stderr)
    return 1 if problems else 0


def same_space(a, b):
    if len(a) != len(b):
        return False
    for x, y in zip(a, b):
        if set(x) != set(y) or x["name"] != y["name"] or x["kind"] != y["kind"]:
            return False
        for key in x:
            if key in ("low", "high", "step") and float(x[key]) != float(y[key]):
                return False
            if key == "values" and x[key] != y[key]:
                return False
    return True


def run_seed(function, sampler_name, seed, evals):
    study = optuna.create_study(sampler=make_sampler(sampler_name, seed))
    best, regret, suggest_s = float("inf"), {}, 0.0
    checkpoints = [c for c in CHECKPOINTS if c < evals] + [evals]
    for k in range(evals):
        start = time.perf_counter()
        trial = study.ask()
        params = suggest_all(trial, function.space)
        suggest_s += time.perf_counter() - start
        value = function.evaluate(params)
        study.tell(trial, value)
        best = min(best, value)
        if k + 1 in checkpoints:
            regret[str(k + 1)] = best - function.minimum
    return {"seed": seed, "regret": regret, "suggest_s": suggest_s}


def run(args):
    for name in args.functions:
        for sampler in args.samplers:
            line = {"side": "optuna", "function": name, "sampler": sampler}
            try:
                line["runs"] = [run_seed(FUNCTIONS[name], sampler, seed, args.evals)
                                for seed in range(args.seeds)]
            except ImportError as e:
                line["error"] = f"not available: {e}"
            print(f"optuna {name} {sampler} done", file=sys.stderr, flush=True)
            print(json.dumps(line), flush=True)
    return 0


def random_params(space, rng):
    params = {}
    for p in space:
        kind = p["kind"]
        if kind == "uniform":
            params[p["name"]] = rng.uniform(p["low"], p["high"])
        elif kind == "loguniform":
            params[p["name"]] = math.exp(rng.uniform(math.log(p["low"]), math.log(p["high"])))
        elif kind == "int":
            params[p["name"]] = rng.randrange(p["low"], p["high"] + 1, p["step"])
        else:
            params[p["name"]] = rng.choice(p["values"])
    return params


def time_suggestions(args):
    function = FUNCTIONS[args.function]
    dists = distributions(function.space)
    for sampler in args.samplers:
        for size in args.history:
            rng = random.Random(777)
            study = optuna.create_study(sampler=make_sampler(sampler, 0))
            trials = []
            for _ in range(size):
                params = random_params(function.space, rng)
                trials.append(optuna.trial.create_trial(
                    params=params, distributions=dists, value=function.evaluate(params)))
            study.add_trials(trials)
            total = 0.0
            for rep in range(args.reps + 1):  # suggestion 0 warms up and is not timed
                start = time.perf_counter()
                trial = study.ask()
                params = suggest_all(trial, function.space)
                if rep > 0:
                    total += time.perf_counter() - start
                study.tell(trial, function.evaluate(params))
            print(json.dumps({"side": "optuna", "function": args.function, "sampler": sampler,
                              "history": size, "reps": args.reps,
                              "mean_s": total / args.reps}), flush=True)
            print(f"optuna time {sampler} history {size} done", file=sys.stderr, flush=True)
    return 0


def csv(kind):
    return lambda text: [kind(x) for x in text.split(",")]


def main():
    warnings.filterwarnings("ignore")  # ExperimentalWarning for multivariate / QMC
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("check")
    p.add_argument("points")
    p = sub.add_parser("run")
    p.add_argument("--functions", type=csv(str), default=list(FUNCTIONS))
    p.add_argument("--samplers", type=csv(str), default=["random", "qmc", "tpe", "tpe_mv"])
    p.add_argument("--seeds", type=int, default=20)
    p.add_argument("--evals", type=int, default=200)
    p = sub.add_parser("time")
    p.add_argument("--function", default="hartmann6")
    p.add_argument("--samplers", type=csv(str), default=["tpe", "tpe_mv"])
    p.add_argument("--history", type=csv(int), default=[100, 1000, 2000])
    p.add_argument("--reps", type=int, default=20)
    args = parser.parse_args()
    if args.command == "check":
        return check(args.points)
    if args.command == "run":
        return run(args)
    return time_suggestions(args)


if __name__ == "__main__":
    sys.exit(main())
