#!/usr/bin/python3
"""Optuna 3.1's half of the conditional-space benchmark (bench/README.md, "conditional").

    run_optuna.py check results/points.jsonl   # problems.py agrees with problems.cc
    run_optuna.py run --problems branches3,hierarchical,branches5,cash,cash_digits --seeds 20 --evals 150
        [--first-seed N]   # seeds N..N+seeds-1, for runs split in parts

The sampler is TPESampler(multivariate=True, group=True, seed=seed), every other option
Optuna's default. The spaces are written define-by-run (problems.py, cash.py) with each
branch's parameters under their own names, so group=True finds one group per branch, as
gpusweep's tree-structured TPE groups a sub-space's leaves. One JSON line per (problem,
seed): the best value after each checkpoint and the seconds outside the objective.
"""
import argparse
import json
import sys
import time

import problems


def check(path):
    worst = 0.0
    for line in open(path):
        data = json.loads(line)
        f = problems.FUNCTIONS[data["problem"]]
        for point in data["points"]:
            worst = max(worst, abs(f(point["params"]) - point["value"]))
    if worst > 1e-9:
        sys.exit(f"run_optuna.py check: the C++ and Python problems differ by {worst}")
    print(f"problems agree (largest difference {worst:.2g})", file=sys.stderr)


def objective_of(name):
    if name.startswith("cash"):
        import cash
        return cash.suggest, cash.evaluator(cash.PROBLEM_DATA[name])
    return problems.SUGGEST[name], problems.FUNCTIONS[name]


def run(name, seed, evals):
    import optuna
    suggest, evaluate = objective_of(name)
    sampler = optuna.samplers.TPESampler(multivariate=True, group=True, seed=seed)
    study = optuna.create_study(direction="minimize", sampler=sampler)
    best, best_params, inside, checkpoints = float("inf"), {}, 0.0, {}

    def objective(trial):
        nonlocal best, best_params, inside
        p = suggest(trial)
        start = time.perf_counter()
        value = evaluate(p)
        inside += time.perf_counter() - start
        if value < best:
            best, best_params = value, p
        n = trial.number + 1
        if n in (10, 25, 50, 100, evals):
            checkpoints[str(n)] = best
        return value

    start = time.perf_counter()
    study.optimize(objective, n_trials=evals)
    return {"seed": seed, "best": checkpoints, "best_params": best_params,
            "suggest_s": time.perf_counter() - start - inside}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("mode", choices=["check", "run"])
    parser.add_argument("points", nargs="?")
    parser.add_argument("--problems", default="branches3,hierarchical,branches5")
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--first-seed", type=int, default=0)
    parser.add_argument("--evals", type=int, default=150)
    args = parser.parse_args()
    if args.mode == "check":
        check(args.points)
        return
    import optuna
    import warnings
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    warnings.simplefilter("ignore")  # multivariate and group are experimental in 3.1
    for name in args.problems.split(","):
        seeds = range(args.first_seed, args.first_seed + args.seeds)
        runs = [run(name, seed, args.evals) for seed in seeds]
        print(json.dumps({"side": "optuna", "problem": name, "sampler": "tpe_mv_group",
                          "runs": runs}), flush=True)
        print(f"optuna {name} done", file=sys.stderr)


if __name__ == "__main__":
    main()
