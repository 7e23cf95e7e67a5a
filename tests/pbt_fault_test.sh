#!/usr/bin/env bash
# Population-based training against the failure modes Ray Tune's PBT had (issue 23), one
# MODE per CTest test, each through a real `gpusweep run` with a Python trial that saves
# its state with the helper and records where it started:
#   no_donor   ray#27170: member 0 always ranks first but never saves a checkpoint; no
#              member may copy it (each bottom member continues its own), and `show`
#              says why.
#   sync_fail  ray#23424: synchronous PBT where member 2 fails at its second segment;
#              every other member still finishes every generation, none is left paused.
#   resume     ray#12558: kill -9 gpusweep mid-run, `run` again; every segment completes
#              once and every member's final checkpoint holds one complete lineage, each
#              segment continuing the one before it.
#   no_stall   ray#9036: asynchronous members of very different speeds; the run ends
#              with every segment completed and no trial paused, pending or running.
# Every run has a time limit, so a stalled population fails the test instead of hanging.
# Usage: pbt_fault_test.sh GPUSWEEP_BINARY MODE.
set -euo pipefail
gpusweep=$1
mode=$2
work=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT
cat > "$work/trial.py" <<'PY'
import json, os, sys, time
import gpusweep
budget = int(sys.argv[1])
member = int(os.environ["GPUSWEEP_PBT_MEMBER"])
segment = int(os.environ["GPUSWEEP_PBT_SEGMENT"])
mode = os.environ["FAULT_MODE"]
lr = gpusweep.params()["lr"]
restored = gpusweep.restore_checkpoint()
state = (json.load(open(restored / "state.json")) if restored
         else {"epoch": 0, "lineage": []})
parent = os.environ.get("GPUSWEEP_PARENT_TRIAL")
with open("started.json", "w") as f:
    json.dump({"parent": int(parent) if parent else None, "epoch": state["epoch"],
               "lineage": list(state["lineage"])}, f)
if mode == "sync_fail" and member == 2 and segment == 1:
    sys.exit("member 2 fails at its second segment")
if mode == "resume":
    time.sleep(0.3)
if mode == "no_stall":
    time.sleep(0.05 + 0.4 * (member == 1))   # member 1 is eight times slower
state["epoch"] = budget
state["lineage"].append(gpusweep.trial_id())
score = 100.0 if (mode == "no_donor" and member == 0) else lr
if not (mode == "no_donor" and member == 0):
    gpusweep.save_checkpoint(state)
gpusweep.report(epoch=budget, score=score)
PY
population=4 segments=4 sync=false
case $mode in
  sync_fail) sync=true ;;
  resume) segments=6 ;;
  no_stall) segments=6 ;;
  no_donor) ;;
  *) echo "unknown mode $mode"; exit 2 ;;
esac
cat > "$work/pbt.yaml" <<YAML
name: pbt
command: [python3, '{{config_dir}}/trial.py', '{{budget}}']
metric: {name: score, mode: max}
sampler: {type: random, trials: $population, seed: 5}
search_space:
  lr: {type: uniform, low: 0.0, high: 1.0}
scheduler:
  type: pbt
  resource: epoch
  perturbation_interval: 1
  max_resource: $segments
  population: $population
  quantile: 0.25
  synchronous: $sync
resources: {gpus: none, cpu_slots: 2}
YAML
cd "$work"
export FAULT_MODE=$mode
total=$((population * segments))
rc=0
if [ "$mode" = resume ]; then
  "$gpusweep" run pbt.yaml > first.log 2>&1 &
  pid=$!
  # kill -9 once a few segments finished and others run (segment 2 started)
  for _ in $(seq 1 300); do [ -f runs/pbt/trials/0008/started.json ] && break; sleep 0.05; done
  test -f runs/pbt/trials/0008/started.json || { cat first.log; echo "never reached segment 2"; exit 1; }
  kill -9 "$pid"; wait "$pid" || true
  sleep 0.5   # orphaned trials of the killed run finish or are found by the next run
fi
timeout 120 "$gpusweep" run pbt.yaml > run.log 2>&1 || rc=$?
[ "$rc" -ne 124 ] || { cat run.log; echo "$mode: the run stalled (timeout)"; exit 1; }
"$gpusweep" export --format json -o trials.json
"$gpusweep" status > status.txt
MODE=$mode TOTAL=$total POP=$population RC=$rc /usr/bin/python3 - <<'PY'
import json, os, pathlib
mode, total, pop, rc = os.environ["MODE"], int(os.environ["TOTAL"]), int(os.environ["POP"]), int(os.environ["RC"])
rows = {r["trial"]: r for r in json.load(open("trials.json"))}
trials = pathlib.Path("runs/pbt/trials")
started = lambda k: json.load(open(trials / ("%04d" % k) / "started.json"))
assert len(rows) == total, (len(rows), total)
states = {k: r["state"] for k, r in rows.items()}
assert not [k for k, s in states.items() if s in ("paused", "pending", "running")], states
if mode == "sync_fail":
    for k, s in states.items():
        m, seg = k % pop, k // pop
        if m == 2 and seg >= 1:
            assert s != "completed", (k, s)
        else:
            assert s == "completed", (k, s)
    print("sync_fail: members 0, 1, 3 finished all %d generations; member 2 ended at its failure (run rc %d)"
          % (total // pop, rc))
    raise SystemExit
assert rc == 0, rc
assert all(s == "completed" for s in states.values()), states
if mode == "no_donor":
    copied = [k for k in range(pop, total) if started(k)["parent"] % pop == 0 and k % pop != 0]
    assert not copied, "member 0 never checkpointed, yet trials %s copied it" % copied
    print("no_donor: %d segments, none copied member 0" % total)
if mode in ("resume", "no_stall"):
    segments = total // pop
    for m in range(pop):
        last = (segments - 1) * pop + m
        lineage = json.load(open(trials / ("%04d" % last) / "checkpoint" / "state.json"))["lineage"]
        assert len(lineage) == segments and lineage[-1] == last, (m, lineage)
        for s, k in enumerate(lineage):
            assert k // pop == s, (m, lineage)          # one segment per resource step
            if s:
                assert started(k)["parent"] == lineage[s - 1], (m, k, lineage)
                assert started(k)["lineage"] == lineage[:s], (m, k, lineage)
    print("%s: %d segments completed; every member's final checkpoint has one complete lineage"
          % (mode, total))
PY
if [ "$mode" = no_donor ]; then  # the bottom member of a point says why it kept its own
  for k in 0 1 2 3; do "$gpusweep" show $k; done > show.txt
  grep -q "none of the top 1 left a checkpoint" show.txt || { cat show.txt; exit 1; }
fi
echo "pbt_fault_test $mode: ok"
