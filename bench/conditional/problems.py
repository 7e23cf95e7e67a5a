"""The synthetic problems of problems.cc, written again in Python, on a trial's flat
params (dotted leaf names, only the active ones; a sub-space choice's value is its
plain entries, {"name": ...}), and the same spaces as Optuna define-by-run suggestions.
"""
import math


def _sq(x):
    return x * x


def branches3(p):
    b = p["branch"]["name"]
    if b == "a":
        return 0.5 + (_sq(p["branch.x1"] - 1) + _sq(p["branch.x2"] + 2)) / 10
    if b == "b":
        return 4 * sum(_sq(p[f"branch.y{i}"] - 0.2 * i) for i in range(1, 5))
    return 0.25 + _sq(math.log10(p["branch.z"]) + 2) / 4 + abs(p["branch.k"] - 7) / 10


def hierarchical(p):
    loglr = math.log10(p["lr"])
    f = 0.05
    if p["optimizer"] == "sgd":
        f += 0.1 * _sq(loglr + 2) + 2 * _sq(p["momentum"] - 0.9) + (0 if p["nesterov"] else 0.05)
    else:
        f += 0.1 + 0.1 * _sq(loglr + 3) + 2 * _sq(p["beta1"] - 0.9)
    f += 0.02 * _sq(math.log2(p["width1"]) - 7)
    layers = p["layers"]
    if layers == 1:
        return f + 0.3
    f += 0.02 * _sq(math.log2(p["width2"]) - 6)
    if layers == 2:
        return f + 0.1
    if layers == 3:
        return f + 2 * _sq(p["dropout"] - 0.2)
    return f + 0.05 + 2 * _sq(p["dropout"] - 0.3)


OFFSETS = {1: 0.6, 2: 0.45, 4: 0.3, 6: 0.15, 8: 0.0}


def branches5(p):
    d = int(p["branch"]["name"][1:])
    s = OFFSETS[d]
    for i in range(1, d + 1):
        centre = 0.5 if d == 1 else 0.1 + 0.8 * (i - 1) / (d - 1)
        s += _sq(p[f"branch.u{i}"] - centre)
    return s


FUNCTIONS = {"branches3": branches3, "hierarchical": hierarchical, "branches5": branches5}


# --- the spaces of spaces/*.yaml as Optuna suggestions, giving gpusweep's flat params ---

def suggest_branches3(trial):
    b = trial.suggest_categorical("branch", ["a", "b", "c"])
    p = {"branch": {"name": b}}
    if b == "a":
        for n in ("x1", "x2"):
            p[f"branch.{n}"] = trial.suggest_float(f"{b}.{n}", -5, 5)
    elif b == "b":
        for i in range(1, 5):
            p[f"branch.y{i}"] = trial.suggest_float(f"{b}.y{i}", 0, 1)
    else:
        p["branch.z"] = trial.suggest_float("c.z", 1e-4, 1, log=True)
        p["branch.k"] = trial.suggest_int("c.k", 1, 10)
    return p


def suggest_hierarchical(trial):
    p = {"optimizer": trial.suggest_categorical("optimizer", ["sgd", "adam"]),
         "lr": trial.suggest_float("lr", 1e-5, 1, log=True)}
    if p["optimizer"] == "sgd":
        p["momentum"] = trial.suggest_float("momentum", 0, 0.99)
        p["nesterov"] = trial.suggest_categorical("nesterov", [True, False])
    else:
        p["beta1"] = trial.suggest_float("beta1", 0.5, 0.999)
    p["layers"] = trial.suggest_int("layers", 1, 4)
    p["width1"] = trial.suggest_int("width1", 16, 512, log=True)
    if p["layers"] >= 2:
        p["width2"] = trial.suggest_int("width2", 16, 512, log=True)
    if p["layers"] >= 3:
        p["dropout"] = trial.suggest_float("dropout", 0, 0.5)
    return p


def suggest_branches5(trial):
    b = trial.suggest_categorical("branch", ["d1", "d2", "d4", "d6", "d8"])
    p = {"branch": {"name": b}}
    # Each branch's own names, as gpusweep's leaves of two sub-spaces are two leaves.
    for i in range(1, int(b[1:]) + 1):
        p[f"branch.u{i}"] = trial.suggest_float(f"{b}.u{i}", 0, 1)
    return p


SUGGEST = {"branches3": suggest_branches3, "hierarchical": suggest_hierarchical,
           "branches5": suggest_branches5}
