#!/usr/bin/python3
"""The CASH problems of spaces/cash.yaml and spaces/cash_digits.yaml: 1 - 3-fold
cross-validated accuracy on one of scikit-learn's bundled data sets, standardised once:
breast cancer (`cash`: 569 samples, 30 features, 2 classes; the best classifiers tie
near 0.019, so every method ends there) or digits (`cash_digits`: 1,797 samples, 64
features, 10 classes, where the methods separate). The folds are fixed:
StratifiedKFold(3, shuffle=True, random_state=0). Both sides score with this file:
gpusweep's driver through `cash.py serve DATA` (one process for the whole run, a JSON
line of flat params in, the value out), Optuna's side in-process (`evaluator(DATA)`).
"""
import json
import sys

import numpy as np
from sklearn.datasets import load_breast_cancer, load_digits
from sklearn.ensemble import RandomForestClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import StratifiedKFold, cross_val_score
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC

DATA = {"breast_cancer": load_breast_cancer, "digits": load_digits}
# The benchmark's problem name -> its data set.
PROBLEM_DATA = {"cash": "breast_cancer", "cash_digits": "digits"}
_FOLDS = StratifiedKFold(3, shuffle=True, random_state=0)


def make(p):
    name = p["classifier"]["name"]
    if name == "svc":
        return SVC(C=p["classifier.C"], gamma=p["classifier.gamma"])
    if name == "random_forest":
        # random_state fixed: the same params always score the same.
        return RandomForestClassifier(n_estimators=int(p["classifier.n_estimators"]),
                                      max_depth=int(p["classifier.max_depth"]),
                                      max_features=p["classifier.max_features"],
                                      random_state=0, n_jobs=1)
    return LogisticRegression(C=p["classifier.C"], max_iter=1000)


def evaluator(data):
    """The objective on data set `data` (a key of DATA): flat params -> 1 - accuracy."""
    x, y = DATA[data](return_X_y=True)
    x = StandardScaler().fit_transform(x)
    return lambda p: 1.0 - float(np.mean(cross_val_score(make(p), x, y, cv=_FOLDS)))


def suggest(trial):
    name = trial.suggest_categorical("classifier", ["svc", "random_forest", "logistic_regression"])
    p = {"classifier": {"name": name}}
    if name == "svc":
        p["classifier.C"] = trial.suggest_float("svc.C", 1e-2, 1e3, log=True)
        p["classifier.gamma"] = trial.suggest_float("svc.gamma", 1e-5, 1e1, log=True)
    elif name == "random_forest":
        p["classifier.n_estimators"] = trial.suggest_int("rf.n_estimators", 10, 100, log=True)
        p["classifier.max_depth"] = trial.suggest_int("rf.max_depth", 1, 16)
        p["classifier.max_features"] = trial.suggest_float("rf.max_features", 0.05, 1)
    else:
        p["classifier.C"] = trial.suggest_float("lr.C", 1e-4, 1e2, log=True)
    return p


def serve(data):
    import warnings
    warnings.simplefilter("ignore")  # lbfgs convergence warnings would not go to stdout anyway
    evaluate = evaluator(data)
    for line in sys.stdin:
        if line.strip():
            print(repr(evaluate(json.loads(line))), flush=True)


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] != "serve" or sys.argv[2] not in DATA:
        sys.exit(f"usage: cash.py serve {{{'|'.join(DATA)}}}")
    serve(sys.argv[2])
