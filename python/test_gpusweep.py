"""Tests for gpusweep.py. Run: python3 -m unittest discover -s python"""

import contextlib
import io
import json
import os
import pathlib
import subprocess
import sys
import tempfile
import threading
import time
import unittest
from unittest import mock

import gpusweep

HERE = pathlib.Path(__file__).resolve().parent
GPUSWEEP_VARS = ("GPUSWEEP_TRIAL_ID", "GPUSWEEP_TRIAL_DIR",
                 "GPUSWEEP_PARAMS", "GPUSWEEP_METRICS", "GPUSWEEP_BUDGET",
                 "GPUSWEEP_RUNG", "GPUSWEEP_ATTEMPT", "GPUSWEEP_METRIC",
                 "GPUSWEEP_VERDICTS", "GPUSWEEP_RESOURCE", "GPUSWEEP_STOP_POINTS",
                 "GPUSWEEP_FOLD", "GPUSWEEP_FOLDS", "GPUSWEEP_CHECKPOINT_DIR")


class _Scalar:
    """Stands in for a numpy scalar / 0-d tensor: not a float, has item()."""

    def __init__(self, value):
        self.value = value

    def item(self):
        return self.value


class TrialEnvTestCase(unittest.TestCase):
    """Gives each test a trial directory and an environment like gpusweep's."""

    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self._tmp.cleanup)
        self.dir = pathlib.Path(self._tmp.name)
        self.params_path = self.dir / "params.json"
        self.metrics_path = self.dir / "metrics.jsonl"
        env = {k: v for k, v in os.environ.items() if k not in GPUSWEEP_VARS}
        patcher = mock.patch.dict(os.environ, env, clear=True)
        patcher.start()
        self.addCleanup(patcher.stop)

    def enter_trial(self, params_obj, trial_id="7"):
        self.params_path.write_text(json.dumps(params_obj), encoding="utf-8")
        os.environ.update({
            "GPUSWEEP_TRIAL_ID": trial_id,
            "GPUSWEEP_TRIAL_DIR": str(self.dir),
            "GPUSWEEP_PARAMS": str(self.params_path),
            "GPUSWEEP_METRICS": str(self.metrics_path),
        })

    def metric_lines(self):
        return [json.loads(line) for line in
                self.metrics_path.read_text(encoding="utf-8").splitlines()]


class ParamsTest(TrialEnvTestCase):
    def test_outside_gpusweep_is_empty_dict(self):
        self.assertEqual(gpusweep.params(), {})
        self.assertFalse(gpusweep.in_gpusweep())

    def test_reads_params_object_with_structured_values(self):
        given = {"lr": 0.05, "net": {"bn": True, "activation": [{"type": "relu"}]},
                 "name": "a"}
        self.enter_trial(given)
        self.assertEqual(gpusweep.params(), given)
        self.assertTrue(gpusweep.in_gpusweep())

    def test_non_object_params_is_an_error(self):
        self.enter_trial([1, 2])
        with self.assertRaisesRegex(ValueError, "expected an object"):
            gpusweep.params()

    def test_missing_params_file_is_an_error(self):
        self.enter_trial({})
        self.params_path.unlink()
        with self.assertRaises(OSError):
            gpusweep.params()


class TrialInfoTest(TrialEnvTestCase):
    def test_inside_gpusweep(self):
        self.enter_trial({}, trial_id="12")
        self.assertEqual(gpusweep.trial_id(), 12)
        self.assertEqual(gpusweep.trial_dir(), self.dir)

    def test_outside_gpusweep(self):
        self.assertIsNone(gpusweep.trial_id())
        self.assertEqual(gpusweep.trial_dir(), pathlib.Path.cwd())


class ReportTest(TrialEnvTestCase):
    def test_appends_one_line_per_call(self):
        self.enter_trial({})
        gpusweep.report(epoch=0, val_acc=0.5)
        gpusweep.report(epoch=1, val_acc=0.75, note="ok")
        self.assertEqual(self.metric_lines(),
                         [{"epoch": 0, "val_acc": 0.5},
                          {"epoch": 1, "val_acc": 0.75, "note": "ok"}])

    def test_keeps_lines_already_in_file(self):
        self.enter_trial({})
        self.metrics_path.write_text('{"loss": 1}\n', encoding="utf-8")
        gpusweep.report(loss=2)
        self.assertEqual(self.metric_lines(), [{"loss": 1}, {"loss": 2}])

    def test_mapping_for_keys_that_are_not_identifiers(self):
        self.enter_trial({})
        gpusweep.report({"val/acc": 0.9, "step": 1}, step=2)
        self.assertEqual(self.metric_lines(), [{"val/acc": 0.9, "step": 2}])

    def test_converts_objects_with_item(self):
        self.enter_trial({})
        gpusweep.report(loss=_Scalar(0.25), hist=[_Scalar(3)])
        self.assertEqual(self.metric_lines(), [{"loss": 0.25, "hist": [3]}])

    def test_non_finite_values_raise_and_write_nothing(self):
        self.enter_trial({})
        for bad in (float("nan"), float("inf"), -float("inf"),
                    [1.0, float("nan")], {"x": float("inf")}, _Scalar(float("nan"))):
            with self.subTest(bad=bad):
                with self.assertRaisesRegex(ValueError, "NaN or infinity"):
                    gpusweep.report(epoch=1, loss=bad)
        self.assertFalse(self.metrics_path.exists())

    def test_unserializable_value_is_type_error(self):
        self.enter_trial({})
        with self.assertRaises(TypeError):
            gpusweep.report(loss=object())
        with self.assertRaises(TypeError):
            gpusweep.report({1: 0.5})
        self.assertFalse(self.metrics_path.exists())

    def test_nothing_to_report_is_an_error(self):
        self.enter_trial({})
        with self.assertRaises(ValueError):
            gpusweep.report()

    def test_outside_gpusweep_prints_to_stdout(self):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            should_stop = gpusweep.report(epoch=3, val_acc=0.5)
        self.assertFalse(should_stop)
        self.assertEqual(json.loads(out.getvalue()), {"epoch": 3, "val_acc": 0.5})
        self.assertFalse(self.metrics_path.exists())


class SchedulerHelpersTest(TrialEnvTestCase):
    def test_step_is_written_first(self):
        self.enter_trial({})
        self.assertFalse(gpusweep.report(val_acc=0.5, step=4))
        self.assertEqual(self.metrics_path.read_text(encoding="utf-8"),
                         '{"step":4,"val_acc":0.5}\n')

    def test_attempt(self):
        self.assertEqual(gpusweep.attempt(), 1)
        os.environ["GPUSWEEP_ATTEMPT"] = "3"
        self.assertEqual(gpusweep.attempt(), 3)

    def test_fold_and_folds(self):
        self.assertIsNone(gpusweep.fold())
        self.assertIsNone(gpusweep.folds())
        os.environ.update({"GPUSWEEP_FOLD": "3", "GPUSWEEP_FOLDS": "5"})
        self.assertEqual(gpusweep.fold(), 3)
        self.assertEqual(gpusweep.folds(), 5)
        os.environ["GPUSWEEP_FOLD"] = "x"
        with self.assertRaises(ValueError):
            gpusweep.fold()

    def test_budget_and_rung(self):
        self.assertIsNone(gpusweep.budget())
        self.assertIsNone(gpusweep.rung())
        os.environ.update({"GPUSWEEP_BUDGET": "9", "GPUSWEEP_RUNG": "2"})
        self.assertEqual(gpusweep.budget(), 9)
        self.assertIsInstance(gpusweep.budget(), int)
        self.assertEqual(gpusweep.rung(), 2)
        os.environ["GPUSWEEP_BUDGET"] = "2.5"
        self.assertEqual(gpusweep.budget(), 2.5)

    def test_stop_request_sets_a_flag_instead_of_ending_the_process(self):
        script = ("import os, signal, time, gpusweep\n"
                  "gpusweep.handle_stop()\n"
                  "assert not gpusweep.stop_requested()\n"
                  "os.kill(os.getpid(), signal.SIGTERM)\n"
                  "deadline = time.monotonic() + 5\n"
                  "while not gpusweep.stop_requested() and time.monotonic() < deadline:\n"
                  "    time.sleep(0.01)\n"
                  "print('saved checkpoint' if gpusweep.stop_requested() else 'no flag')\n")
        env = dict(os.environ, PYTHONPATH=str(HERE))
        done = subprocess.run([sys.executable, "-c", script], env=env,
                              capture_output=True, text=True, timeout=30)
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertEqual(done.stdout, "saved checkpoint\n")


class VerdictTest(TrialEnvTestCase):
    """report() waits for gpusweep's answer at a stop point (docs/protocol.md)."""

    def setUp(self):
        super().setUp()
        self.enter_trial({})
        self.verdicts_path = self.dir / "verdicts.jsonl"
        self.verdicts_path.write_text("", encoding="utf-8")
        os.environ.update({"GPUSWEEP_VERDICTS": str(self.verdicts_path),
                           "GPUSWEEP_RESOURCE": "epoch", "GPUSWEEP_METRIC": "acc",
                           "GPUSWEEP_STOP_POINTS": "1,3"})
        for name, value in (("_stopped_by_verdict", False), ("_verdicts_read", 0),
                            ("_verdict_answers", []), ("_passed_points", float("-inf"))):
            patcher = mock.patch.object(gpusweep, name, value)
            patcher.start()
            self.addCleanup(patcher.stop)

    def answer_when_reported(self, answers):
        """Plays gpusweep: answers the n-th judged line with answers[n] once it appears."""
        def play():
            answered = 0
            deadline = time.monotonic() + 20
            while answered < len(answers) and time.monotonic() < deadline:
                lines = (self.metrics_path.read_text(encoding="utf-8").splitlines()
                         if self.metrics_path.exists() else [])
                judged = [json.loads(l) for l in lines if '"acc"' in l]
                while answered < min(len(judged), len(answers)):
                    line = {"resource": judged[answered]["epoch"],
                            "verdict": answers[answered]}
                    with open(self.verdicts_path, "a", encoding="utf-8") as f:
                        f.write(json.dumps(line) + "\n")
                    answered += 1
                time.sleep(0.01)
        thread = threading.Thread(target=play, daemon=True)
        thread.start()
        self.addCleanup(thread.join)

    def test_waits_at_stop_points_and_returns_the_verdict(self):
        self.answer_when_reported(["continue", "continue", "stop"])
        self.assertFalse(gpusweep.report(epoch=1, acc=0.5))  # rung 1: waits, continue
        self.assertFalse(gpusweep.report(epoch=2, acc=0.6))  # between rungs: no wait
        self.assertFalse(gpusweep.report(loss=0.1))          # not judged: no wait
        self.assertTrue(gpusweep.report(epoch=3, acc=0.6))   # rung 3: stop
        self.assertTrue(gpusweep.should_stop())

    def test_no_answer_continues_after_the_timeout(self):
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            self.assertFalse(gpusweep.report(epoch=1, acc=0.5, timeout=0.05))
        self.assertIn("no verdict for epoch=1 within 0.05s; continuing", err.getvalue())

    def test_wait_false_never_waits(self):
        started = time.monotonic()
        self.assertFalse(gpusweep.report(epoch=1, acc=0.5, wait=False, timeout=30))
        self.assertLess(time.monotonic() - started, 25)

    def test_without_stop_points_every_judged_line_waits(self):
        os.environ["GPUSWEEP_STOP_POINTS"] = ""  # the median rule: any report may stop
        self.answer_when_reported(["continue", "stop"])
        self.assertFalse(gpusweep.report(epoch=1, acc=0.5, timeout=20))
        self.assertTrue(gpusweep.report(epoch=2, acc=0.4, timeout=20))


class ChildProcessTest(TrialEnvTestCase):
    """A trial as gpusweep runs it: separate process, env vars, PYTHONPATH."""

    def test_trial_process_reads_params_and_reports(self):
        self.enter_trial({"lr": 0.1, "epochs": 3})
        os.environ["PYTHONPATH"] = str(HERE)
        script = ("import gpusweep\n"
                  "p = gpusweep.params()\n"
                  "for e in range(p['epochs']):\n"
                  "    gpusweep.report(epoch=e, loss=p['lr'] * (e + 1),"
                  " trial=gpusweep.trial_id())\n")
        result = subprocess.run([sys.executable, "-c", script], cwd=self.dir,
                                capture_output=True, text=True, timeout=60,
                                check=False)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(result.stdout, "")
        lines = self.metric_lines()
        self.assertEqual([line["epoch"] for line in lines], [0, 1, 2])
        self.assertAlmostEqual(lines[-1]["loss"], 0.3)
        self.assertEqual(lines[0]["trial"], 7)


class CheckpointTest(TrialEnvTestCase):
    def test_save_then_restore_round_trips_state_and_files(self):
        self.enter_trial({}, trial_id="5")
        os.environ["GPUSWEEP_BUDGET"] = "4"
        self.assertIsNone(gpusweep.restore_checkpoint())
        saved = gpusweep.save_checkpoint(
            {"epoch": 4}, write=lambda d: (d / "model.bin").write_bytes(b"w"))
        self.assertEqual(saved, self.dir / "checkpoint")
        restored = gpusweep.restore_checkpoint()
        self.assertEqual(restored, saved)
        self.assertEqual(json.loads((restored / "state.json").read_text()), {"epoch": 4})
        self.assertEqual((restored / "model.bin").read_bytes(), b"w")
        marker = json.loads((restored / gpusweep.CHECKPOINT_MARKER).read_text())
        self.assertEqual(marker, {"trial": 5, "resource": 4})

    def test_a_second_save_replaces_the_first_whole_and_leaves_nothing_beside(self):
        self.enter_trial({})
        gpusweep.save_checkpoint({"epoch": 1}, write=lambda d: (d / "old.bin").write_bytes(b"1"))
        gpusweep.save_checkpoint({"epoch": 2}, resource=2)
        path = gpusweep.checkpoint_dir()
        self.assertFalse((path / "old.bin").exists())
        self.assertEqual(json.loads((path / "state.json").read_text()), {"epoch": 2})
        self.assertEqual(sorted(p.name for p in self.dir.iterdir() if "checkpoint" in p.name),
                         ["checkpoint"])

    def test_checkpoint_dir_follows_the_environment_and_needs_the_marker(self):
        self.enter_trial({})
        elsewhere = self.dir / "ckpt"
        os.environ["GPUSWEEP_CHECKPOINT_DIR"] = str(elsewhere)
        self.assertEqual(gpusweep.checkpoint_dir(), elsewhere)
        elsewhere.mkdir()
        (elsewhere / "model.bin").write_bytes(b"half")  # no marker: not a checkpoint
        self.assertIsNone(gpusweep.restore_checkpoint())

    def test_a_failing_writer_leaves_the_old_checkpoint(self):
        self.enter_trial({})
        gpusweep.save_checkpoint({"epoch": 1})

        def fail(_directory):
            raise OSError("disk full")
        with self.assertRaises(OSError):
            gpusweep.save_checkpoint({"epoch": 2}, write=fail)
        state = gpusweep.restore_checkpoint() / "state.json"
        self.assertEqual(json.loads(state.read_text()), {"epoch": 1})


if __name__ == "__main__":
    unittest.main()
