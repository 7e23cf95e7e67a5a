#!/usr/bin/python3
"""A toy trial whose best learning rate falls as training goes on, so no fixed setting
reaches the optimum: epoch e (0-based) of E earns exp(-((lr - best(e)) / 0.1)^2), with
best(e) falling linearly from 0.8 to 0.2. A perfect schedule earns 1 an epoch; the best
fixed lr (0.5) 0.28. The state (epoch, score) is checkpointed with gpusweep's
helper, so a PBT segment or an ASHA promotion continues where its parent stopped.
  toy_trial.py BUDGET     (lr from gpusweep.params(); E from $TOY_EPOCHS, default 18)
"""
import math
import os
import sys
import time

import gpusweep

EPOCHS = int(os.environ.get("TOY_EPOCHS", "18"))


def best_lr(epoch):
    return 0.8 - 0.6 * epoch / max(1, EPOCHS - 1)


def main():
    budget = int(sys.argv[1])
    lr = float(gpusweep.params()["lr"])
    restored = gpusweep.restore_checkpoint()
    state = {"epoch": 0, "score": 0.0}
    if restored:
        import json
        with open(restored / "state.json") as f:
            state = json.load(f)
    for epoch in range(state["epoch"], budget):
        time.sleep(0.002)  # a few ms: an epoch is not free, but the bench stays fast
        state["score"] += math.exp(-((lr - best_lr(epoch)) / 0.1) ** 2)
        state["epoch"] = epoch + 1
    gpusweep.save_checkpoint(state)
    # The mean per-epoch reward over the whole training (1 = the perfect schedule).
    gpusweep.report(epoch=budget, score=state["score"] / EPOCHS)


if __name__ == "__main__":
    main()
