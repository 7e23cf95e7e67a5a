#!/usr/bin/env python3
"""gpusweep's Hypervolume (include/gpusweep/pareto.h) against Optuna 3.1's WFG
(optuna._hypervolume.WFG, an independent implementation) on random fronts of 2 to 6
objectives: points on the unit sphere's positive orthant (every one non-dominated), the
same with dominated points mixed in, and points on a coarse grid (ties).

Usage: hypervolume_optuna_test.py HYPERVOLUME_DRIVER. Exit 77 (skipped) without Debian's
python3-optuna (scripts/install-deps.sh --tests installs it)."""
import json
import random
import subprocess
import sys

try:
    import numpy as np
    from optuna._hypervolume import WFG
except ImportError:
    print("python3-optuna is not installed: skipped (scripts/install-deps.sh --tests)")
    sys.exit(77)


def sphere_point(rng, m):
    v = [abs(rng.gauss(0, 1)) + 1e-9 for _ in range(m)]
    norm = sum(x * x for x in v) ** 0.5
    return [x / norm for x in v]


def cases(rng):
    for m in range(2, 7):
        for kind in ("front", "mixed", "grid"):
            for _ in range(4):
                n = rng.randint(1, 40 if m <= 4 else 18)
                if kind == "front":
                    points = [sphere_point(rng, m) for _ in range(n)]
                elif kind == "mixed":
                    points = [[x * rng.uniform(1, 1.3) for x in sphere_point(rng, m)] for _ in range(n)]
                else:
                    points = [[rng.randint(0, 4) / 4 for _ in range(m)] for _ in range(n)]
                yield points, [1.5] * m


def main():
    rng = random.Random(20260)
    all_cases = list(cases(rng))
    text = "".join(json.dumps({"points": p, "reference": r}) + "\n" for p, r in all_cases)
    out = subprocess.run([sys.argv[1]], input=text, capture_output=True, text=True, check=True)
    ours = [float(x) for x in out.stdout.split()]
    assert len(ours) == len(all_cases), (len(ours), len(all_cases))
    failures = 0
    for (points, reference), value in zip(all_cases, ours):
        expected = WFG().compute(np.array(points, dtype=float), np.array(reference, dtype=float))
        if abs(value - expected) > 1e-9 * max(1.0, abs(expected)):
            failures += 1
            print(f"m={len(reference)} n={len(points)}: gpusweep {value!r}, optuna {expected!r}")
    print(f"{len(all_cases)} fronts of 2-6 objectives, {failures} differ from Optuna's WFG")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
