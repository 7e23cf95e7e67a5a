"""End to end: examples/nas-fashion-mnist/train.py under a real `gpusweep run` of a NAS
experiment, on a tiny config (two blocks of three-node cells, a few hundred images, one
epoch), on real Fashion-MNIST data.

Checks what the example's README promises: every evaluation's architecture follows the
NAS trial contract (network.py parses it), block 2's networks start with the block 1
that was confirmed, every search trial reports val_acc, and the retrain trains on the
configured data and reports test_acc on the official test set, which gpusweep shows.

Needs GPUSWEEP_BINARY (CTest sets it), Debian's python3-torch and dataset-fashion-mnist
(scripts/install-deps.sh --tests); exits 77 (skipped) without the data.
"""

import json
import os
import pathlib
import subprocess
import sys
import tempfile
import unittest

ROOT = pathlib.Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "nas-fashion-mnist"
DATA = pathlib.Path("/usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz")
sys.path.insert(0, str(EXAMPLE))

TINY_CONFIG = """\
name: nas-tiny
command: [/usr/bin/python3, "{example}/train.py", --val-size, "200", --batch-size, "32",
          --lr, "0.01"]
metric: {{name: val_acc, mode: max}}
nas:
  blocks: 2
  depth: 3
  width: 1
  max_depth: 1
  operations:
    conv: {{filters: [[6], [8]], kernel: [1, 3], activation: [relu, relu6]}}
    pooling: {{pool: [max], kernel: [3]}}
  samples_per_round: 1
  winner_samples: 1
  data_size: {{schedule: linear, init: 200, step: 100}}
  confirm: {{data_size: 300}}
  retrain: {{data_size: 1000}}
  epochs: {{search: 1, confirm: 1, retrain: 2}}
  search: tournament
  seed: 3
resources: {{cpu_slots: 2}}
timeout: 5m
output_dir: {out}
"""


class NasExampleTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.binary = os.environ["GPUSWEEP_BINARY"]
        cls.tmp = tempfile.TemporaryDirectory(prefix="nas-example-")
        cls.out = pathlib.Path(cls.tmp.name, "run")
        config = pathlib.Path(cls.tmp.name, "nas-tiny.yaml")
        config.write_text(TINY_CONFIG.format(example=EXAMPLE, out=cls.out))
        cls.run_result = subprocess.run([cls.binary, "run", str(config)], capture_output=True,
                                        text=True, timeout=600)
        cls.trials = []
        for directory in sorted(pathlib.Path(cls.out, "trials").iterdir()):
            params = json.loads((directory / "params.json").read_text())
            metrics = [json.loads(line) for line in
                       (directory / "metrics.jsonl").read_text().splitlines() if line.strip()]
            cls.trials.append((directory.name, params, metrics))

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_run_completes(self):
        self.assertEqual(self.run_result.returncode, 0,
                         self.run_result.stdout[-3000:] + self.run_result.stderr[-3000:])

    def test_every_architecture_follows_the_contract(self):
        import network
        for name, params, _ in self.trials:
            blocks = network.parse_architecture(params["architecture"])
            expected = params["nas_block"]
            self.assertEqual(len(blocks), expected, name)
            self.assertIn(params["nas_stage"], ("round", "winner", "confirm", "retrain"))

    def test_search_trials_report_val_acc_and_retrain_test_acc(self):
        stages = [params["nas_stage"] for _, params, _ in self.trials]
        self.assertEqual(stages[-1], "retrain")
        self.assertEqual(stages.count("confirm"), 2)
        for name, params, metrics in self.trials[:-1]:
            self.assertTrue(metrics and 0 <= metrics[-1]["val_acc"] <= 1, name)
            self.assertNotIn("test_acc", metrics[-1], name)
        _, retrain, metrics = self.trials[-1]
        # Chance is 0.1; 1000 images, 2 epochs are enough to be clearly above it.
        self.assertGreater(metrics[-1]["test_acc"], 0.12)
        log = (self.out / "trials" / self.trials[-1][0] / "output.log").read_text()
        self.assertIn("train=1000 val=0", log)

    def test_status_shows_the_retrained_networks_test_acc(self):
        status = subprocess.run([self.binary, "status", str(self.out)], capture_output=True,
                                text=True, timeout=60)
        self.assertEqual(status.returncode, 0, status.stderr)
        self.assertRegex(status.stdout, r"test_acc\s+0\.\d+")

    def test_block_two_starts_with_the_confirmed_block_one(self):
        confirmed = [params["architecture"]["blocks"][0] for _, params, _ in self.trials
                     if params["nas_stage"] == "confirm" and params["nas_block"] == 1]
        self.assertEqual(len(confirmed), 1)
        for name, params, _ in self.trials:
            if params["nas_block"] == 2:
                self.assertEqual(params["architecture"]["blocks"][0], confirmed[0], name)


if __name__ == "__main__":
    if not DATA.exists():
        print("skipped: needs Debian's dataset-fashion-mnist")
        sys.exit(77)
    unittest.main()
