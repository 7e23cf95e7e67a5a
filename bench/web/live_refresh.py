#!/usr/bin/env python3
"""What a live dashboard page costs the server per commit of a run, on a large experiment.

live_refresh.py URL SERVER_PID DB EXPERIMENT [COMMITS]

Against `gpusweep serve` (at URL, pid SERVER_PID) serving EXPERIMENT, whose journal is DB:
first the page's whole read (summary, trials, points), then COMMITS times what a run
does and what a page then polls: one commit that starts a new trial and finishes the one
started before it (its row, 20 results), then `summary`, `trials?since=R&generation=G`
and `points?after=C&generation=G` with the cursors the last answers gave. Prints the
median and largest time of each poll and of the three together, and the server's peak
RSS (VmHWM).

The writer is this script's sqlite3, as a run's writes look (a row per trial, its
`changed` mark when the journal has the column: schema version 4; an older journal has
none, and a server reads it whole).
"""
import json
import sqlite3
import statistics
import sys
import time
import urllib.request

from proc_status import peak_rss_mib


def get(url):
    started = time.perf_counter()
    with urllib.request.urlopen(url, timeout=600) as answer:
        body = json.load(answer)
    return body, time.perf_counter() - started


class Run:
    """Appends trials after the journal's last one, as a run of one slot would."""

    def __init__(self, db_path):
        self.db = sqlite3.connect(db_path)
        columns = [row[1] for row in self.db.execute("PRAGMA table_info(trials)")]
        self.marks = "changed" in columns
        self.next = self.db.execute("SELECT MAX(number) + 1 FROM trials").fetchone()[0]
        self.running = None

    def _mark(self):
        return ", changed = (SELECT IFNULL(MAX(changed), 0) + 1 FROM trials)" if self.marks else ""

    def commit(self):
        with self.db:
            now = time.time()
            if self.running is not None:
                number = self.running
                for epoch in range(1, 21):
                    self.db.execute(
                        'INSERT INTO results (trial, attempt, step, time, "values") VALUES (?, 1, ?, ?, ?)',
                        (number, epoch, now, json.dumps({"epoch": epoch, "val_acc": 0.5 + epoch / 100})))
                self.db.execute(
                    "UPDATE trials SET state = 'completed', end_time = ?, exit_code = 0, objective = ?, "
                    f"last_metrics = ?{self._mark()} WHERE number = ?",
                    (now, 0.7, json.dumps({"epoch": 20, "val_acc": 0.7}), number))
            number = self.next
            self.next += 1
            params = json.dumps({"lr": 0.001, "dropout": 0.1, "width": 32, "opt": "adam"})
            self.db.execute(
                "INSERT INTO trials (number, repeat, attempt, params, state, gpus, start_time, end_time, pid, "
                "pid_start_ticks, exit_code, term_signal, failure_reason, objective, last_metrics) "
                "VALUES (?, 0, 1, ?, 'running', '[]', ?, 0, 0, 0, NULL, NULL, '', NULL, '{}')",
                (number, params, now))
            if self.marks:
                self.db.execute("UPDATE trials SET changed = (SELECT IFNULL(MAX(changed), 0) + 1 FROM trials) "
                                "WHERE number = ?", (number,))
            self.running = number


def main():
    url, pid, db_path, experiment = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
    commits = int(sys.argv[5]) if len(sys.argv) > 5 else 20
    base = f"{url}api/e/{experiment}/"
    first = time.perf_counter()
    get(base + "summary")
    trials, _ = get(base + "trials?since=0")
    points, _ = get(base + "points?after=0")
    print(f"first read (summary, trials, points): {time.perf_counter() - first:.2f} s", flush=True)
    revision, generation, cursor = trials["revision"], trials["generation"], points["cursor"]
    run = Run(db_path)
    print(f"journal keeps change marks: {'yes' if run.marks else 'no (read whole at every commit)'}")
    polls = {"summary": [], "trials": [], "points": [], "all three": []}
    sent = []
    for _ in range(commits):
        run.commit()
        _, summary_s = get(base + "summary")
        trials, trials_s = get(f"{base}trials?since={revision}&generation={generation}")
        points, points_s = get(f"{base}points?after={cursor}&generation={generation}")
        revision, generation, cursor = trials["revision"], trials["generation"], points["cursor"]
        sent.append(len(trials["trials"]))
        for name, seconds in (("summary", summary_s), ("trials", trials_s), ("points", points_s),
                              ("all three", summary_s + trials_s + points_s)):
            polls[name].append(seconds * 1000)
    print(f"{commits} commits; trials sent per poll: median {statistics.median(sent)}")
    print("| poll after a commit | median ms | max ms |")
    print("|---|---:|---:|")
    for name, ms in polls.items():
        print(f"| {name} | {statistics.median(ms):.1f} | {max(ms):.1f} |")
    print(f"server peak RSS: {peak_rss_mib(pid):.1f} MiB")


if __name__ == "__main__":
    main()
