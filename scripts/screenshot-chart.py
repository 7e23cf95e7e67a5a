#!/usr/bin/python3
"""Screenshots one chart of an experiment's dashboard page, for the docs.

Usage: scripts/screenshot-chart.py RUNS_DIR EXPERIMENT "CHART TITLE" OUT.png

Serves RUNS_DIR with build/gpusweep serve (or $GPUSWEEP_BINARY), opens the
experiment's page in Debian's headless Chromium (chromium, chromedriver, python3-selenium:
scripts/install-deps.sh --tests), waits until every chart is drawn and saves the
panel whose title is CHART TITLE (e.g. "Pareto front").
"""
import os
import pathlib
import re
import shutil
import subprocess
import sys

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

ROOT = pathlib.Path(__file__).resolve().parents[1]


def main(runs, experiment, title, out):
    binary = os.environ.get("GPUSWEEP_BINARY", str(ROOT / "build" / "gpusweep"))
    server = subprocess.Popen([binary, "serve", "--port", "0", runs],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        match = re.search(r"(http://\S+)", server.stdout.readline())
        if not match:
            sys.exit("gpusweep serve printed no URL")
        options = webdriver.ChromeOptions()
        options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
        for arg in ("--headless=new", "--no-sandbox", "--disable-gpu",
                    "--disable-dev-shm-usage", "--window-size=1400,1800"):
            options.add_argument(arg)
        driver = webdriver.Chrome(
            service=Service(shutil.which("chromedriver") or "/usr/bin/chromedriver"),
            options=options)
        try:
            driver.get(match.group(1).split("?")[0] + f"#/e/{experiment}")
            WebDriverWait(driver, 60).until(
                lambda d: d.execute_script("return document.body.dataset.chartsDrawn") == "true")
            panel = driver.find_element(By.CSS_SELECTOR, f'section[data-chart="{title}"]')
            driver.execute_script("arguments[0].scrollIntoView()", panel)
            panel.screenshot(out)
        finally:
            driver.quit()
    finally:
        server.terminate()
        server.wait(timeout=30)


if __name__ == "__main__":
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    main(*sys.argv[1:])
