"""A PBT member segment for the dashboard's browser tests: continues the checkpoint
gpusweep copied in (none in segment 0), trains up to `budget` epochs at a score rate
set by lr (best near 1e-2), reports each epoch and saves its checkpoint."""
import math
import sys

import gpusweep

budget = int(sys.argv[1])
lr = gpusweep.params()["lr"]
restored = gpusweep.restore_checkpoint()
state = {"epoch": 0, "score": 0.0}
if restored:
    import json
    state = json.load(open(restored / "state.json"))
for epoch in range(state["epoch"], budget):
    state["score"] += 1 - abs(math.log10(lr) + 2)
    gpusweep.report(epoch=epoch + 1, score=state["score"])
state["epoch"] = budget
gpusweep.save_checkpoint(state)
