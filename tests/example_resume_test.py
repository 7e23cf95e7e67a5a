"""examples/fashion-mnist/train.py resumes exactly: an uninterrupted 2-epoch run and a
1-epoch run continued from its checkpoint to 2 epochs report the same epoch 2 (model,
optimizer, shuffling and dropout's random state all come back), which is what makes a
trial interrupted by Ctrl-C or a killed gpusweep rank as if nothing had happened.

Needs Debian's python3-torch and dataset-fashion-mnist (scripts/install-deps.sh
--tests); exits 77 (skipped) without them.
"""

import json
import os
import pathlib
import subprocess
import sys
import tempfile
import unittest

ROOT = pathlib.Path(__file__).resolve().parents[1]
TRAIN = ROOT / "examples" / "fashion-mnist" / "train.py"
DATA = pathlib.Path("/usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz")
# Tiny, with strong dropout so its random draws matter to the result.
ARGS = ["--train-size", "600", "--val-size", "200", "--channels", "4", "--dropout", "0.5",
        "--batch-size", "64", "--seed", "3"]


def reports(epochs, checkpoint):
    """The run's report lines (standalone mode prints them to stdout), parsed."""
    env = dict(os.environ, OMP_NUM_THREADS="1")
    env.pop("GPUSWEEP_METRICS", None)
    done = subprocess.run([sys.executable, str(TRAIN), *ARGS, "--epochs", str(epochs),
                           "--checkpoint", str(checkpoint)],
                          capture_output=True, text=True, env=env, timeout=240, check=True)
    return [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]


class ExampleResumeTest(unittest.TestCase):
    def test_a_resumed_run_reports_what_an_uninterrupted_one_does(self):
        with tempfile.TemporaryDirectory() as scratch:
            scratch = pathlib.Path(scratch)
            whole = reports(2, scratch / "whole.pt")
            first = reports(1, scratch / "cut.pt")
            resumed = reports(2, scratch / "cut.pt")
        self.assertEqual([r["epoch"] for r in whole], [1, 2])
        self.assertEqual(first, whole[:1])
        self.assertEqual(resumed, whole[1:])


if __name__ == "__main__":
    try:
        import torch  # noqa: F401
    except ImportError:
        sys.exit(77)
    if not DATA.exists():
        sys.exit(77)
    unittest.main()
