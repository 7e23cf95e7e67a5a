#!/usr/bin/python3
"""The table of bench/pbt/run.sh: per method the median best score over seeds (IQR),
epochs trained, and a two-sided Mann-Whitney U test of PBT against random search and
ASHA (bench/samplers/report_cmaes.py's), PBT's slot utilisation, and the schedule
`gpusweep best` printed for each seed.
  report.py RESULTS_DIR [PREFIX]   reads PREFIXruns.jsonl and PREFIXbest_pbt_seed*.txt;
                                   writes PREFIXtable.md there (bench/pbt/fmnist.sh: fmnist_)
"""
import glob
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "samplers"))
from report_cmaes import mann_whitney  # noqa: E402


def main():
    out = sys.argv[1]
    prefix = sys.argv[2] if len(sys.argv) > 2 else ""
    runs = [json.loads(line) for line in open(os.path.join(out, prefix + "runs.jsonl"))
            if line.strip()]
    by = {m: [r for r in runs if r["method"] == m] for m in ("pbt", "random", "asha")}
    lines = ["| method | seeds | median best score | IQR | median epochs | median utilisation |",
             "|---|---|---|---|---|---|"]
    for m, rs in by.items():
        if not rs:
            continue
        best = np.array([r["best"] for r in rs])
        util = [r["utilisation"] for r in rs if "utilisation" in r]
        lines.append("| {} | {} | {:.4f} | {:.4f}-{:.4f} | {:g} | {} |".format(
            m, len(rs), np.median(best), *np.percentile(best, [25, 75]),
            np.median([r["epochs"] for r in rs]),
            "{:.1%} (min {:.1%})".format(np.median(util), min(util)) if util else "-"))
    lines.append("")
    pbt = [r["best"] for r in by["pbt"]]
    for other in ("random", "asha"):
        if pbt and by[other]:
            mw = mann_whitney(pbt, [r["best"] for r in by[other]])
            lines.append("PBT vs {}: Mann-Whitney two-sided p = {:.2g} (U = {:g}); PBT better in "
                         "median: {}".format(other, mw[0], mw[1], np.median(pbt) > np.median(
                             [r["best"] for r in by[other]])))
    lines.append("")
    lines.append("Schedules PBT found (`gpusweep best`, per seed):")
    for path in sorted(glob.glob(os.path.join(out, prefix + "best_pbt_seed*.txt")),
                       key=lambda p: int(p.rsplit("seed", 1)[1].split(".")[0])):
        segments = [line.strip() for line in open(path) if line.startswith("  epoch ")]
        for name in ("lr", "momentum"):
            values = [s.split(name + "=")[1].split()[0].rstrip(",") for s in segments
                      if name + "=" in s]
            if values:
                lines.append("- {}: {} {}".format(
                    os.path.basename(path)[len(prefix) + 9:-4], name, " -> ".join(values)))
    text = "\n".join(lines) + "\n"
    open(os.path.join(out, prefix + "table.md"), "w").write(text)
    print(text, end="")


if __name__ == "__main__":
    main()
