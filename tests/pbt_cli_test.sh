#!/usr/bin/env bash
# Population-based training end to end: a real `gpusweep run` of 4 members x 5 segments
# over a Python trial that restores the checkpoint gpusweep copied in, trains to
# {{budget}}, saves with the helper and reports. Member 3 never saves a checkpoint.
# Checks: every segment completed; a segment with a parent started exactly where the
# parent's checkpoint ended (epoch and lineage: it resumed from that checkpoint, not
# from scratch); at least one exploit happened (a parent of another member); no member
# ever copied member 3 (it never checkpointed); the export's member, segment and
# parent_trial columns agree with what each trial saw; `show` names the donor and the changes;
# a second `run` finds nothing to do.
# Usage: pbt_cli_test.sh GPUSWEEP_BINARY.
set -euo pipefail
gpusweep=$1
work=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT
cat > "$work/trial.py" <<'PY'
import json, math, os, sys
import gpusweep
budget = int(sys.argv[1])
lr = gpusweep.params()["lr"]
restored = gpusweep.restore_checkpoint()
state = (json.load(open(restored / "state.json")) if restored
         else {"epoch": 0, "score": 0.0, "lineage": []})
parent = os.environ.get("GPUSWEEP_PARENT_TRIAL")
with open("started.json", "w") as f:
    json.dump({"parent": int(parent) if parent else None, "epoch": state["epoch"],
               "lineage": list(state["lineage"])}, f)
for epoch in range(state["epoch"], budget):
    state["score"] += 1 - abs(math.log10(lr) + 2)   # lr near 1e-2 is best
state["epoch"] = budget
state["lineage"].append(gpusweep.trial_id())
if os.environ["GPUSWEEP_PBT_MEMBER"] != "3":
    gpusweep.save_checkpoint(state)
gpusweep.report(epoch=budget, score=state["score"])
PY
cat > "$work/pbt.yaml" <<'YAML'
name: pbt
command: [python3, '{{config_dir}}/trial.py', '{{budget}}']
metric: {name: score, mode: max}
sampler: {type: random, trials: 4, seed: 11}
search_space:
  lr: {type: loguniform, low: 1.0e-4, high: 1}
scheduler:
  type: pbt
  resource: epoch
  perturbation_interval: 1
  max_resource: 5
  population: 4
  quantile: 0.25
  explore: {resample_probability: 0.25, factors: [0.8, 1.2]}
resources: {gpus: none, cpu_slots: 2}
YAML
cd "$work"
"$gpusweep" run pbt.yaml > run.log 2>&1 || { cat run.log; exit 1; }
"$gpusweep" export --format json -o trials.json
/usr/bin/python3 - <<'PY'
import json, pathlib
rows = {r["trial"]: r for r in json.load(open("trials.json"))}
assert len(rows) == 20, len(rows)
assert all(r["state"] == "completed" for r in rows.values()), [r["state"] for r in rows.values()]
trials = pathlib.Path("runs/pbt/trials")
exploits = 0
for k in range(20):
    member, segment = k % 4, k // 4
    started = json.load(open(trials / ("%04d" % k) / "started.json"))
    # The export's lineage columns say what the trial itself saw.
    row = rows[k]
    assert (row["member"], row["segment"]) == (member, segment), (k, row)
    assert row["parent_trial"] == started["parent"], (k, row, started)
    if segment == 0:
        assert started["parent"] is None and started["epoch"] == 0, (k, started)
        continue
    parent = started["parent"]
    assert parent is not None and parent // 4 == segment - 1, (k, started)
    if parent % 4 != member:
        exploits += 1
        assert parent % 4 != 3, "member 3 never checkpointed, yet trial %d copied it" % k
    if parent % 4 == 3:  # member 3 continuing itself: nothing to restore
        assert started["epoch"] == 0 and started["lineage"] == [], (k, started)
        continue
    saved = json.load(open(trials / ("%04d" % parent) / "checkpoint" / "state.json"))
    assert started["epoch"] == segment == saved["epoch"], (k, started, saved)
    assert started["lineage"] == saved["lineage"], (k, started, saved)
    assert saved["lineage"][-1] == parent, (k, saved)
assert exploits > 0, "no member exploited another"
print("20 segments, %d exploits, every segment resumed from its parent's checkpoint" % exploits)
PY
# The receiver's segment before the exploit carries the decision; the new one its parent.
read -r before exploiting donor < <(/usr/bin/python3 -c '
import json
for k in range(4, 20):
    p = json.load(open("runs/pbt/trials/%04d/started.json" % k))["parent"]
    if p % 4 != k % 4:
        print(k - 4, k, p)
        break')
"$gpusweep" show "$exploiting" > show_new.txt
grep -q "from trial $donor's checkpoint" show_new.txt || { cat show_new.txt; exit 1; }
"$gpusweep" show "$before" > show.txt
grep -q "exploits member" show.txt || { cat show.txt; exit 1; }
grep -q "lr " show.txt || { cat show.txt; exit 1; }
"$gpusweep" run pbt.yaml > again.log 2>&1 || { cat again.log; exit 1; }
"$gpusweep" status > status.txt
grep -q "^Population (4 members" status.txt || { cat status.txt; exit 1; }
grep -Eq "^  member 3 +3 7 11 15 19 " status.txt || { cat status.txt; exit 1; }  # never copied: no <-
grep -q -- "<-" status.txt || { cat status.txt; exit 1; }
"$gpusweep" best > best.txt
grep -q "^Schedule of the best member: member" best.txt || { cat best.txt; exit 1; }
test "$(grep -c '^  epoch [0-9]*-[0-9]*  trial' best.txt)" -eq 5 || { cat best.txt; exit 1; }
# best --replay: a config that trains one member with the best member's schedule. Each
# of its segments runs with exactly the schedule's params and continues its own
# checkpoint, so the toy's score is the best member's, to the last digit.
"$gpusweep" best runs/pbt --replay > replay.yaml || { cat replay.yaml; exit 1; }
grep -q '^name: "pbt-replay"' replay.yaml || { cat replay.yaml; exit 1; }
"$gpusweep" check replay.yaml > check_replay.txt 2>&1 || { cat replay.yaml check_replay.txt; exit 1; }
"$gpusweep" run replay.yaml > replay.log 2>&1 || { cat replay.yaml replay.log; exit 1; }
"$gpusweep" export runs/pbt-replay --format json -o replay.json
best_trial=$(sed -n 's/^Schedule of the best member: member [0-9]*, trial \([0-9]*\),.*/\1/p' best.txt)
/usr/bin/python3 - "$best_trial" <<'PY'
import json, sys
best = int(sys.argv[1])
schedule = [json.loads(line.strip()[2:]) for line in open("replay.yaml")
            if line.startswith("    - {")]
assert len(schedule) == 5, schedule
rows = {r["trial"]: r for r in json.load(open("replay.json"))}
assert sorted(rows) == [0, 1, 2, 3, 4], sorted(rows)
for k, row in rows.items():
    assert row["state"] == "completed", row
    assert row["param.lr"] == schedule[k]["lr"], (k, row["param.lr"], schedule[k])
    started = json.load(open("runs/pbt-replay/trials/%04d/started.json" % k))
    assert started["parent"] == (k - 1 if k else None) and started["epoch"] == k, (k, started)
original = {r["trial"]: r for r in json.load(open("trials.json"))}
lineage = [best]
while lineage[0] >= 4:  # each segment's parent, back to segment 0
    lineage.insert(0, json.load(open("runs/pbt/trials/%04d/started.json" % lineage[0]))["parent"])
if all(t % 4 != 3 for t in lineage[:-1]):  # member 3 never saved, so its segments restarted
    assert abs(rows[4]["objective"] - original[best]["objective"]) < 1e-9, (rows[4], original[best])
print("replay: 5 segments with the schedule's params, score", rows[4]["objective"])
PY
echo "pbt_cli_test: ok"
