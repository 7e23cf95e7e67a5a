#!/usr/bin/python3
"""Table of the GP sampler benchmark (bench/samplers/run_gp.sh; bench/README.md).

  gp_report.py RESULTS_DIR   reads gp_run.jsonl, gp_optuna_run.jsonl, gp_time.jsonl;
                             writes gp_table.md and prints it

Median simple regret over the seeds at 50 and 100 evaluations for gpusweep gp,
gpusweep tpe and Optuna's TPESampler(); the target of issue 24: gp's median lower than
both on at least 4 of the 5 functions (at each checkpoint). Also the mean time per gp
and tpe suggestion at each history size.
"""
import json
import os
import sys

import numpy as np

FUNCTION_ORDER = ["branin", "hartmann6", "rosenbrock10", "ackley5", "mixed"]
ROWS = [("gpusweep", "gp", "gpusweep gp"), ("gpusweep", "tpe", "gpusweep tpe"),
        ("optuna", "tpe", "Optuna TPESampler()")]
CHECKPOINTS = ["50", "100"]
TARGET = 4


def read_lines(path):
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def fmt(x):
    return f"{x:.3g}"


def main(results):
    lines = read_lines(os.path.join(results, "gp_run.jsonl")) + \
        read_lines(os.path.join(results, "gp_optuna_run.jsonl"))
    medians = {}  # (side, sampler, function, checkpoint) -> median
    quartiles = {}
    seconds = {}
    for line in lines:
        if "error" in line:
            continue
        for c in CHECKPOINTS:
            values = np.array([r["regret"][c] for r in line["runs"] if c in r["regret"]])
            if len(values) == 0:
                continue
            key = (line["side"], line["sampler"], line["function"], c)
            medians[key] = float(np.median(values))
            quartiles[key] = (float(np.percentile(values, 25)), float(np.percentile(values, 75)))
        seconds[(line["side"], line["sampler"], line["function"])] = float(
            np.mean([r["suggest_s"] for r in line["runs"]]))
    out = []
    for c in CHECKPOINTS:
        out.append(f"Median simple regret after {c} evaluations (20 seeds; [25th, 75th "
                   "percentile]; lower is better):\n")
        out.append("| function | " + " | ".join(label for _, _, label in ROWS) + " |")
        out.append("|---|" + "---:|" * len(ROWS))
        wins = 0
        for f in FUNCTION_ORDER:
            cells = []
            for side, sampler, _ in ROWS:
                key = (side, sampler, f, c)
                if key in medians:
                    q = quartiles[key]
                    cells.append(f"{fmt(medians[key])} [{fmt(q[0])}, {fmt(q[1])}]")
                else:
                    cells.append("-")
            gp = medians.get(("gpusweep", "gp", f, c))
            others = [medians.get((s, n, f, c)) for s, n, _ in ROWS[1:]]
            if gp is not None and all(o is not None and gp < o for o in others):
                wins += 1
                cells[0] = f"**{cells[0]}**"
            out.append(f"| {f} | " + " | ".join(cells) + " |")
        out.append(f"\ngp's median is lower than both TPEs' on {wins} of "
                   f"{len(FUNCTION_ORDER)} functions after {c} evaluations (target: "
                   f">= {TARGET}): {'met' if wins >= TARGET else 'not met'}.\n")
    out.append("Seconds spent in suggestions per 100-evaluation run (mean over seeds):\n")
    out.append("| function | " + " | ".join(label for _, _, label in ROWS) + " |")
    out.append("|---|" + "---:|" * len(ROWS))
    for f in FUNCTION_ORDER:
        out.append(f"| {f} | " + " | ".join(
            fmt(seconds[(s, n, f)]) if (s, n, f) in seconds else "-" for s, n, _ in ROWS) + " |")
    times = read_lines(os.path.join(results, "gp_time.jsonl"))
    if times:
        sizes = sorted({t["history"] for t in times})
        out.append("\nMean seconds per suggestion with a history of n completed random "
                   "trials (gp keeps at most max_model_trials = 200 of them):\n")
        out.append("| function | sampler | " + " | ".join(f"n = {n}" for n in sizes) + " |")
        out.append("|---|---|" + "---:|" * len(sizes))
        for f in sorted({t["function"] for t in times}):
            for sampler in ("gp", "tpe"):
                row = {t["history"]: t.get("mean_s") for t in times
                       if t["function"] == f and t["sampler"] == sampler}
                if row:
                    out.append(f"| {f} | {sampler} | " + " | ".join(
                        fmt(row[n]) if row.get(n) is not None else "-" for n in sizes) + " |")
    text = "\n".join(out) + "\n"
    with open(os.path.join(results, "gp_table.md"), "w") as f:
        f.write(text)
    print(text)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "bench/samplers/results")
