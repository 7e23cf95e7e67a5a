"""One CASH trial (sweep.yaml): the classifier and its parameters from params.json,
3-fold cross-validated accuracy on scikit-learn's digits, reported as cv_acc."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "python"))
import gpusweep  # noqa: E402
from sklearn.datasets import load_digits  # noqa: E402
from sklearn.ensemble import RandomForestClassifier  # noqa: E402
from sklearn.linear_model import LogisticRegression  # noqa: E402
from sklearn.model_selection import cross_val_score  # noqa: E402
from sklearn.svm import SVC  # noqa: E402


def make(classifier):
    """The estimator a trial's `classifier` (its sub-space's values) names."""
    name = classifier["name"]
    if name == "svc":
        return SVC(C=classifier["C"], gamma=classifier["gamma"])
    if name == "random_forest":
        return RandomForestClassifier(n_estimators=classifier["n_estimators"],
                                      max_depth=classifier["max_depth"], random_state=0)
    return LogisticRegression(C=classifier["C"], max_iter=2000)


def main():
    p = gpusweep.params()
    x, y = load_digits(return_X_y=True)
    keep = int(len(y) * p["data"]["subsample"])
    scores = cross_val_score(make(p["classifier"]), x[:keep] / 16.0, y[:keep], cv=3)
    gpusweep.report(cv_acc=float(scores.mean()))


if __name__ == "__main__":
    main()
