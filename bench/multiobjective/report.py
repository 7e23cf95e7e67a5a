#!/usr/bin/python3
"""The multi-objective benchmark's table (bench/README.md, "multiobjective").

Reads results/gpusweep.jsonl and results/optuna.jsonl (gs_bench_mo's lines), and writes
results/summary.json and results/table.md: per problem and sampler, the median and
interquartile range over seeds of the hypervolume regret (the exact best hypervolume
of problems.h minus the run's, at the last checkpoint; the raw hypervolume where the
best is not known in closed form: C2-DTLZ2), the mean milliseconds per suggestion, and
a two-sided Mann-Whitney U test (bench/samplers/report_cmaes.py's) of gpusweep's better
sampler against Optuna's better one. Targets (issue 21): gpusweep's better median
regret no worse than Optuna's better on at least 4 of the 5 problems, strictly lower on
at least 2.
"""
import json
import math
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "samplers"))
from report_cmaes import mann_whitney  # noqa: E402

BEST = {"zdt1": 120 + 2 / 3, "zdt2": 120 + 1 / 3, "zdt3": 128.77811613069076,
        "dtlz2": 1.1 ** 3 - math.pi / 6, "c2dtlz2": None}
PROBLEMS = list(BEST)


def load(results):
    runs = {}
    for name in ("gpusweep.jsonl", "optuna.jsonl"):
        for line in open(os.path.join(results, name)):
            r = json.loads(line)
            if "error" in r:
                continue
            last = str(max(int(k) for k in r["hypervolume"]))
            evals = int(last)
            hv = r["hypervolume"][last]
            # Lower is better in both cases: regret, or minus the raw hypervolume.
            score = BEST[r["problem"]] - hv if BEST[r["problem"]] is not None else -hv
            key = (r["problem"], r["side"], r["sampler"])
            runs.setdefault(key, {"scores": [], "ms": [], "evals": evals})
            runs[key]["scores"].append(score)
            runs[key]["ms"].append(1e3 * r["suggest_s"] / evals)
    return runs


def best_of(runs, problem, side):
    candidates = [k for k in runs if k[0] == problem and k[1] == side]
    return min(candidates, key=lambda k: np.median(runs[k]["scores"])) if candidates else None


def main(results):
    runs = load(results)
    lines = ["| problem | sampler | median regret | IQR | ms / suggestion |", "|---|---|---:|---:|---:|"]
    summary, no_worse, better = {}, 0, 0
    for problem in PROBLEMS:
        word = "regret" if BEST[problem] is not None else "−hypervolume"
        for key in sorted(k for k in runs if k[0] == problem):
            s = np.array(runs[key]["scores"])
            q1, q3 = np.percentile(s, [25, 75])
            lines.append(f"| {problem} ({word}) | {key[1]} {key[2]} | {np.median(s):.4g} | "
                         f"{q1:.4g} – {q3:.4g} | {np.mean(runs[key]['ms']):.3g} |")
        ours, theirs = best_of(runs, problem, "gpusweep"), best_of(runs, problem, "optuna")
        if ours is None or theirs is None:
            continue
        a, b = runs[ours]["scores"], runs[theirs]["scores"]
        p, _ = mann_whitney(a, b)
        ma, mb = float(np.median(a)), float(np.median(b))
        no_worse += ma <= mb
        better += ma < mb
        summary[problem] = {"gpusweep": ours[2], "optuna": theirs[2], "gpusweep_median": ma,
                            "optuna_median": mb, "mann_whitney_p": p, "seeds": len(a),
                            "evals": runs[ours]["evals"]}
    lines.append("")
    lines.append("| problem | gpusweep's better | Optuna's better | medians | Mann–Whitney p |")
    lines.append("|---|---|---|---:|---:|")
    for problem, s in summary.items():
        lines.append(f"| {problem} | {s['gpusweep']} | {s['optuna']} | {s['gpusweep_median']:.4g} vs "
                     f"{s['optuna_median']:.4g} | {s['mann_whitney_p']:.3g} |")
    lines.append("")
    lines.append(f"gpusweep's better sampler: median no worse on {no_worse} of {len(summary)} problems, "
                 f"strictly lower on {better} (target: 4 and 2).")
    json.dump({"problems": summary, "no_worse": no_worse, "strictly_better": better},
              open(os.path.join(results, "summary.json"), "w"), indent=2)
    open(os.path.join(results, "table.md"), "w").write("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "results"))
