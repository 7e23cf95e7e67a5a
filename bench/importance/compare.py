"""Runs the five test sweeps with gpusweep, then ranks their parameters twice on the
same trials: gpusweep's fANOVA (importance_of_export) and Optuna's
get_param_importances (its default fANOVA evaluator) on a study the export is loaded
into. Prints a Markdown table.  Usage: compare.py BUILD_DIR WORK_DIR [TRIALS]"""
import json
import subprocess
import sys
import time
from pathlib import Path

import optuna
from optuna.importance import FanovaImportanceEvaluator, get_param_importances

sys.path.insert(0, str(Path(__file__).resolve().parent))
from sweeps import SWEEPS, optuna_distributions, yaml_space  # noqa: E402

HERE = Path(__file__).resolve().parent
optuna.logging.set_verbosity(optuna.logging.WARNING)


def run_sweep(build, work, name, trials):
    config = work / f"{name}.yaml"
    config.write_text(
        f"name: {name}\ncommand: [/usr/bin/python3, \"{HERE / 'trial.py'}\", {name}]\n"
        f"metric: {{name: objective, mode: max}}\n"
        f"sampler: {{type: random, trials: {trials}, seed: 11}}\n"
        f"search_space:\n{yaml_space(SWEEPS[name]['space'])}\nresources: {{cpu_slots: 2}}\n")
    exp = work / "runs" / name
    subprocess.run([build / "gpusweep", "run", config, "--dir", exp], check=True,
                   stdout=subprocess.DEVNULL)
    export = work / f"{name}.json"
    subprocess.run([build / "gpusweep", "export", exp, "--format", "json", "-o", export], check=True)
    return config, export


def ours(build, export, config):
    start = time.perf_counter()
    out = subprocess.run([build / "bench" / "importance" / "importance_of_export", export, config],
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out), time.perf_counter() - start


def optunas(export, name):
    distributions = optuna_distributions(SWEEPS[name]["space"])
    study = optuna.create_study(direction="maximize")
    for row in json.loads(export.read_text()):
        if row["state"] != "completed" or row["objective"] is None:
            continue
        params = {k[len("param."):]: v for k, v in row.items() if k.startswith("param.")}
        study.add_trial(optuna.trial.create_trial(params=params, distributions=distributions,
                                                  value=row["objective"]))
    start = time.perf_counter()
    result = get_param_importances(study, evaluator=FanovaImportanceEvaluator(seed=0))
    return dict(result), time.perf_counter() - start


def ranking(importances):
    return ", ".join(f"{k} {v:.2f}" for k, v in
                     sorted(importances.items(), key=lambda kv: -kv[1]))


def main():
    build, work = Path(sys.argv[1]).resolve(), Path(sys.argv[2]).resolve()
    trials = int(sys.argv[3]) if len(sys.argv) > 3 else 200
    work.mkdir(parents=True, exist_ok=True)
    print(f"| sweep ({trials} trials) | gpusweep fANOVA | Optuna {optuna.__version__} fANOVA | same top |")
    print("|---|---|---|---|")
    agree = 0
    for name in SWEEPS:
        config, export = run_sweep(build, work, name, trials)
        mine, my_time = ours(build, export, config)
        theirs, their_time = optunas(export, name)
        same = max(mine, key=mine.get) == max(theirs, key=theirs.get)
        agree += same
        print(f"| {name} | {ranking(mine)} ({my_time:.2f} s) | {ranking(theirs)} "
              f"({their_time:.2f} s) | {'yes' if same else 'NO'} |")
    print(f"\nsame most important parameter on {agree} of {len(SWEEPS)} sweeps")
    return 0 if agree >= 4 else 1


if __name__ == "__main__":
    sys.exit(main())
