"""The sampler benchmark's test functions in Python: the same definitions as
functions.cc (same formulas, constants, parameter names and order; see there for the
sources). run.sh checks both sides agree at fixed points before running anything.

Each function is a Function(space, minimum, evaluate): `space` is a list of parameter
dicts in gs_bench_samplers' DescribeSpace format, `evaluate` takes a dict of params.
Scalar `math` is used (not numpy) so both sides call the same libm.
"""
import math
from dataclasses import dataclass
from typing import Callable

PI = math.pi


@dataclass
class Function:
    space: list
    minimum: float
    evaluate: Callable[[dict], float]


def _box(dims, low, high):
    return [{"name": f"x{i}", "kind": "uniform", "low": low, "high": high} for i in range(dims)]


def branin(p):
    x0, x1 = p["x0"], p["x1"]
    b, c, t = 5.1 / (4 * PI * PI), 5 / PI, 1 / (8 * PI)
    q = x1 - b * x0 * x0 + c * x0 - 6
    return q * q + 10 * (1 - t) * math.cos(x0) + 10


HART_ALPHA = [1.0, 1.2, 3.0, 3.2]
HART_A = [
    [10, 3, 17, 3.5, 1.7, 8],
    [0.05, 10, 17, 0.1, 8, 14],
    [3, 3.5, 1.7, 10, 17, 8],
    [17, 8, 0.05, 10, 0.1, 14],
]
HART_P = [
    [0.1312, 0.1696, 0.5569, 0.0124, 0.8283, 0.5886],
    [0.2329, 0.4135, 0.8307, 0.3736, 0.1004, 0.9991],
    [0.2348, 0.1451, 0.3522, 0.2883, 0.3047, 0.6650],
    [0.4047, 0.8828, 0.8732, 0.5743, 0.1091, 0.0381],
]


def hartmann6(p):
    total = 0.0
    for i in range(4):
        inner = 0.0
        for j in range(6):
            d = p[f"x{j}"] - HART_P[i][j]
            inner += HART_A[i][j] * d * d
        total += HART_ALPHA[i] * math.exp(-inner)
    return -total


def rosenbrock(p):
    total = 0.0
    for i in range(9):
        xi, nxt = p[f"x{i}"], p[f"x{i + 1}"]
        total += 100 * (nxt - xi * xi) * (nxt - xi * xi) + (xi - 1) * (xi - 1)
    return total


def ackley(p):
    dims = 5
    squares = cosines = 0.0
    for i in range(dims):
        x = p[f"x{i}"]
        squares += x * x
        cosines += math.cos(2 * PI * x)
    return (-20 * math.exp(-0.2 * math.sqrt(squares / dims)) - math.exp(cosines / dims)
            + 20 + math.e)


def mixed(p):
    """See functions.cc: global minimum 0 at branch=ridge, layers=12, lr=1e-2."""
    layers = float(p["layers"])
    u = math.log10(p["lr"])
    if p["branch"] == "bowl":
        dl = (layers - 4) / 4
        return 0.5 + (u + 3) * (u + 3) / 4 + dl * dl
    shifted = u + 2 - 0.05 * (layers - 12)
    dl = (layers - 12) / 4
    return shifted * shifted + dl * dl + 0.5 * (1 - math.cos(2 * PI * (u + 2)))


MIXED_SPACE = [
    {"name": "branch", "kind": "choice", "values": ["bowl", "ridge"]},
    {"name": "layers", "kind": "int", "low": 1, "high": 16, "step": 1},
    {"name": "lr", "kind": "loguniform", "low": 1e-5, "high": 1e-1},
]

FUNCTIONS = {
    "branin": Function([{"name": "x0", "kind": "uniform", "low": -5, "high": 10},
                        {"name": "x1", "kind": "uniform", "low": 0, "high": 15}],
                       5 / (4 * PI), branin),
    "hartmann6": Function(_box(6, 0, 1), -3.3223680114155147, hartmann6),
    "rosenbrock10": Function(_box(10, -5, 10), 0.0, rosenbrock),
    "ackley5": Function(_box(5, -32.768, 32.768), 0.0, ackley),
    "mixed": Function(MIXED_SPACE, 0.0, mixed),
}


def suggest_all(trial, space):
    """Asks an Optuna trial for every parameter of `space`; returns the params dict."""
    params = {}
    for p in space:
        name, kind = p["name"], p["kind"]
        if kind == "uniform":
            params[name] = trial.suggest_float(name, p["low"], p["high"])
        elif kind == "loguniform":
            params[name] = trial.suggest_float(name, p["low"], p["high"], log=True)
        elif kind == "int":
            params[name] = trial.suggest_int(name, p["low"], p["high"], step=p["step"])
        elif kind == "choice":
            params[name] = trial.suggest_categorical(name, p["values"])
        else:
            raise ValueError(f"unsupported kind {kind}")
    return params


def distributions(space):
    """Optuna distributions of `space` (for optuna.trial.create_trial)."""
    import optuna.distributions as d
    out = {}
    for p in space:
        kind = p["kind"]
        if kind in ("uniform", "loguniform"):
            out[p["name"]] = d.FloatDistribution(p["low"], p["high"], log=kind == "loguniform")
        elif kind == "int":
            out[p["name"]] = d.IntDistribution(p["low"], p["high"], step=p["step"])
        else:
            out[p["name"]] = d.CategoricalDistribution(p["values"])
    return out
