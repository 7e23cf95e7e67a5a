"""Loads `gpusweep export --format optuna` into an Optuna study (docs/config.md).

    import gpusweep_optuna
    study = gpusweep_optuna.load_study("study.json")   # in memory, or storage="sqlite:///s.db"
    print(study.best_params, study.best_value)
"""
import json

import optuna
from optuna.distributions import CategoricalDistribution, FloatDistribution, IntDistribution


def load_study(path, storage=None):
    """Returns a new Optuna study holding the finished trials of the export at `path`."""
    data = json.load(open(path, encoding="utf-8"))
    make = {"float": lambda d: FloatDistribution(d["low"], d["high"], log=d["log"]),
            "int": lambda d: IntDistribution(d["low"], d["high"], step=d["step"],
                                             log=d.get("log", False)),
            "categorical": lambda d: CategoricalDistribution(d["choices"])}
    dists = {name: make[d["type"]](d) for name, d in data["distributions"].items()}
    study = optuna.create_study(study_name=data["study_name"], direction=data["direction"],
                                storage=storage)
    for t in data["trials"]:
        study.add_trial(optuna.trial.create_trial(
            state=optuna.trial.TrialState[t["state"]], value=t["value"], params=t["params"],
            distributions={name: dists[name] for name in t["params"]}, user_attrs=t["user_attrs"],
            intermediate_values={int(s): v for s, v in t["intermediate_values"].items()}))
    return study
