"""A CPU trial for the dashboard's browser tests: reports a learning curve of `steps`
points for the objective `score`, then, when a gate file is named, waits for it (so a
test decides when the trial finishes)."""
import json
import os
import sys
import time

x, steps, gate = float(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
trial = int(os.environ["GPUSWEEP_TRIAL_ID"])
print(f"trial {trial} starting with x={x}", flush=True)
with open(os.environ["GPUSWEEP_METRICS"], "a") as metrics:
    for step in range(steps):
        score = (1 - (x - 0.3) ** 2) * (step + 1) / steps
        metrics.write(json.dumps({"step": step, "score": score}) + "\n")
        metrics.flush()
if gate != "-" and trial > 0:
    deadline = time.time() + 300
    while not os.path.exists(f"{gate}-{trial}") and time.time() < deadline:
        time.sleep(0.05)
print(f"trial {trial} done <b>not bold</b>", flush=True)
