"""The dashboard in a real browser: Debian's headless Chromium driven by Selenium,
against the real gpusweep binary serving real experiments (finished and running).

Run by CTest (browser_dashboard_test); needs GPUSWEEP_BINARY and
GPUSWEEP_SCREENSHOT_DIR (where each page's screenshot is written)."""
import json
import os
import re
import shutil
import signal
import subprocess
import tempfile
import time
import unittest
import urllib.request
from pathlib import Path

from selenium import webdriver
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

BINARY = os.environ["GPUSWEEP_BINARY"]
SHOTS = Path(os.environ["GPUSWEEP_SCREENSHOT_DIR"])
HERE = Path(__file__).resolve().parent
EVIL = "<img src=x onerror=window.pwned=1>"
# Generous: the test machine is shared and loaded; nothing here measures speed.
WAIT_S = 120

SWEEP = """name: {name}
command: [/usr/bin/python3, "{trial}", "{{{{x}}}}", "{steps}", "{gate}"]
metric: {{name: score, mode: max}}
sampler: {{type: random, trials: {trials}, seed: 3}}
search_space:
  x: {{type: uniform, low: 0.0, high: 1.0}}
  opt: {{type: choice, values: [sgd, "{evil}"]}}
  width: {{type: choice, values: [16, 32, 64]}}
  seed: {{type: constant, value: 7}}
resources: {{cpu_slots: {slots}}}
"""


# Budgeted ASHA over 8 configurations, rungs at epochs 1, 2 and 4: the losers of each
# rung are paused and end pruned there, so the learning curves have rungs and stops.
ASHA_SWEEP = """name: asha
command: [/bin/sh, -c, 'for e in $(seq 1 {{budget}}); do echo "{\\"epoch\\": $e, \\"score\\": $(({{a}} * e))}" >> "$GPUSWEEP_METRICS"; done']
metric: {name: score, mode: max}
sampler: {type: grid}
scheduler: {type: asha, min_resource: 1, max_resource: 4, reduction_factor: 2}
search_space:
  a: {type: int, low: 1, high: 8}
resources: {cpu_slots: 2}
"""

# The intermediate-values chart as drawn: its rung lines and pruned markers from the
# ECharts option, each located on the canvas, and whether the pixels there have the
# rung colour (#7a4fb8, dashed: some pixels of the column) or the marker colour
# (#d9534f) — drawn, not only configured.
CURVES_DRAWN = """
const chart = window.gpusweepChart('Intermediate values');
const option = chart.getOption();
const canvas = chart.getDom().querySelector('canvas');
const ctx = canvas.getContext('2d');
const scale = canvas.width / chart.getWidth();
const near = (x, y, rgb, radius) => {
  const px = ctx.getImageData(Math.round(x * scale) - radius, Math.round(y * scale) - radius,
                              2 * radius + 1, 2 * radius + 1).data;
  for (let i = 0; i < px.length; i += 4)
    if (Math.abs(px[i] - rgb[0]) < 40 && Math.abs(px[i + 1] - rgb[1]) < 40 && Math.abs(px[i + 2] - rgb[2]) < 40 && px[i + 3] > 100) return true;
  return false;
};
const grid = chart.getModel().getComponent('grid').coordinateSystem.getRect();
const rungs = (option.series[2].markLine || {data: []}).data.map((d) => d.xAxis);
const rungDrawn = rungs.map((r) => {
  const x = chart.convertToPixel({xAxisIndex: 0}, r);
  for (let y = grid.y + 2; y < grid.y + grid.height - 2; y += 3) if (near(x, y, [122, 79, 184], 1)) return true;
  return false;
});
const stops = option.series[1].data;
const stopDrawn = stops.map((s) => {
  const [x, y] = chart.convertToPixel({xAxisIndex: 0, yAxisIndex: 0}, [s[0], s[1]]);
  return near(x, y, [217, 83, 79], 2);
});
return {rungs, rungDrawn, stops: stops.map((s) => [s[0], s[2]]), stopDrawn};"""

# The slices chart (one chart, a grid per parameter): for each parameter, its name and
# whether each of its points has the point colour (#2f7ed8) on the canvas where it lies.
SLICES_DRAWN = """
const chart = window.gpusweepChart('Slices');
const canvas = chart.getDom().querySelector('canvas');
const ctx = canvas.getContext('2d');
const scale = canvas.width / chart.getWidth();
return chart.getOption().series.map((series, i) => {
  const data = chart.getModel().getSeriesByIndex(i).getData();
  const drawn = [];
  for (let k = 0; k < data.count(); k += 1) {
    const [x, y] = chart.convertToPixel({seriesIndex: i}, [data.get('x', k), data.get('objective', k)]);
    const px = ctx.getImageData(Math.round(x * scale) - 1, Math.round(y * scale) - 1, 3, 3).data;
    let found = false;
    for (let j = 0; j < px.length; j += 4)
      if (Math.abs(px[j] - 47) < 40 && Math.abs(px[j + 1] - 126) < 40 && Math.abs(px[j + 2] - 216) < 40 && px[j + 3] > 100) found = true;
    drawn.push(found);
  }
  return [series.name, drawn];
});"""


# A sweep of 4 trials running `script` (a shell line) over x.
EMPTY_SWEEP = """name: {name}
command: [/bin/sh, -c, '{script}']
metric: {{name: score, mode: max}}
sampler: {{type: random, trials: 4, seed: 1}}
max_failures: 10
search_space:
  x: {{type: uniform, low: 0.0, high: 1.0}}
resources: {{cpu_slots: 2}}
"""


# A NAS tournament as a dry run (docs/nas.md: scores drawn, no training): 5 topologies,
# rounds 5 -> 3 -> 2 -> 1, a winner sample, a confirm and a retrain.
NAS_SWEEP = """name: tour
command: [python3, train.py]
metric: {name: acc, mode: max}
resources: {gpus: none, cpu_slots: 2}
nas:
  depth: 4
  width: 1
  operations:
    conv: {filters: [8, 16], kernel: [1, 3]}
    pooling: {pool: [avg, max]}
  samples_per_round: 1
  winner_samples: 1
  data_size: {init: 100, step: 100}
  confirm: {data_size: 1000}
  seed: 3
  dry_run: true
"""

# The same tournament run for real with a constraint (docs/nas.md, "Constraints"): each
# evaluation reports acc 0.1, 0.3, ... 0.9 and size_k 0, 10, ... 40 by topology, so under
# size_k <= 25 topologies 3 and 4, the best by acc, are infeasible and out in round 1.
NAS_CONSTRAINED_SWEEP = NAS_SWEEP.replace("name: tour", "name: tourc").replace(
    "  dry_run: true\n", "").replace(
    "command: [python3, train.py]",
    "constraints: [{metric: size_k, max: 25}]\n"
    "command: [/bin/sh, -c, 't={{nas_topology}}; [ \"$t\" -lt 0 ] && t=0; "
    "echo \"{\\\"acc\\\": 0.$((t * 2 + 1)), \\\"size_k\\\": $((t * 10))}\" >> \"$GPUSWEEP_METRICS\"']")


# Population-based training, 4 members x 4 segments, synchronous (a generation ranks
# all 4 members: the bottom one copies the top one's checkpoint, an exploit).
PBT_SWEEP = """name: pbt
command: [/usr/bin/python3, "{trial}", "{{{{budget}}}}"]
metric: {{name: score, mode: max}}
sampler: {{type: random, trials: 4, seed: 11}}
search_space:
  lr: {{type: loguniform, low: 1.0e-4, high: 1}}
scheduler:
  type: pbt
  resource: epoch
  perturbation_interval: 1
  max_resource: 4
  population: 4
  quantile: 0.25
  synchronous: true
  explore: {{resample_probability: 0.25, factors: [0.8, 1.2]}}
resources: {{gpus: none, cpu_slots: 2}}
"""

# Several objectives and a constraint (f1 = x, f2 = (1 - x)^2 + y, c = x + y <= 1.2;
# with three objectives also f3 = y), random search: a front, dominated and
# infeasible trials.
MO_SWEEP = """name: {name}
command: [/bin/sh, -c, 'echo "{{\\"f1\\": {{{{x}}}}, \\"f2\\": $(awk "BEGIN {{ print (1 - {{{{x}}}}) * (1 - {{{{x}}}}) + {{{{y}}}} }}"), \\"f3\\": {{{{y}}}}, \\"c\\": $(awk "BEGIN {{ print {{{{x}}}} + {{{{y}}}} }}")}}" >> "$GPUSWEEP_METRICS"']
metrics:
{metrics}
constraints:
  - {{metric: c, max: 1.2}}
sampler: {{type: random, trials: 16, seed: 5}}
search_space:
  x: {{type: uniform, low: 0, high: 1}}
  y: {{type: uniform, low: 0, high: 1}}
resources: {{gpus: none, cpu_slots: 2}}
"""


def write_mo_sweep(root, name, objectives):
    metrics = "\n".join(f"  - {{name: {m}, mode: min}}" for m in objectives)
    path = root / f"{name}.yaml"
    path.write_text(MO_SWEEP.format(name=name, metrics=metrics))
    return path


def write_sweep(root, name, trials, steps, gate="-", slots=2):
    path = root / f"{name}.yaml"
    path.write_text(SWEEP.format(name=name, trial=HERE / "trial.py", steps=steps, gate=gate,
                                 trials=trials, evil=EVIL, slots=slots))
    return path


def make_driver():
    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--window-size=1400,1800"):
        options.add_argument(arg)
    service = Service(shutil.which("chromedriver") or "/usr/bin/chromedriver")
    driver = webdriver.Chrome(service=service, options=options)
    driver.set_page_load_timeout(WAIT_S)
    return driver


class Server:
    """`gpusweep serve --port 0` on a directory; reads the URL it prints."""

    def __init__(self, *args):
        self.process = subprocess.Popen([BINARY, "serve", "--port", "0", *map(str, args)],
                                        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        line = self.process.stdout.readline()
        match = re.search(r"(http://\S+)", line)
        if not match:
            self.process.kill()
            raise AssertionError(f"serve printed no URL: {line!r}")
        self.url = match.group(1)

    def json(self, path):
        with urllib.request.urlopen(self.url + path, timeout=WAIT_S) as response:
            return json.load(response)

    def stop(self):
        self.process.terminate()
        self.process.wait(timeout=WAIT_S)
        self.process.stdout.close()


class ServedPages(unittest.TestCase):
    """What a test class of pages shares: its setUpClass makes cls.tmp, cls.server and
    cls.driver; this ends them, and opens a page until its charts are drawn."""

    @classmethod
    def tearDownClass(cls):
        cls.driver.quit()
        cls.server.stop()
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def open(self, fragment):
        self.driver.get(self.server.url.split("?")[0] + fragment)
        WebDriverWait(self.driver, WAIT_S).until(
            lambda d: d.execute_script("return document.body.dataset.chartsDrawn") == "true")


class DashboardTest(ServedPages):
    @classmethod
    def setUpClass(cls):
        SHOTS.mkdir(parents=True, exist_ok=True)
        cls.tmp = Path(tempfile.mkdtemp(prefix="gpusweep-browser-"))
        cls.runs = cls.tmp / "runs"
        sweep = write_sweep(cls.tmp, "finished", trials=12, steps=8)
        subprocess.run([BINARY, "run", str(sweep), "--dir", str(cls.runs / "finished")],
                       check=True, stdout=subprocess.DEVNULL, timeout=WAIT_S)
        asha = cls.tmp / "asha.yaml"
        asha.write_text(ASHA_SWEEP)
        subprocess.run([BINARY, "run", str(asha), "--dir", str(cls.runs / "asha")],
                       check=True, stdout=subprocess.DEVNULL, timeout=WAIT_S)
        nas = cls.tmp / "nas.yaml"
        nas.write_text(NAS_SWEEP)
        subprocess.run([BINARY, "run", str(nas), "--dir", str(cls.runs / "tour")],
                       check=True, stdout=subprocess.DEVNULL, timeout=WAIT_S)
        nasc = cls.tmp / "nasc.yaml"
        nasc.write_text(NAS_CONSTRAINED_SWEEP)
        subprocess.run([BINARY, "run", str(nasc), "--dir", str(cls.runs / "tourc")],
                       check=True, stdout=subprocess.DEVNULL, timeout=WAIT_S)
        pbt = cls.tmp / "pbt.yaml"
        pbt.write_text(PBT_SWEEP.format(trial=HERE / "pbt_trial.py"))
        subprocess.run([BINARY, "run", str(pbt), "--dir", str(cls.runs / "pbt")],
                       check=True, stdout=subprocess.DEVNULL, timeout=WAIT_S)
        for name, objectives in (("mo", ["f1", "f2"]), ("mo3", ["f1", "f2", "f3"])):
            subprocess.run([BINARY, "run", str(write_mo_sweep(cls.tmp, name, objectives)),
                            "--dir", str(cls.runs / name)],
                           check=True, stdout=subprocess.DEVNULL, timeout=WAIT_S)
        # Pages with nothing to draw: every trial fails before reporting anything, or
        # reports its final value only (no step).
        for name, script in (("failing", "exit 3"), ("final-only", 'echo "{\\"score\\": {{x}}}" >> "$GPUSWEEP_METRICS"')):
            config = cls.tmp / f"{name}.yaml"
            config.write_text(EMPTY_SWEEP.format(name=name, script=script))
            subprocess.run([BINARY, "run", str(config), "--dir", str(cls.runs / name)],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=WAIT_S)
        cls.server = Server(cls.runs)
        cls.driver = make_driver()

    def rows(self):
        return self.driver.find_elements(By.CSS_SELECTOR, "table.trials tbody tr")

    def charts_with_pixels(self):
        """Titles of chart panels whose canvas has at least one painted pixel."""
        return self.driver.execute_script("""
            return [...document.querySelectorAll('section[data-chart]')].filter((panel) => {
              const canvas = panel.querySelector('canvas');
              if (!canvas || !canvas.width) return false;
              const pixels = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
              for (let i = 3; i < pixels.length; i += 4) if (pixels[i] !== 0) return true;
              return false;
            }).map((panel) => panel.dataset.chart);""")

    def shoot(self, name):
        path = SHOTS / f"{name}.png"
        self.driver.save_screenshot(str(path))
        self.assertGreater(path.stat().st_size, 10000)

    def test_experiments_page_lists_the_experiments(self):
        self.open("#/")
        rows = {r.get_attribute("data-experiment"): r.text for r in self.rows()}
        self.assertEqual(set(rows), {"asha", "finished", "tour", "tourc", "failing", "final-only", "pbt", "mo",
                                     "mo3"})
        self.assertIn("12 / 12", rows["finished"])
        self.shoot("experiments")

    def test_experiment_page_has_every_trial_and_every_chart_drawn(self):
        self.open("#/e/finished")
        self.assertEqual(len(self.rows()), 12)
        WebDriverWait(self.driver, WAIT_S).until(
            lambda d: "Parameter importance (fANOVA)" in self.charts_with_pixels())
        drawn = set(self.charts_with_pixels())
        for title in ("Optimisation history", "Intermediate values", "Parallel coordinates",
                      "Slices", "Parameter importance (fANOVA)"):
            self.assertIn(title, drawn)
        # One slice per parameter, each of the 12 completed trials drawn in each.
        slices = dict(self.driver.execute_script(SLICES_DRAWN))
        self.assertEqual(set(slices), {"x", "opt", "width"})
        for name, points in slices.items():
            self.assertEqual(points, [True] * 12, name)
        # The parameter value with markup in it is shown as text, never run.
        self.assertIn(EVIL, self.driver.find_element(By.ID, "trials").text)
        self.assertIsNone(self.driver.execute_script("return window.pwned"))
        self.shoot("experiment")

    def test_learning_curves_show_the_rungs_and_where_pruned_trials_stopped(self):
        self.open("#/e/asha")
        summary = self.server.json("api/e/asha/summary")
        self.assertEqual(summary["rungs"], [1, 2, 4])
        trials = self.server.json("api/e/asha/trials")["trials"]
        pruned = {t["number"] for t in trials if t["state"] == "pruned"}
        self.assertTrue(pruned)  # ASHA paused the losers; the run's end settled them
        drawn = self.driver.execute_script(CURVES_DRAWN)
        self.assertEqual(drawn["rungs"], [1, 2, 4])
        self.assertEqual(drawn["rungDrawn"], [True, True, True])
        # One marker per pruned trial, at the rung it stopped at.
        self.assertEqual(sorted(t for _, t in drawn["stops"]), sorted(pruned))
        for epoch, _ in drawn["stops"]:
            self.assertIn(epoch, (1, 2))
        self.assertTrue(all(drawn["stopDrawn"]), drawn)
        self.shoot("asha")

    def test_a_pruned_trials_page_names_the_rung_its_decisions_name(self):
        trials = self.server.json("api/e/asha/trials")["trials"]
        pruned = [t["number"] for t in trials if t["state"] == "pruned"]
        self.assertTrue(pruned)
        for number in pruned:
            self.open(f"#/e/asha/t/{number}")
            decisions = self.driver.find_element(By.CSS_SELECTOR, "ul.decisions").text
            rungs = re.findall(r"rung (\d+) \(epoch (\d+)\)", decisions)
            self.assertTrue(rungs, decisions)
            header = self.driver.find_element(By.CSS_SELECTOR, ".summary").text
            rung, epoch = rungs[-1]
            self.assertIn(f"last judged at rung {rung} (epoch {epoch})", header)
            self.assertNotIn(" (rung ", header)

    def test_nas_page_says_which_topologies_broke_a_constraint(self):
        self.open("#/e/tourc")
        nas = self.server.json("api/e/tourc/summary")["nas"]
        block = nas["blocks"][0]
        self.assertEqual(block["winner"], 2)  # 4 and 3 scored higher but were infeasible
        panel = self.driver.find_element(By.ID, "nas")
        rows = {int(r.get_attribute("data-topology")): r
                for r in panel.find_elements(By.CSS_SELECTOR, ".nas-block tbody tr")}
        for topology, violation in ((3, 5), (4, 15)):
            cells = rows[topology].find_elements(By.TAG_NAME, "td")
            self.assertEqual(cells[1].text, f"out 0.{2 * topology + 1} (infeasible +{violation})")
        self.assertEqual(rows[1].find_elements(By.TAG_NAME, "td")[3].text, "out 0.3")
        stages = panel.find_elements(By.CSS_SELECTOR, "table.nas-stages tbody tr")
        head = [h.text for h in panel.find_elements(By.CSS_SELECTOR, "table.nas-stages thead th")]
        round1 = dict(zip(head, [c.text for c in stages[0].find_elements(By.TAG_NAME, "td")]))
        self.assertEqual((round1["failed"], round1["infeasible"], round1["best"]), ("0", "2", "0.5"))

    def test_nas_page_shows_the_tournament(self):
        self.open("#/e/tour")
        nas = self.server.json("api/e/tour/summary")["nas"]
        block = nas["blocks"][0]
        self.assertEqual(len(block["eliminated"]), 4)  # 5 topologies, one winner
        panel = self.driver.find_element(By.ID, "nas")
        self.assertTrue(panel.is_displayed())
        rows = panel.find_elements(By.CSS_SELECTOR, ".nas-block tbody tr")
        by_topology = {int(r.get_attribute("data-topology")): r for r in rows}
        self.assertEqual(set(by_topology), set(block["survivors"]) | {e["topology"] for e in block["eliminated"]})
        self.assertEqual(by_topology[block["winner"]].get_attribute("data-state"), "winner")
        for e in block["eliminated"]:
            row = by_topology[e["topology"]]
            self.assertEqual(row.get_attribute("data-state"), "eliminated")
            cells = row.find_elements(By.TAG_NAME, "td")
            # topology, one cell per round, the note: 'out' in the round it lost.
            self.assertTrue(cells[e["round"]].text.startswith("out"), row.text)
            self.assertEqual(cells[-1].text, f"eliminated in round {e['round']}")
        stages = panel.find_elements(By.CSS_SELECTOR, "table.nas-stages tbody tr")
        self.assertEqual(len(stages), len(nas["stages"]))
        self.shoot("nas")
        # The search's result is its retrain, named as such, not its top evaluation.
        best = self.server.json("api/e/tour/summary")["best"]
        self.assertEqual(best["stage"], "retrain")
        summary = self.driver.find_element(By.CSS_SELECTOR, ".summary").text
        self.assertIn(f"result {best['value']:g} by trial {best['trial']} (retrain)", summary)
        history = self.driver.execute_script(
            "return window.gpusweepChart('Optimisation history').getOption().series.map((s) => s.name);")
        self.assertNotIn("best so far", history)  # stages are not comparable
        # The architecture and its code are lists: in the table, not on chart axes.
        params = self.server.json("api/e/tour/summary")["params"]
        self.assertIn("architecture.blocks", params)
        self.assertIn("nas_code", params)
        axes = self.driver.execute_script(
            "return window.gpusweepChart('Parallel coordinates').getOption().parallelAxis.map((a) => a.name);")
        slices = self.driver.execute_script(
            "return window.gpusweepChart('Slices').getOption().series.map((s) => s.name);")
        for drawn in (axes, slices):
            self.assertNotIn("architecture.blocks", drawn)
            self.assertNotIn("nas_code", drawn)
            self.assertIn("nas_topology", drawn)
        for title in ("Parallel coordinates", "Slices"):
            note = self.driver.find_element(By.CSS_SELECTOR, f"section[data-chart='{title}'] p.note").text
            self.assertIn("not drawn: architecture.blocks, nas_code", note)

    def test_pages_with_nothing_to_draw_load_without_errors(self):
        for name, states in (("failing", {"failed"}), ("final-only", {"completed"})):
            self.driver.get_log("browser")  # only this page's messages below
            self.open(f"#/e/{name}")
            self.assertEqual(self.driver.find_elements(By.CSS_SELECTOR, "p.error"), [], name)
            self.assertEqual({r.find_elements(By.TAG_NAME, "td")[1].text for r in self.rows()}, states, name)
            self.assertEqual(len(self.rows()), 4, name)
            note = self.driver.find_element(By.CSS_SELECTOR, "section[data-chart='Intermediate values'] p.note").text
            self.assertIn("no trial has reported two steps yet", note, name)
            self.open(f"#/e/{name}/t/0")
            self.assertEqual(self.driver.find_elements(By.CSS_SELECTOR, "p.error"), [], name)
            severe = [m["message"] for m in self.driver.get_log("browser") if m["level"] == "SEVERE"]
            self.assertEqual(severe, [], name)

    def series_counts(self, title):
        """{series name: data length} of the chart drawn under `title` (names repeat
        across a matrix's grids: their lengths add up)."""
        return self.driver.execute_script("""
            const counts = {};
            for (const s of window.gpusweepChart(arguments[0]).getOption().series)
              counts[s.name] = (counts[s.name] || 0) + s.data.length;
            return counts;""", title)

    def test_pbt_page_draws_the_lineage_and_each_members_params(self):
        self.open("#/e/pbt")
        pbt = self.server.json("api/e/pbt/summary")["pbt"]
        self.assertEqual(pbt["population"], 4)
        self.assertEqual(len(pbt["segments"]), 16)
        exploits = pbt["exploits"]
        self.assertTrue(exploits)  # each generation's bottom member copied the top one
        for e in exploits:
            self.assertNotEqual(e["member"], e["donor_member"])
            self.assertEqual(e["donor"] // 4, e["segment"] - 1)  # the previous generation
        drawn = set(self.charts_with_pixels())
        self.assertIn("PBT lineage", drawn)
        self.assertIn("PBT parameters over time", drawn)
        lineage = self.series_counts("PBT lineage")
        # A point per segment, an arrow per exploit, a grey line per other continuation.
        self.assertEqual(lineage, {"segments": 16, "exploit": len(exploits),
                                   "continued": 12 - len(exploits)})
        arrows = self.driver.execute_script(
            "return window.gpusweepChart('PBT lineage').getOption().series"
            ".find((s) => s.name === 'exploit').data.map((d) => [d.trial, d.parent, d.coords]);")
        self.assertEqual(sorted((t, p) for t, p, _ in arrows),
                         sorted((e["trial"], e["donor"]) for e in exploits))
        for trial, parent, coords in arrows:  # from (segment, member) to (segment, member)
            self.assertEqual(coords, [[parent // 4, parent % 4], [trial // 4, trial % 4]])
        # Each member's lr over the epochs: one line per member, two points per segment.
        params = self.series_counts("PBT parameters over time")
        self.assertEqual(params, {f"member {m}": 8 for m in range(4)})
        self.shoot("pbt")

    def check_pareto_page(self, name, objectives):
        self.open(f"#/e/{name}")
        pareto = self.server.json(f"api/e/{name}/summary")["pareto"]
        self.assertEqual([o["name"] for o in pareto["objectives"]], objectives)
        kinds = {"front": [], "dominated": [], "infeasible": []}
        for t in pareto["trials"]:
            kinds["infeasible" if not t["feasible"] else "front" if t["front"] else "dominated"].append(t["trial"])
        self.assertEqual(len(pareto["trials"]), 16)
        for kind, trials in kinds.items():
            self.assertTrue(trials, kind)  # seed 5 gives every kind
        drawn = set(self.charts_with_pixels())
        for title in ("Pareto front", "Hypervolume history", "Optimisation history", "Slices",
                      "Parallel coordinates"):
            self.assertIn(title, drawn)
        pairs = len(objectives) * (len(objectives) - 1) // 2
        counts = self.series_counts("Pareto front")
        for kind, trials in kinds.items():
            self.assertEqual(counts[kind], pairs * len(trials), kind)
        grids = self.driver.execute_script(
            "return window.gpusweepChart('Pareto front').getOption().grid.length;")
        self.assertEqual(grids, pairs)
        # One hypervolume per completion, never falling.
        history = self.driver.execute_script(
            "return window.gpusweepChart('Hypervolume history').getOption().series[0].data.map((d) => d[1]);")
        self.assertEqual(len(history), 16)
        self.assertEqual(history, sorted(history))
        self.assertEqual(history, [h["value"] for h in pareto["hypervolume"]])
        # The table and the other charts mark the same trials.
        marked = {kind: sorted(int(r.get_attribute("data-trial")) for r in self.driver.find_elements(
            By.CSS_SELECTOR, f"#trials tbody tr[data-pareto='{kind}']")) for kind in kinds}
        self.assertEqual(marked, {kind: sorted(trials) for kind, trials in kinds.items()})
        cells = {int(r.get_attribute("data-trial")): r.find_element(By.CSS_SELECTOR, "span.pareto").text
                 for r in self.rows()}
        for t in kinds["front"]:
            self.assertEqual(cells[t], "front")
        for t in kinds["infeasible"]:
            self.assertTrue(cells[t].startswith("infeasible +"), cells[t])
        history_marks = self.series_counts("Optimisation history")
        self.assertEqual(history_marks["Pareto front"], len(kinds["front"]))
        self.assertEqual(history_marks["infeasible"], len(kinds["infeasible"]))
        slices = self.series_counts("Slices")
        self.assertEqual(slices["Pareto front"], 2 * len(kinds["front"]))  # x and y
        parallel = self.series_counts("Parallel coordinates")
        self.assertEqual(parallel["infeasible"], len(kinds["infeasible"]))
        # Importance per objective: a panel each, the params x and y in each.
        titles = [f"Parameter importance (fANOVA): {o}" for o in objectives]
        WebDriverWait(self.driver, WAIT_S).until(
            lambda d: set(titles) <= set(self.charts_with_pixels()))
        for title in titles:
            bars = self.driver.execute_script(
                "return window.gpusweepChart(arguments[0]).getOption().yAxis[0].data;", title)
            self.assertEqual(sorted(bars), ["x", "y"], title)
        per_objective = self.server.json(f"api/e/{name}/importance")["objectives"]
        self.assertEqual([o["objective"] for o in per_objective], objectives)
        self.shoot(name)

    def test_pareto_page_of_two_objectives(self):
        self.check_pareto_page("mo", ["f1", "f2"])
        summary = self.server.json("api/e/mo/summary")
        front_line = self.series_counts("Pareto front")["front line"]
        self.assertEqual(front_line, sum(t["front"] for t in summary["pareto"]["trials"]))
        # The header names both objectives and the front, not a best of the first alone.
        self.assertIsNone(summary["best"])
        header = self.driver.find_element(By.CSS_SELECTOR, ".summary").text
        front = sum(t["front"] for t in summary["pareto"]["trials"])
        infeasible = sum(not t["feasible"] for t in summary["pareto"]["trials"])
        self.assertIn(f"objectives f1 (min), f2 (min); Pareto front: {front} of "
                      f"{len(summary['pareto']['trials'])} completed trials, {infeasible} infeasible", header)
        self.assertNotIn("best", header)

    def test_pareto_page_of_three_objectives_is_a_matrix_of_pairs(self):
        self.check_pareto_page("mo3", ["f1", "f2", "f3"])

    def test_a_sweep_has_no_tournament_panel(self):
        self.open("#/e/finished")
        self.assertFalse(self.driver.find_element(By.ID, "nas").is_displayed())

    def test_table_sorts_and_filters(self):
        self.open("#/e/finished")
        self.driver.find_element(By.XPATH, "//th[starts-with(normalize-space(.), 'score')]").click()
        self.driver.find_element(By.XPATH, "//th[starts-with(normalize-space(.), 'score')]").click()
        scores = [float(r.find_elements(By.TAG_NAME, "td")[2].text) for r in self.rows()]
        self.assertEqual(scores, sorted(scores, reverse=True))
        box = self.driver.find_element(By.CSS_SELECTOR, "input[data-param='x']")
        box.send_keys("0..0.5\n")
        WebDriverWait(self.driver, WAIT_S).until(lambda d: len(self.rows()) < 12)
        trials = self.server.json("api/e/finished/trials")["trials"]
        expected = sum(1 for t in trials if t["params"]["x"] <= 0.5)
        self.assertEqual(len(self.rows()), expected)

    def test_columns_are_labelled_apart_and_choices_are_categories_on_chart_axes(self):
        self.open("#/e/finished")
        labels = {th.get_attribute("data-key"): th.text for th in
                  self.driver.find_elements(By.CSS_SELECTOR, "table.trials thead th[data-key]")}
        # The objective is also a reported metric: two columns, told apart.
        self.assertEqual(labels["objective"], "score (objective)")
        self.assertEqual(labels["m:score"], "score (last reported)")
        self.assertEqual(labels["p:x"], "x")
        self.assertEqual(len(set(labels.values())), len(labels), labels)
        axes = self.driver.execute_script(
            "return window.gpusweepChart('Parallel coordinates').getOption().parallelAxis"
            ".map((a) => [a.name, a.type, a.data || null]);")
        by_name = {name: (kind, data) for name, kind, data in axes}
        # width is a choice of numbers: three options, not a range.
        self.assertEqual(by_name["width"][0], "category")
        self.assertEqual(by_name["width"][1], sorted(by_name["width"][1], key=int))
        self.assertEqual(by_name["x"][0], "value")
        # seed is 7 in every trial: no axis, and the note says why.
        self.assertNotIn("seed", by_name)
        slices = self.driver.execute_script(
            "return window.gpusweepChart('Slices').getOption().series.map((s) => s.name);")
        self.assertNotIn("seed", slices)
        for title in ("Parallel coordinates", "Slices"):
            note = self.driver.find_element(By.CSS_SELECTOR, f"section[data-chart='{title}'] p.note").text
            self.assertIn("not drawn: seed (the same value in every trial)", note)

    def test_trial_page_shows_its_log_tail(self):
        self.open("#/e/finished/t/3")
        log = self.driver.find_element(By.ID, "log-tail").text
        self.assertIn("trial 3 done <b>not bold</b>", log)
        self.assertIn("Metrics over steps", self.charts_with_pixels())
        self.shoot("trial")

    def test_report_files_hold_the_pbt_and_pareto_views(self):
        for name, titles in (("pbt", ("PBT lineage", "PBT parameters over time")),
                             ("mo", ("Pareto front", "Hypervolume history"))):
            report = self.tmp / f"report-{name}.html"
            subprocess.run([BINARY, "report", str(self.runs / name), "-o", str(report)],
                           check=True, timeout=WAIT_S)
            self.driver.get(report.as_uri())
            WebDriverWait(self.driver, WAIT_S).until(
                lambda d: d.execute_script("return document.body.dataset.chartsDrawn") == "true")
            drawn = set(self.charts_with_pixels())
            for title in titles:
                self.assertIn(title, drawn, name)
            summary = self.server.json(f"api/e/{name}/summary")
            if name == "pbt":
                self.assertEqual(self.series_counts("PBT lineage")["exploit"], len(summary["pbt"]["exploits"]))
            else:
                fronts = sum(t["front"] for t in summary["pareto"]["trials"])
                self.assertEqual(self.series_counts("Pareto front")["front"], fronts)
                self.assertEqual(len(self.driver.find_elements(
                    By.CSS_SELECTOR, "#trials tbody tr[data-pareto='front']")), fronts)
            self.shoot(f"report-{name}")

    def test_report_file_opens_offline_with_the_same_page(self):
        report = self.tmp / "report.html"
        subprocess.run([BINARY, "report", str(self.runs / "finished"), "-o", str(report)],
                       check=True, timeout=WAIT_S)
        self.driver.get(report.as_uri())
        WebDriverWait(self.driver, WAIT_S).until(
            lambda d: d.execute_script("return document.body.dataset.chartsDrawn") == "true")
        self.assertEqual(len(self.rows()), 12)
        self.assertIn("Intermediate values", self.charts_with_pixels())
        # Nothing was fetched: every resource the page used is the file itself.
        urls = self.driver.execute_script(
            "return performance.getEntriesByType('resource').map((e) => e.name)")
        self.assertEqual(urls, [])
        self.shoot("report")

    def wait_for_counts(self, server, experiment, **counts):
        """Polls `server` until `experiment`'s state counts include `counts`."""
        deadline = time.time() + WAIT_S
        while time.time() < deadline:
            listed = [e for e in server.json("api/experiments") if e["id"] == experiment]
            if listed and all(listed[0].get("counts", {}).get(k) == n for k, n in counts.items()):
                return listed[0]
            time.sleep(0.2)
        raise AssertionError(f"{experiment} never reached {counts}")

    def start_gated_run(self, name, trials, slots):
        """A sweep whose trials after 0 wait at gate files, run into a root of its own
        (the shared one's experiment list stays as the other tests expect) with its own
        server. Returns (run, server, gate); end_gated_run cleans up."""
        root = self.tmp / f"{name}-runs"
        gate = self.tmp / f"{name}-gate"
        sweep = write_sweep(self.tmp, name, trials=trials, steps=3, gate=str(gate), slots=slots)
        run = subprocess.Popen([BINARY, "run", str(sweep), "--dir", str(root / name)],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.time() + WAIT_S
        while not (root / name).exists() and time.time() < deadline:
            time.sleep(0.1)
        return run, Server(root), gate

    @staticmethod
    def end_gated_run(run, server, gate, trials):
        for k in range(1, trials):  # trials still waiting (a dead run's too) end now
            Path(f"{gate}-{k}").touch()
        if run.poll() is None:
            run.wait(timeout=WAIT_S)
        server.stop()

    def open_at(self, server, fragment):
        self.driver.get(server.url.split("?")[0] + fragment)
        WebDriverWait(self.driver, WAIT_S).until(
            lambda d: d.execute_script("return document.body.dataset.chartsDrawn") == "true")

    def test_experiments_page_shows_a_run_started_after_it_opened(self):
        root = self.tmp / "later-runs"
        root.mkdir()
        server = Server(root)
        try:
            self.open_at(server, "#/")
            self.assertEqual(self.rows(), [])
            self.driver.execute_script("window.sameDocument = true;")
            sweep = write_sweep(self.tmp, "later", trials=2, steps=2)
            subprocess.run([BINARY, "run", str(sweep), "--dir", str(root / "later")],
                           check=True, stdout=subprocess.DEVNULL, timeout=WAIT_S)
            # The page may have seen it running: wait for the finished row.
            WebDriverWait(self.driver, WAIT_S).until(
                lambda d: [r.text.split()[:4] for r in self.rows()] == [["later", "finished", "2", "/"]])
            row = self.rows()[0]
            self.assertEqual(row.get_attribute("data-experiment"), "later")
            self.assertTrue(self.driver.execute_script("return window.sameDocument"))
            # Nothing changes from here: polls leave the rows as they are.
            time.sleep(4.5)
            self.assertTrue(self.driver.execute_script("return arguments[0].isConnected", row))
        finally:
            server.stop()

    def test_a_run_killed_with_minus_9_shows_interrupted_not_finished(self):
        run, server, gate = self.start_gated_run("killed", trials=16, slots=2)
        try:
            self.wait_for_counts(server, "killed", completed=1, running=2)
            Path(f"{gate}-1").touch()  # trial 1 finishes, trial 3 starts
            self.wait_for_counts(server, "killed", completed=2, running=2)
            run.send_signal(signal.SIGKILL)
            run.wait(timeout=WAIT_S)
            self.open_at(server, "#/")
            row = self.driver.find_element(By.CSS_SELECTOR, "tr[data-experiment='killed']")
            self.assertEqual(row.find_elements(By.TAG_NAME, "td")[1].text, "interrupted")
            self.assertIn("2 / 16", row.text)
            self.open_at(server, "#/e/killed")
            badge = self.driver.find_element(By.CSS_SELECTOR, ".summary .state")
            self.assertEqual(badge.text, "interrupted")
            self.assertIn("gpusweep run", badge.get_attribute("title"))
            # The journal still says trials 2 and 3 are running; the run that ran them is
            # dead: shown interrupted, with no duration ticking on.
            cells = {int(r.get_attribute("data-trial")): [c.text for c in r.find_elements(By.TAG_NAME, "td")]
                     for r in self.rows()}
            self.assertEqual(server.json("api/e/killed/trials")["trials"][2]["state"], "running")
            for trial in (2, 3):
                self.assertEqual(cells[trial][1], "interrupted", cells[trial])
                self.assertEqual(cells[trial][3], "-", cells[trial])
            self.assertEqual(cells[0][1], "completed")
            # Rows without an objective ('-') sort last both ways.
            header = self.driver.find_element(By.CSS_SELECTOR, "th[data-key='objective']")
            for _ in range(2):
                header.click()
                header = self.driver.find_element(By.CSS_SELECTOR, "th[data-key='objective']")
                values = [r.find_elements(By.TAG_NAME, "td")[2].text for r in self.rows()]
                self.assertEqual(values[2:], ["-", "-"], values)
                numbers = [float(v) for v in values[:2]]
                self.assertEqual(numbers, sorted(numbers, reverse="▼" in header.text), header.text)
            self.open_at(server, "#/e/killed/t/2")
            header = self.driver.find_element(By.CSS_SELECTOR, ".summary")
            self.assertEqual(header.find_element(By.CSS_SELECTOR, ".state").text, "interrupted")
            self.assertIn("ran -", header.text)
        finally:
            self.end_gated_run(run, server, gate, 16)

    def test_a_filter_being_typed_survives_live_updates_and_applies_as_typed(self):
        run, server, gate = self.start_gated_run("typing", trials=3, slots=1)
        try:
            self.wait_for_counts(server, "typing", completed=1, running=1)
            x0, x1 = (t["params"]["x"] for t in server.json("api/e/typing/trials")["trials"])
            middle = (x0 + x1) / 2
            text = f"{middle:.4f}.." if x1 > x0 else f"..{middle:.4f}"  # trial 1 only
            self.open_at(server, "#/e/typing")
            self.assertEqual(len(self.rows()), 2)
            box = self.driver.find_element(By.CSS_SELECTOR, "input[data-param='x']")
            box.click()
            box.send_keys(text)  # no Enter: applied once typing pauses
            WebDriverWait(self.driver, WAIT_S).until(lambda d: len(self.rows()) == 1)
            self.assertEqual(self.rows()[0].get_attribute("data-trial"), "1")
            state = lambda: self.rows()[0].find_elements(By.TAG_NAME, "td")[1].text
            self.assertEqual(state(), "running")
            Path(f"{gate}-1").touch()  # trial 1 finishes: the next poll redraws the table
            # A poll may redraw the table between finding the row and reading its cell.
            WebDriverWait(self.driver, WAIT_S, ignored_exceptions=[StaleElementReferenceException]).until(
                lambda d: state() == "completed")
            typed = self.driver.execute_script(
                "const a = document.activeElement;"
                "return [a.dataset.param, a.value, a.selectionStart, a.selectionEnd];")
            self.assertEqual(typed, ["x", text, len(text), len(text)])
        finally:
            self.end_gated_run(run, server, gate, 3)

    def test_live_view_gains_a_trial_when_the_run_finishes_one(self):
        gate = self.tmp / "gate"
        sweep = write_sweep(self.tmp, "running", trials=4, steps=5, gate=str(gate), slots=1)
        run = subprocess.Popen([BINARY, "run", str(sweep), "--dir", str(self.runs / "running")],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            deadline = time.time() + WAIT_S
            while time.time() < deadline:  # trial 0 done, trial 1 waiting at its gate
                listed = [e for e in self.server.json("api/experiments") if e["id"] == "running"]
                if listed and listed[0].get("counts", {}).get("completed") == 1 and \
                        listed[0]["counts"].get("running") == 1:
                    break
                time.sleep(0.2)
            self.open("#/e/running")
            self.assertEqual(self.driver.find_element(By.ID, "live").text, "live")
            completed = lambda: len(self.driver.find_elements(
                By.CSS_SELECTOR, "table.trials tbody .state-completed"))
            self.assertEqual(completed(), 1)
            rows_before = len(self.rows())
            Path(f"{gate}-1").touch()  # trial 1 finishes; trial 2 starts
            WebDriverWait(self.driver, WAIT_S).until(lambda d: completed() == 2)
            self.assertGreaterEqual(len(self.rows()), rows_before)
            # Importance follows without a reload: with one completed trial there was
            # none; the second one gives the forest two points.
            note = lambda: self.driver.execute_script(
                "const p = [...document.querySelectorAll('section[data-chart]')].find("
                "(b) => b.dataset.chart === 'Parameter importance (fANOVA)');"
                "return p ? p.querySelector('.note').textContent : '';")
            WebDriverWait(self.driver, WAIT_S).until(
                lambda d: note().startswith("over 2 completed trials") and "updating" not in note())
            self.assertIn("Parameter importance (fANOVA)", self.charts_with_pixels())
            self.shoot("live")
        finally:
            for k in range(1, 4):
                Path(f"{gate}-{k}").touch()
            run.wait(timeout=WAIT_S)


if __name__ == "__main__":
    unittest.main(verbosity=2)
