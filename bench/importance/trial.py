"""A trial of the importance comparison: computes its sweep's objective from its params."""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from sweeps import SWEEPS  # noqa: E402

with open(os.environ["GPUSWEEP_PARAMS"]) as f:
    params = json.load(f)
value = SWEEPS[sys.argv[1]]["objective"](params)
with open(os.environ["GPUSWEEP_METRICS"], "a") as f:
    f.write(json.dumps({"objective": value}) + "\n")
