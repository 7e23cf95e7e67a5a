#!/usr/bin/python3
"""Merges the JSON lines of gs_bench_samplers and run_optuna.py into
results/summary.json and a Markdown table (bench/README.md, "samplers").

  report.py RESULTS_DIR   reads gpusweep_run.jsonl, optuna_run.jsonl,
                          gpusweep_time.jsonl, optuna_time.jsonl there
"""
import json
import os
import sys

import numpy as np

FUNCTION_ORDER = ["branin", "hartmann6", "rosenbrock10", "ackley5", "mixed"]
ROWS = [("gpusweep", "random", "gpusweep random"), ("gpusweep", "sobol", "gpusweep sobol"),
        ("gpusweep", "tpe", "gpusweep tpe"), ("gpusweep", "tpe_mv", "gpusweep tpe multivariate"),
        ("optuna", "random", "Optuna RandomSampler"),
        ("optuna", "qmc", "Optuna QMCSampler (scrambled Sobol)"),
        ("optuna", "tpe", "Optuna TPESampler()"),
        ("optuna", "tpe_mv", "Optuna TPESampler(multivariate=True)")]
TIMED = [("gpusweep", "tpe", "gpusweep tpe"), ("gpusweep", "tpe_mv", "gpusweep tpe multivariate"),
         ("optuna", "tpe", "Optuna TPE"), ("optuna", "tpe_mv", "Optuna TPE multivariate")]
REGRET_TARGET_FUNCTIONS = 4
SPEED_TARGET = 50
SPEED_HISTORY = 1000


def read_lines(path):
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def summarize_run(line):
    if "error" in line:
        return {"error": line["error"]}
    runs = line["runs"]
    last = str(max(int(k) for k in runs[0]["regret"]))
    final = np.array([r["regret"][last] for r in runs])
    at = lambda n: float(np.median([r["regret"][n] for r in runs])) if n in runs[0]["regret"] else None
    evals = int(last)
    return {"seeds": len(runs), "evals": evals,
            "final_median": float(np.median(final)),
            "final_q25": float(np.percentile(final, 25)),
            "final_q75": float(np.percentile(final, 75)),
            "median_at_50": at("50"), "median_at_100": at("100"),
            "mean_suggest_ms": 1e3 * float(np.mean([r["suggest_s"] for r in runs])) / evals}


def fmt(x):
    return "-" if x is None else f"{x:.3g}"


def regret_table(name, summaries):
    out = [f"**{name}**", "",
           "| sampler | final regret, median | IQR (25%–75%) | median @50 | median @100 "
           "| ms/suggestion (in run) |",
           "|---|---:|---:|---:|---:|---:|"]
    for side, sampler, label in ROWS:
        s = summaries.get(name, {}).get(side, {}).get(sampler)
        if s is None or "error" in s:
            why = "not run" if s is None else s["error"]
            out.append(f"| {label} | not available ({why}) | | | | |")
            continue
        out.append(f"| {label} | {fmt(s['final_median'])} | {fmt(s['final_q25'])}–"
                   f"{fmt(s['final_q75'])} | {fmt(s['median_at_50'])} | "
                   f"{fmt(s['median_at_100'])} | {s['mean_suggest_ms']:.3g} |")
    return out + [""]


def timing_table(function, timing, sizes):
    head = " | ".join(f"history {n}" for n in sizes)
    out = [f"**Mean time per suggestion, {function}** (ms)", "",
           f"| sampler | {head} |", "|---|" + "---:|" * len(sizes)]
    for side, sampler, label in TIMED:
        cells = []
        for n in sizes:
            t = timing.get((side, sampler, n))
            cells.append("n/a" if t is None or "error" in t else f"{1e3 * t['mean_s']:.3g}")
        out.append(f"| {label} | " + " | ".join(cells) + " |")
    for sampler, label in (("tpe", "speed-up, TPE"), ("tpe_mv", "speed-up, TPE multivariate")):
        cells = [fmt(speedup(timing, sampler, n)) + "×" if speedup(timing, sampler, n) else "n/a"
                 for n in sizes]
        out.append(f"| {label} (Optuna / gpusweep) | " + " | ".join(cells) + " |")
    return out + [""]


def speedup(timing, sampler, size):
    g, o = timing.get(("gpusweep", sampler, size)), timing.get(("optuna", sampler, size))
    if not g or not o or "error" in g or "error" in o or g["mean_s"] <= 0:
        return None
    return o["mean_s"] / g["mean_s"]


def main(results):
    summaries = {}
    for line in read_lines(f"{results}/gpusweep_run.jsonl") + read_lines(f"{results}/optuna_run.jsonl"):
        summaries.setdefault(line["function"], {}).setdefault(line["side"], {})[
            line["sampler"]] = summarize_run(line)
    timing_by_function, sizes = {}, []
    for line in read_lines(f"{results}/gpusweep_time.jsonl") + read_lines(f"{results}/optuna_time.jsonl"):
        key = (line["side"], line["sampler"], line["history"])
        timing_by_function.setdefault(line["function"], {})[key] = line
        if line["history"] not in sizes:
            sizes.append(line["history"])

    # Targets.
    verdicts, wins = [], 0
    for name in FUNCTION_ORDER:
        g = summaries.get(name, {}).get("gpusweep", {}).get("tpe")
        o = summaries.get(name, {}).get("optuna", {}).get("tpe")
        if not g or not o or "error" in g or "error" in o:
            verdicts.append(f"{name}: n/a")
            continue
        ok = g["final_median"] <= o["final_median"]
        wins += ok
        verdicts.append(f"{name}: {fmt(g['final_median'])} vs {fmt(o['final_median'])} "
                        f"({'no worse' if ok else 'WORSE'})")
    speeds = {f: speedup(t, "tpe", SPEED_HISTORY) for f, t in timing_by_function.items()}
    speed_ok = bool(speeds) and all(s is not None and s >= SPEED_TARGET for s in speeds.values())

    md = ["# Sampler benchmark: gpusweep vs Optuna 3.1", ""]
    for name in FUNCTION_ORDER:
        md += regret_table(name, summaries)
    for function, t in timing_by_function.items():
        md += timing_table(function, t, sizes)
    md += ["**Targets**", "",
           f"- gpusweep tpe median final regret no worse than Optuna TPE on >= "
           f"{REGRET_TARGET_FUNCTIONS} of 5 functions: "
           f"{'MET' if wins >= REGRET_TARGET_FUNCTIONS else 'NOT MET'} ({wins}/5; "
           + "; ".join(verdicts) + ")",
           f"- gpusweep tpe >= {SPEED_TARGET}x faster per suggestion than Optuna TPE at history "
           f"{SPEED_HISTORY}: {'MET' if speed_ok else 'NOT MET'} ("
           + "; ".join(f"{f}: {fmt(s)}x" if s else f"{f}: n/a" for f, s in speeds.items()) + ")",
           ""]
    with open(f"{results}/table.md", "w") as f:
        f.write("\n".join(md))
    summary = {"regret": summaries,
               "time_per_suggestion_s": {f: {f"{k[0]} {k[1]} {k[2]}": v.get("mean_s", v.get("error"))
                                             for k, v in t.items()}
                                         for f, t in timing_by_function.items()},
               "targets": {"regret_functions_no_worse": wins,
                           "speedup_at_1000": speeds}}
    with open(f"{results}/summary.json", "w") as f:
        json.dump(summary, f, indent=1)
    print("\n".join(md))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "results"))
