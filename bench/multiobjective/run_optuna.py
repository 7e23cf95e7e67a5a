#!/usr/bin/python3
"""Optuna 3.1's half of the multi-objective benchmark (bench/README.md, "multiobjective").

    run_optuna.py --check points.jsonl     # gs_bench_mo points: both implementations agree
    run_optuna.py --samplers nsga2,tpe,tpe_mv --seeds 20 [--first-seed 0] --evals 200
                  --population 50

The problems are those of problems.h, written again here from the same papers. Each run
writes one JSON line: problem, sampler, seed, every evaluation in order as
[f1, ..., violation], and the seconds spent outside the objective (Optuna's sampling and
bookkeeping); `gs_bench_mo score` turns the evaluations into hypervolumes with the same
code gpusweep's runs are scored by. nsga2 is NSGAIISampler(population_size, seed,
constraints_func), tpe is TPESampler(seed, constraints_func) -- multi-objective TPE
(Ozaki et al. 2022) in Optuna 3.1, c-TPE-like constraints there experimental -- and
tpe_mv the same with multivariate=True (one joint density over the variables, one split
and one set of hypervolume weights per trial instead of one per variable).
"""
import argparse
import json
import math
import sys
import time

PROBLEMS = {"zdt1": (30, 2, False), "zdt2": (30, 2, False), "zdt3": (30, 2, False),
            "dtlz2": (12, 3, False), "c2dtlz2": (12, 3, True)}


def zdt(name, x):
    g = 1 + 9 * sum(x[1:]) / (len(x) - 1)
    ratio = x[0] / g
    h = {"zdt1": 1 - math.sqrt(ratio), "zdt2": 1 - ratio * ratio,
         "zdt3": 1 - math.sqrt(ratio) - ratio * math.sin(10 * math.pi * x[0])}[name]
    return [x[0], g * h]


def dtlz2(x):
    g = sum((v - 0.5) ** 2 for v in x[2:])
    a, b = x[0] * math.pi / 2, x[1] * math.pi / 2
    return [(1 + g) * math.cos(a) * math.cos(b), (1 + g) * math.cos(a) * math.sin(b),
            (1 + g) * math.sin(a)]


def c2_violation(f, r=0.4):
    squares = sum(v * v for v in f)
    corner = min((v - 1) ** 2 + squares - v * v - r * r for v in f)
    centre = sum((v - 1 / math.sqrt(len(f))) ** 2 for v in f) - r * r
    return max(0.0, min(corner, centre))


def evaluate(name, x):
    if name.startswith("zdt"):
        return zdt(name, x), 0.0
    f = dtlz2(x)
    return f, c2_violation(f) if name == "c2dtlz2" else 0.0


def check(path):
    worst = 0.0
    for line in open(path):
        data = json.loads(line)
        for point in data["points"]:
            f, violation = evaluate(data["problem"], point["x"])
            worst = max([worst, abs(violation - point["violation"])] +
                        [abs(a - b) for a, b in zip(f, point["f"])])
    if worst > 1e-9:
        sys.exit(f"run_optuna.py --check: the C++ and Python problems differ by {worst}")
    print(f"problems agree (largest difference {worst:.2g})", file=sys.stderr)


def study_with_history(name, xs, sampler=None):
    """An Optuna study of problem `name` whose completed trials are the points `xs`
    (evaluated here; with constraints, each trial's violation stored where
    constraints_func would put it: Optuna's _CONSTRAINTS_KEY system attribute)."""
    import optuna
    from optuna.distributions import FloatDistribution
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    variables, objectives, constrained = PROBLEMS[name]
    study = optuna.create_study(directions=["minimize"] * objectives, sampler=sampler)
    distributions = {f"x{i}": FloatDistribution(0, 1) for i in range(variables)}
    trials = []
    for x in xs:
        f, violation = evaluate(name, list(x))
        trials.append(optuna.trial.create_trial(
            params={f"x{i}": float(v) for i, v in enumerate(x)}, distributions=distributions,
            values=f, user_attrs={"violation": violation},
            system_attrs={"constraints": [violation]} if constrained else None))
    study.add_trials(trials)
    return study


def run(name, sampler_name, seed, evals, population):
    import optuna
    variables, objectives, constrained = PROBLEMS[name]
    constraints = (lambda t: [t.user_attrs["violation"]]) if constrained else None
    if sampler_name == "nsga2":
        sampler = optuna.samplers.NSGAIISampler(population_size=population, seed=seed,
                                                constraints_func=constraints)
    else:
        sampler = optuna.samplers.TPESampler(seed=seed, constraints_func=constraints,
                                             multivariate=sampler_name == "tpe_mv")
    study = optuna.create_study(directions=["minimize"] * objectives, sampler=sampler)
    points, inside = [], 0.0

    def objective(trial):
        nonlocal inside
        # TPE samples inside suggest_float (sample_independent): only the evaluation is
        # left out of suggest_s (before 2026-12-02 17:30 UTC the suggest_float calls were
        # too, which hid all of TPE's sampling time).
        x = [trial.suggest_float(f"x{i}", 0, 1) for i in range(variables)]
        start = time.perf_counter()
        f, violation = evaluate(name, x)
        trial.set_user_attr("violation", violation)
        points.append(f + [violation])
        inside += time.perf_counter() - start
        return f

    start = time.perf_counter()
    study.optimize(objective, n_trials=evals)
    total = time.perf_counter() - start
    return {"problem": name, "sampler": sampler_name, "seed": seed, "points": points,
            "suggest_s": total - inside}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--check")
    parser.add_argument("--samplers", default="nsga2,tpe")
    parser.add_argument("--problems", default=",".join(PROBLEMS))
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--first-seed", type=int, default=0)
    parser.add_argument("--evals", type=int, default=200)
    parser.add_argument("--population", type=int, default=50)
    # Optuna 3.1's multi-objective TPE weighs each trial by its hypervolume contribution
    # (WFG per suggestion): on the 3-objective problems one 200-trial run took more than
    # 7 CPU minutes here, so by default it runs on the 2-objective ones only.
    parser.add_argument("--tpe-problems", default="zdt1,zdt2,zdt3")
    args = parser.parse_args()
    if args.check:
        check(args.check)
        return
    import optuna
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    import warnings
    warnings.simplefilter("ignore")  # constraints_func is experimental in 3.1
    for name in args.problems.split(","):
        for sampler in args.samplers.split(","):
            if sampler == "tpe" and name not in args.tpe_problems.split(","):
                continue
            for seed in range(args.first_seed, args.first_seed + args.seeds):
                print(json.dumps(run(name, sampler, seed, args.evals, args.population)), flush=True)


if __name__ == "__main__":
    main()
