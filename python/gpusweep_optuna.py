"""Loads `gpusweep export --format optuna` into an Optuna study (docs/config.md).

    import gpusweep_optuna
    study = gpusweep_optuna.load_study("study.json")   # in memory, or storage="sqlite:///s.db"
    print(study.best_params, study.best_value)

Optuna's RDB storage refuses one parameter name with two kinds of distribution, which a
name in two sub-spaces of a choice can have (C loguniform under svm, int under another):
load such a study in memory (docs/config.md, "Nested and conditional parameters").
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
    # Several objectives: "directions" and each trial's "values"; one: "direction", "value".
    directions = data.get("directions") or [data["direction"]]
    study = optuna.create_study(study_name=data["study_name"], directions=directions,
                                storage=storage)
    for t in data["trials"]:
        values = t["values"] if "values" in t else None if t["value"] is None else [t["value"]]
        # A trial has only its own parameters (conditional ones it lacks are absent), and
        # where a name is two leaves of a search space, its own distribution.
        own = {name: make[d["type"]](d) for name, d in t.get("distributions", {}).items()}
        study.add_trial(optuna.trial.create_trial(
            state=optuna.trial.TrialState[t["state"]], values=values, params=t["params"],
            distributions={name: own.get(name, dists.get(name)) for name in t["params"]},
            user_attrs=t["user_attrs"], system_attrs=t.get("system_attrs", {}),
            intermediate_values={int(s): v for s, v in t["intermediate_values"].items()}))
    return study
