#!/usr/bin/python3
"""The table of bench/samplers/cmaes.sh: per function, the final simple regret of each
sampler over the seeds (median, IQR), and a two-sided Mann-Whitney U test of gpusweep's
cmaes against each Optuna CmaEsSampler row (normal approximation with tie correction;
Mann & Whitney 1947), and of evolution against random search.

  report_cmaes.py RESULTS_DIR   reads cmaes_gpusweep.jsonl, cmaes_optuna.jsonl and
                                cmaes_evolution.jsonl; writes cmaes_table.md there
"""
import json
import math
import os
import sys

import numpy as np

CONTINUOUS = ["branin", "hartmann6", "rosenbrock10", "ackley5"]
ALL = CONTINUOUS + ["mixed"]
CMAES_ROWS = [("gpusweep", "cmaes", "gpusweep cmaes (IPOP, default)"),
              ("gpusweep", "cmaes_noipop", "gpusweep cmaes, restart: none"),
              ("optuna", "cmaes", "Optuna CmaEsSampler() (no restarts, its default)"),
              ("optuna", "cmaes_ipop", "Optuna CmaEsSampler(restart_strategy=\"ipop\")")]
EVOLUTION_ROWS = [("gpusweep", "evolution", "gpusweep evolution (P 20, S 5)"),
                  ("gpusweep", "random", "gpusweep random")]


def read(path):
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def finals(line):
    runs = line["runs"]
    last = str(max(int(k) for k in runs[0]["regret"]))
    return np.array([r["regret"][last] for r in runs]), int(last), \
        1e3 * float(np.mean([r["suggest_s"] for r in runs])) / int(last)


def mann_whitney(a, b):
    """Two-sided p-value of the Mann-Whitney U test (normal approximation, ties
    corrected, continuity correction) and U of `a`."""
    a, b = np.asarray(a, float), np.asarray(b, float)
    n1, n2 = len(a), len(b)
    pooled = np.concatenate([a, b])
    order = np.argsort(pooled, kind="mergesort")
    ranks = np.empty(len(pooled))
    sorted_values = pooled[order]
    i = 0
    tie_term = 0.0
    while i < len(pooled):
        j = i
        while j + 1 < len(pooled) and sorted_values[j + 1] == sorted_values[i]:
            j += 1
        ranks[order[i:j + 1]] = (i + j) / 2 + 1
        t = j - i + 1
        tie_term += t ** 3 - t
        i = j + 1
    u1 = ranks[:n1].sum() - n1 * (n1 + 1) / 2
    mean = n1 * n2 / 2
    n = n1 + n2
    var = n1 * n2 / 12 * ((n + 1) - tie_term / (n * (n - 1)))
    if var <= 0:
        return 1.0, u1
    z = (abs(u1 - mean) - 0.5) / math.sqrt(var)
    return math.erfc(max(z, 0) / math.sqrt(2)), u1


def g(x):
    return f"{x:.3g}"


def table(functions, rows, data, against):
    """One table per function; every row but `against` (side, sampler, label) gets the
    Mann-Whitney p-value of its final regrets against `against`'s, marked when the
    difference is significant at 5%."""
    out = []
    for function in functions:
        out += [f"**{function}**", "",
                f"| sampler | final regret, median | IQR (25%–75%) | ms/suggestion | "
                f"Mann–Whitney p vs {against[2]} |", "|---|---:|---:|---:|---:|"]
        mine = data.get((against[0], against[1], function))
        for side, sampler, label in rows:
            line = data.get((side, sampler, function))
            if line is None:
                continue
            if "error" in line:
                out.append(f"| {label} | {line['error']} | | | |")
                continue
            values, _, ms = finals(line)
            p = "-"
            if mine is not None and "error" not in mine and (side, sampler) != against[:2]:
                reference = finals(mine)[0]
                pv, _ = mann_whitney(values, reference)
                if pv < 0.05:
                    word = "worse" if np.median(reference) > np.median(values) else "better"
                    p = f"{pv:.3g} ({against[2]} {word})"
                else:
                    p = f"{pv:.3g}"
            q25, q75 = np.percentile(values, [25, 75])
            out.append(f"| {label} | {g(np.median(values))} | {g(q25)}–{g(q75)} | {ms:.3g} | {p} |")
        out.append("")
    return out


def main(results):
    data = {}
    for name in ["cmaes_gpusweep.jsonl", "cmaes_optuna.jsonl", "cmaes_evolution.jsonl"]:
        for line in read(os.path.join(results, name)):
            data[(line["side"], line["sampler"], line["function"])] = line
    seeds = next((len(l["runs"]) for l in data.values() if "runs" in l), 0)
    evals = next((finals(l)[1] for l in data.values() if "runs" in l), 0)
    lines = [f"Final simple regret after {evals} evaluations over {seeds} seeds "
             "(bench/samplers/cmaes.sh).", "", "CMA-ES:", ""]
    lines += table(CONTINUOUS, CMAES_ROWS, data, ("gpusweep", "cmaes", "gpusweep cmaes"))
    lines += ["Regularized evolution:", ""]
    lines += table(ALL, EVOLUTION_ROWS, data, ("gpusweep", "evolution", "evolution"))
    text = "\n".join(lines)
    with open(os.path.join(results, "cmaes_table.md"), "w") as f:
        f.write(text + "\n")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
