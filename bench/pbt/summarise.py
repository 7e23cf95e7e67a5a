#!/usr/bin/python3
"""One run of bench/pbt/run.sh as a JSON line: the best score, the epochs trained and,
from the journal's trial times (`gpusweep export --format json`), slot utilisation.
  summarise.py METHOD SEED TRIALS_JSON [--epochs 18] [--interval 2] [--final-only]
Epochs: a PBT segment trains from its segment's start to its budget (it continues its
parent's checkpoint); an ASHA trial ends at its last budget (promotions resume); a
random trial trains --epochs. The best score is of every completed trial, or with
--final-only of those that trained the whole --epochs (PBT's last segments, ASHA's top
rung; the toy's score is already a whole-training mean, Fashion-MNIST's val_acc is not). Utilisation = busy slot-seconds (each trial's start to end) /
(2 slots x (last end - first start)); for ASHA only the last attempt's times are
exported, so it is given for PBT and random only.
"""
import argparse
import json

SLOTS = 2


def main():
    p = argparse.ArgumentParser()
    p.add_argument("method")
    p.add_argument("seed", type=int)
    p.add_argument("trials_json")
    p.add_argument("--epochs", type=float, default=18)
    p.add_argument("--interval", type=float, default=2)
    p.add_argument("--final-only", action="store_true")
    args = p.parse_args()
    method, seed = args.method, args.seed
    rows = json.load(open(args.trials_json))
    done = [r for r in rows if r["state"] == "completed"]
    scored = done
    if args.final_only and method != "random":
        scored = [r for r in done if r.get("budget") == args.epochs]
    best = max(r["objective"] for r in scored)
    if method == "pbt":
        epochs = sum(r["budget"] - args.interval * r["rung"] for r in done)
    elif method == "asha":
        epochs = sum(r["metric.epoch"] for r in rows if r.get("metric.epoch") is not None)
    else:
        epochs = args.epochs * len(done)
    line = {"method": method, "seed": seed, "best": best, "epochs": epochs,
            "trials": len(rows), "completed": len(done),
            "states": sorted({r["state"] for r in rows})}
    if method != "asha":
        start = min(r["start_time"] for r in done)
        end = max(r["end_time"] for r in done)
        busy = sum(r["end_time"] - r["start_time"] for r in done)
        line["utilisation"] = busy / (SLOTS * (end - start))
        line["makespan_s"] = end - start
    if method == "pbt":
        winner = max(scored, key=lambda r: r["objective"])
        line["best_lr_final"] = winner["param.lr"]
        if "param.momentum" in winner:
            line["best_momentum_final"] = winner["param.momentum"]
    print(json.dumps(line))


if __name__ == "__main__":
    main()
