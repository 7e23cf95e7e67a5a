"""The five test sweeps of the importance comparison: each a search space (as YAML for
gpusweep and as Optuna distributions) and an objective a trial computes."""
import math

SWEEPS = {
    # One log-scale parameter dominates; the others barely matter.
    "log-lr": {
        "space": {"lr": ("loguniform", 1e-5, 1e-1), "dropout": ("uniform", 0.0, 0.5),
                  "batch": ("choice", [32, 64, 128])},
        "objective": lambda p: -4 * (math.log10(p["lr"]) + 2.5) ** 2 + 0.1 * p["dropout"]
        + 0.001 * p["batch"] / 128,
    },
    # A categorical choice dominates.
    "optimizer": {
        "space": {"opt": ("choice", ["sgd", "adam", "rmsprop"]), "x": ("uniform", 0.0, 1.0),
                  "y": ("uniform", 0.0, 1.0)},
        "objective": lambda p: {"sgd": 0.0, "adam": 1.0, "rmsprop": 0.3}[p["opt"]]
        + 0.2 * p["x"] + 0.05 * p["y"],
    },
    # An integer with an interior optimum.
    "layers": {
        "space": {"layers": ("int", 1, 12), "x": ("uniform", 0.0, 1.0),
                  "width": ("choice", [16, 32, 64])},
        "objective": lambda p: -((p["layers"] - 6) ** 2) / 10 + 0.3 * math.sin(3 * p["x"])
        + 0.01 * (p["width"] == 32),
    },
    # Main effect plus an interaction.
    "interaction": {
        "space": {"a": ("uniform", 0.0, 1.0), "b": ("uniform", 0.0, 1.0),
                  "c": ("uniform", 0.0, 1.0), "d": ("uniform", 0.0, 1.0)},
        "objective": lambda p: 2 * p["a"] + p["a"] * p["b"] + 0.3 * p["c"] + 0.05 * p["d"],
    },
    # Branin (a standard test function) with one extra, inert parameter.
    "branin": {
        "space": {"x1": ("uniform", -5.0, 10.0), "x2": ("uniform", 0.0, 15.0),
                  "noise": ("uniform", 0.0, 1.0)},
        "objective": lambda p: (p["x2"] - 5.1 / (4 * math.pi ** 2) * p["x1"] ** 2
                                + 5 / math.pi * p["x1"] - 6) ** 2
        + 10 * (1 - 1 / (8 * math.pi)) * math.cos(p["x1"]) + 10 + 0.01 * p["noise"],
    },
}


def yaml_space(space):
    lines = []
    for name, spec in space.items():
        kind = spec[0]
        if kind == "choice":
            values = ", ".join(str(v) for v in spec[1])
            lines.append(f"  {name}: {{type: choice, values: [{values}]}}")
        else:
            lines.append(f"  {name}: {{type: {kind}, low: {spec[1]}, high: {spec[2]}}}")
    return "\n".join(lines)


def optuna_distributions(space):
    # Imported here: trials import this module too, and need no Optuna.
    from optuna.distributions import (CategoricalDistribution, FloatDistribution,
                                      IntDistribution)
    out = {}
    for name, spec in space.items():
        kind = spec[0]
        if kind == "choice":
            out[name] = CategoricalDistribution(spec[1])
        elif kind == "int":
            out[name] = IntDistribution(spec[1], spec[2])
        else:
            out[name] = FloatDistribution(spec[1], spec[2], log=kind == "loguniform")
    return out
