"""Times the dashboard in headless Chromium. First the server's warm-up (it reads every
journal and computes every importance as it starts); then, for each experiment,
navigation start to the moment the last chart of the experiment page has drawn (the
page's 'gpusweep-charts-drawn' mark, set after the trial table is filled) and to the
importance chart's first draw ('gpusweep-importance-drawn'); for the warm loads also
where the time went (medians): navigation start to the bundle having run
('gpusweep-script-ran') and to the three answers parsed ('gpusweep-data-received');
then the server's peak RSS (VmHWM).
Usage: page_load.py SERVER_URL SERVER_PID EXPERIMENT_ID... (bench/web/run.sh)"""
import shutil
import statistics
import sys
import time
import urllib.request

from proc_status import peak_rss_mib

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.support.ui import WebDriverWait
from selenium.common.exceptions import TimeoutException

REPEATS = 5
LOAD_TIMEOUT_S = 120  # per page load; a page not drawn by then gets a row saying so

MEASURE = """
const mark = (name) => performance.getEntriesByName(name).map((e) => e.startTime)[0];
const drawn = mark('gpusweep-charts-drawn');
return drawn === undefined ? null : [drawn, mark('gpusweep-importance-drawn') ?? null,
                                     document.querySelectorAll('table.trials tbody tr').length,
                                     mark('gpusweep-script-ran'), mark('gpusweep-data-received')];"""


def driver():
    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium")
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--window-size=1400,1800"):
        options.add_argument(arg)
    return webdriver.Chrome(service=Service(shutil.which("chromedriver")), options=options)


def load(browser, url):
    browser.get("about:blank")
    browser.get(url)
    WebDriverWait(browser, LOAD_TIMEOUT_S).until(lambda d: d.execute_script(MEASURE))
    # Importance arrives after the main charts (it draws on its own); wait for it too.
    WebDriverWait(browser, LOAD_TIMEOUT_S).until(lambda d: d.execute_script(MEASURE)[1] is not None)
    return browser.execute_script(MEASURE)


def warm_up(url, experiments):
    """Seconds until the server has read every journal and computed every importance
    (it starts on both when it starts; a first page waits for what is not done)."""
    start = time.monotonic()
    with urllib.request.urlopen(url + "api/experiments", timeout=600) as answer:
        answer.read()
    for exp in experiments:
        with urllib.request.urlopen(f"{url}api/e/{exp}/importance", timeout=600) as answer:
            answer.read()
    return time.monotonic() - start


def median_ms(values):
    """'- ms' for a build without the mark."""
    values = [v for v in values if v is not None]
    return f"{statistics.median(values):.0f} ms" if values else "- ms"


def main():
    url, pid, experiments = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
    print(f"server warm-up (journals read, importance computed): {warm_up(url, experiments):.1f} s, "
          f"peak RSS {peak_rss_mib(pid):.1f} MiB")
    browser = driver()
    print("| experiment | rows shown | first load: charts drawn | then: importance drawn | "
          f"warm loads: charts drawn (median of {REPEATS}) | of which: bundle ran, data parsed | "
          "server peak RSS |")
    print("|---|---|---|---|---|---|---|")
    try:
        for exp in experiments:
            try:
                first = load(browser, f"{url}#/e/{exp}")
            except TimeoutException:  # a row that says so, not a traceback
                print(f"| {exp} | - | not drawn within {LOAD_TIMEOUT_S} s | - | - | - | "
                      f"{peak_rss_mib(pid):.1f} MiB |")
                continue
            warm = [load(browser, f"{url}#/e/{exp}") for _ in range(REPEATS)]
            print(f"| {exp} | {first[2]} | {first[0]:.0f} ms | {first[1]:.0f} ms | "
                  f"{statistics.median(w[0] for w in warm):.0f} ms "
                  f"(min {min(w[0] for w in warm):.0f}, max {max(w[0] for w in warm):.0f}) | "
                  f"{median_ms(w[3] for w in warm)}, {median_ms(w[4] for w in warm)} | "
                  f"{peak_rss_mib(pid):.1f} MiB |")
    finally:
        browser.quit()


if __name__ == "__main__":
    main()
