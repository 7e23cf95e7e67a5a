#!/usr/bin/env bash
# Multi-objective ASHA end to end: a real `gpusweep run` of a 2-metric, 1-constraint
# experiment under `scheduler: {type: asha}` with budgeted trials, run one at a time
# (cpu_slots: 1) so the job order is deterministic. Each job appends "p budget" to a
# log; the order must be the one the rule gives (asha_bracket.h over rung_table.h's
# Pareto order: feasible first, then non-dominated front, crowding distance, trial),
# computed here by an independent simulation, and must differ from what ranking by the
# first metric alone gives (so the test fails if the other objective or the constraint
# is ignored). Then the decisions `gpusweep show` lists name fronts.
# Usage: moasha_cli_test.sh GPUSWEEP_BINARY.
set -euo pipefail
gpusweep=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# p -> (f1, f2, c): 4 is infeasible (c > 1) though it dominates every other trial;
# 2 is dominated by 0, and 0 by 5.
cat > "$work/moasha.yaml" <<'YAML'
name: moasha
command: [/bin/sh, -c, 'case {{p}} in 0) v="0.5 0.5 0";; 1) v="0.2 0.9 0";; 2) v="0.6 0.6 0";; 3) v="0.9 0.1 0";; 4) v="0.1 0.1 2";; 5) v="0.3 0.4 0";; 6) v="0.8 0.3 0";; 7) v="0.4 0.95 0";; 8) v="0.7 0.2 0";; esac; set -- $v; echo "{{p}} {{budget}}" >> @LOG@; echo "{\"epoch\": {{budget}}, \"f1\": $1, \"f2\": $2, \"c\": $3}" >> "$GPUSWEEP_METRICS"']
metrics:
  - {name: f1, mode: min}
  - {name: f2, mode: min}
constraints:
  - {metric: c, max: 1}
sampler: {type: grid}
search_space:
  p: {type: choice, values: [0, 1, 2, 3, 4, 5, 6, 7, 8]}
scheduler: {type: asha, min_resource: 1, max_resource: 9, reduction_factor: 3}
resources: {gpus: none, cpu_slots: 1}
YAML
sed -i "s|@LOG@|$work/jobs.log|" "$work/moasha.yaml"
cd "$work"
"$gpusweep" run moasha.yaml > run.log 2>&1 || { cat run.log; exit 1; }
"$gpusweep" show 0 > show0.txt 2>&1 || { cat show0.txt; exit 1; }
grep -q "front 1" show0.txt || { echo "no front in trial 0's decisions:"; cat show0.txt; exit 1; }
/usr/bin/python3 - <<'PY'
import math
points = {0: (0.5, 0.5, 0), 1: (0.2, 0.9, 0), 2: (0.6, 0.6, 0), 3: (0.9, 0.1, 0),
          4: (0.1, 0.1, 2), 5: (0.3, 0.4, 0), 6: (0.8, 0.3, 0), 7: (0.4, 0.95, 0),
          8: (0.7, 0.2, 0)}
violation = {p: max(0.0, c - 1) for p, (_, _, c) in points.items()}

def dominates(a, b):
    return all(x <= y for x, y in zip(a, b)) and any(x < y for x, y in zip(a, b))

def pareto_order(trials):
    """Deb's constraint-domination fronts, crowding distance descending, trial."""
    trials = sorted(trials)
    feasible = [t for t in trials if violation[t] == 0]
    front, k, rest = {}, 0, feasible
    while rest:
        nd = [t for t in rest if not any(dominates(points[u][:2], points[t][:2]) for u in rest)]
        for t in nd:
            front[t] = k
        rest, k = [t for t in rest if t not in nd], k + 1
    for v in sorted({violation[t] for t in trials if violation[t] > 0}):
        for t in trials:
            if violation[t] == v:
                front[t] = k
        k += 1
    crowd = {t: 0.0 for t in trials}
    for f in set(front.values()):
        members = [t for t in trials if front[t] == f]
        if len(members) <= 2:
            for t in members:
                crowd[t] = math.inf
            continue
        for m in range(2):
            s = sorted(members, key=lambda t: points[t][m])  # stable: ties by trial
            lo, hi = points[s[0]][m], points[s[-1]][m]
            crowd[s[0]] = crowd[s[-1]] = math.inf
            if hi - lo > 0:
                for i in range(1, len(s) - 1):
                    crowd[s[i]] += (points[s[i + 1]][m] - points[s[i - 1]][m]) / (hi - lo)
    return sorted(trials, key=lambda t: (front[t], -crowd[t], t))

def first_metric_order(trials):
    return sorted(trials, key=lambda t: (points[t][0], t))

def simulate(order, rungs=(1, 3, 9), eta=3, configurations=9):
    """Budgeted ASHA, one job at a time: promotions (top rung first), then the next
    configuration, then the tail promotion while nothing reached max_resource."""
    tables = [[] for _ in rungs[:-1]]
    promoted = [set() for _ in rungs[:-1]]
    started, completed, jobs = 0, 0, []
    while True:
        job = None
        for r in reversed(range(len(tables))):
            top = order(tables[r])[: math.floor(len(tables[r]) / eta + 1e-9)]
            free = [t for t in top if t not in promoted[r]]
            if free:
                job = (free[0], r + 1)
                break
        if job is None and started < configurations:
            job, started = (started, 0), started + 1
        if job is None and completed == 0:
            for r in reversed(range(len(tables))):
                free = [t for t in order(tables[r]) if t not in promoted[r]]
                if free:
                    job = (free[0], r + 1)
                    break
        if job is None:
            return jobs
        trial, rung = job
        if rung > 0:
            promoted[rung - 1].add(trial)
        jobs.append((trial, rungs[rung]))
        if rung == len(rungs) - 1:
            completed += 1
        else:
            tables[rung].append(trial)

ran = [tuple(int(x) for x in line.split()) for line in open("jobs.log")]
expected = simulate(pareto_order)
assert ran == expected, (ran, expected)
assert expected != simulate(first_metric_order), "the scenario does not tell the rules apart"
# The infeasible trial 4 dominates everything but is never promoted.
assert all(b == 1 for t, b in ran if t == 4), ran
print("moasha_cli_test: jobs", ran)
PY
