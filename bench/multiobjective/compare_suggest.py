#!/usr/bin/python3
"""Do gpusweep's multi-objective TPE and Optuna 3.1's draw from the same distribution?
(bench/README.md, "multiobjective", the ZDT1 gap.)

    compare_suggest.py [--driver build/bench/multiobjective/gs_bench_mo] [--problem zdt1]
                       [--history 100] [--draws 300] [--history-seed 0]
                       [--history-file run.json] [--multivariate]

Both sides get the same completed trials (`history` uniform random points, numpy seed
`history-seed`, or the points of --history-file, e.g. a TPE run's; evaluated by
run_optuna.py's problems), then each makes `draws`
suggestions for the next trial from independent random streams (gpusweep: trial numbers
n, n+1, ...; Optuna: TPESampler(seed=k) for the k-th ask, default options as
run_optuna.py's tpe). Prints, per variable, both sides' mean and standard deviation of
the suggested value and a two-sample Kolmogorov-Smirnov p (scipy), then the problem's
objectives at the suggestions (mean, 10th and 50th percentile, KS p per objective: one
number per suggestion, so independent across draws even where the variables are not). Identical algorithms give KS p
values spread uniformly over [0, 1]; a variable with p < 0.001 on both of two history
seeds says the two draw differently there.
"""
import argparse
import json
import os
import subprocess
import sys
import warnings

import numpy as np
from scipy import stats

sys.path.insert(0, os.path.dirname(__file__))
from run_optuna import PROBLEMS, evaluate, study_with_history  # noqa: E402


def optuna_points(name, xs, draws, multivariate):
    import optuna
    variables, _, constrained = PROBLEMS[name]
    constraints = (lambda t: [t.user_attrs["violation"]]) if constrained else None
    study = study_with_history(name, xs)
    points = []
    for k in range(draws):
        # Asked trials stay running; without the constant liar TPE ignores them, so
        # every draw sees the same history.
        study.sampler = optuna.samplers.TPESampler(seed=k, constraints_func=constraints,
                                                   multivariate=multivariate)
        trial = study.ask()
        points.append([trial.suggest_float(f"x{i}", 0, 1) for i in range(variables)])
    return np.asarray(points)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--driver", default="build/bench/multiobjective/gs_bench_mo")
    parser.add_argument("--problem", default="zdt1")
    parser.add_argument("--history", type=int, default=100)
    parser.add_argument("--draws", type=int, default=300)
    parser.add_argument("--history-seed", type=int, default=0)
    parser.add_argument("--multivariate", action="store_true",
                        help="tpe_mv on both sides: TPESampler(multivariate=True)")
    parser.add_argument("--history-file", help='{"x": [[x0, ...], ...]} instead of random points')
    args = parser.parse_args()
    warnings.simplefilter("ignore")  # constraints_func is experimental in 3.1
    variables = PROBLEMS[args.problem][0]
    if args.history_file:
        with open(args.history_file) as f:
            xs = np.asarray(json.load(f)["x"], dtype=float)
        args.history = len(xs)
    else:
        xs = np.random.default_rng(args.history_seed).random((args.history, variables))
    ours = subprocess.run([args.driver, "time", "--problem", args.problem, "--repeat", str(args.draws),
                           "--points", "--sampler", "tpe_mv" if args.multivariate else "tpe"], input=json.dumps({"x": xs.tolist()}), capture_output=True,
                          text=True, check=True)
    gpusweep = np.asarray(json.loads(ours.stdout)["points"], dtype=float)
    theirs = optuna_points(args.problem, xs, args.draws, args.multivariate)
    print(f"{args.problem}: history {args.history} (seed {args.history_seed}), {args.draws} draws each"
          f"{', multivariate' if args.multivariate else ''}")
    print("var  gpusweep mean/sd   optuna mean/sd   KS p")
    low = 0
    for i in range(variables):
        p = stats.ks_2samp(gpusweep[:, i], theirs[:, i]).pvalue
        low += p < 0.001
        print(f"x{i:<3} {gpusweep[:, i].mean():.4f}/{gpusweep[:, i].std():.4f}   "
              f"{theirs[:, i].mean():.4f}/{theirs[:, i].std():.4f}   {p:.3g}")
    f_ours = np.asarray([evaluate(args.problem, list(x))[0] for x in gpusweep])
    f_theirs = np.asarray([evaluate(args.problem, list(x))[0] for x in theirs])
    print("objective means at the suggestions: gpusweep", np.round(f_ours.mean(axis=0), 4).tolist(),
          "optuna", np.round(f_theirs.mean(axis=0), 4).tolist())
    for j in range(f_ours.shape[1]):
        p = stats.ks_2samp(f_ours[:, j], f_theirs[:, j]).pvalue
        q_ours, q_theirs = np.percentile(f_ours[:, j], [10, 50]), np.percentile(f_theirs[:, j], [10, 50])
        print(f"f{j + 1} at the suggestions: 10%/50% gpusweep {q_ours[0]:.4g}/{q_ours[1]:.4g}, "
              f"optuna {q_theirs[0]:.4g}/{q_theirs[1]:.4g}, KS p {p:.3g}")
    print(f"variables with KS p < 0.001: {low} of {variables}")


if __name__ == "__main__":
    main()
