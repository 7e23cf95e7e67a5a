"""The dashboard of an experiment with more trials than a page holds (10,000: the
server sends a sample, web/charted_trials.h), in Debian's headless Chromium against the
real `gpusweep serve`. The experiment is written by bench/web's web_fixture (a finished
ASHA sweep through the journal API), since running 10,000 trials would take minutes.

Run by CTest (browser_large_experiment_test); needs GPUSWEEP_BINARY,
GPUSWEEP_WEB_FIXTURE and GPUSWEEP_SCREENSHOT_DIR."""
import os
import subprocess
import tempfile
import unittest
from pathlib import Path

from selenium.webdriver.common.by import By

from dashboard_test import SHOTS, WAIT_S, Server, ServedPages, make_driver

FIXTURE = os.environ["GPUSWEEP_WEB_FIXTURE"]
TRIALS = 10050  # past the cap: a stride of 2


class LargeExperimentTest(ServedPages):
    @classmethod
    def setUpClass(cls):
        SHOTS.mkdir(parents=True, exist_ok=True)
        cls.tmp = Path(tempfile.mkdtemp(prefix="gpusweep-browser-large-"))
        subprocess.run([FIXTURE, str(cls.tmp / "runs"), "big", str(TRIALS), "3"], check=True,
                       timeout=WAIT_S)
        cls.server = Server(cls.tmp / "runs")
        cls.driver = make_driver()

    def test_the_server_sends_a_sample_and_only_its_points(self):
        summary = self.server.json("api/e/big/summary")
        self.assertEqual(summary["recorded"], TRIALS)
        self.assertEqual(summary["held"]["stride"], 2)
        self.assertEqual(summary["held"]["best"], 2000)
        trials = self.server.json("api/e/big/trials?since=0")
        numbers = {t["number"] for t in trials["trials"]}
        self.assertEqual(len(numbers), summary["held"]["held"])
        self.assertLessEqual(len(numbers), 10000)
        best = max((t for t in trials["trials"] if t["state"] == "completed"), key=lambda t: t["objective"])
        self.assertEqual(best["number"], summary["best"]["trial"])  # the best is always held
        points = self.server.json(f"api/e/big/points?after=0&generation={trials['generation']}")
        self.assertFalse(points["reset"])
        self.assertTrue(set(points["trial"]) <= numbers)
        self.assertGreater(len(set(points["trial"])), 0.9 * len(numbers))  # every trial reports
        stale = self.server.json(f"api/e/big/trials?since={trials['revision']}&generation={trials['generation'] + 1}")
        self.assertTrue(stale["reset"])  # another generation's sample: the whole one again
        self.assertEqual(len(stale["trials"]), len(numbers))

    def test_the_page_draws_the_sample_and_says_which_it_is(self):
        self.open("#/e/big")
        self.driver.save_screenshot(str(SHOTS / "large-experiment.png"))
        count = self.driver.find_element(By.ID, "trial-count").text
        held = self.server.json("api/e/big/summary")["held"]["held"]
        self.assertIn(f"{held:,} of {held:,} trials", count)  # grouped as the note is
        self.assertIn(f"the page holds {held:,} of {TRIALS:,} trials", count)
        self.assertIn("1 in 2 of the rest", count)
        self.assertIn("`gpusweep status`", count)
        notes = {panel.get_attribute("data-chart"): panel.find_element(By.CSS_SELECTOR, "p.note").text
                 for panel in self.driver.find_elements(By.CSS_SELECTOR, "section[data-chart]")}
        for title in ("Optimisation history", "Parallel coordinates", "Slices"):
            self.assertIn("the page holds", notes[title], title)
        self.assertEqual(len(self.driver.find_elements(By.CSS_SELECTOR, "table.trials tbody tr")), 100)


if __name__ == "__main__":
    unittest.main()
