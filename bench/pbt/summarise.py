#!/usr/bin/python3
"""One run of bench/pbt/run.sh as a JSON line: the best score, the epochs trained and,
from the journal's trial times (`gpusweep export --format json`), slot utilisation.
  summarise.py METHOD SEED TRIALS_JSON
Epochs: a PBT segment trains from its segment's start to its budget (it continues its
parent's checkpoint); an ASHA trial ends at its last budget (promotions resume); a
random trial trains 18. Utilisation = busy slot-seconds (each trial's start to end) /
(2 slots x (last end - first start)); for ASHA only the last attempt's times are
exported, so it is given for PBT and random only.
"""
import json
import sys

SLOTS, INTERVAL, EPOCHS = 2, 2, 18


def main():
    method, seed, path = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    rows = json.load(open(path))
    done = [r for r in rows if r["state"] == "completed"]
    best = max(r["objective"] for r in done)
    if method == "pbt":
        epochs = sum(r["budget"] - INTERVAL * r["rung"] for r in done)
    elif method == "asha":
        epochs = sum(r["metric.epoch"] for r in rows if r.get("metric.epoch") is not None)
    else:
        epochs = EPOCHS * len(done)
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
        line["best_lr_final"] = max(done, key=lambda r: r["objective"])["param.lr"]
    print(json.dumps(line))


if __name__ == "__main__":
    main()
