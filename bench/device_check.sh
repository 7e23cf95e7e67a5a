#!/usr/bin/env bash
# Checks gpusweep's real NVML path on a machine with an NVIDIA GPU (the tests use a fake
# libnvidia-ml): detection, the mask PyTorch sees, GPU memory verified free after a
# trial, sharing, and a foreign process's memory. Prints one PASS/FAIL line per check
# and exits non-zero if any failed. About 1-2 minutes; nothing is left running.
#
# Usage: bench/device_check.sh            (needs build/gpusweep, /usr/bin/python3 with
#                                          CUDA-enabled torch, nvidia-smi)
set -uo pipefail
cd "$(dirname "$0")/.."
binary=$PWD/build/gpusweep
python=/usr/bin/python3
fail() { echo "device_check.sh: $*" >&2; exit 2; }
[ -x "$binary" ] || fail "build/gpusweep is missing: run scripts/build.sh first"
command -v nvidia-smi >/dev/null || fail "nvidia-smi not found: no NVIDIA driver on this machine"
"$python" -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' 2>/dev/null ||
  fail "$python has no CUDA-enabled torch"

work=$(mktemp -d)
foreign=""
cleanup() { [ -n "$foreign" ] && kill "$foreign" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT
failures=0
report() {  # $1 = check, $2 = 0 for pass, $3 = detail
  if [ "$2" -eq 0 ]; then echo "PASS  $1: $3"; else echo "FAIL  $1: $3"; failures=$((failures + 1)); fi
}

# The trial: allocates ALLOC_GIB on its GPU, reports what CUDA shows it, holds HOLD_S.
cat > "$work/trial.py" <<'PY'
import json, os, time
import torch
alloc_gib = float(os.environ.get("ALLOC_GIB", "0"))
free_before, total = torch.cuda.mem_get_info(0)
block = torch.empty(int(alloc_gib * 2**30), dtype=torch.uint8, device="cuda") if alloc_gib else None
torch.cuda.synchronize()
props = torch.cuda.get_device_properties(0)
line = {"ok": 1, "mask": os.environ.get("CUDA_VISIBLE_DEVICES"),
        "devices": torch.cuda.device_count(), "uuid": "GPU-" + str(getattr(props, "uuid", "")),
        "free_before_mib": free_before // 2**20, "pid": os.getpid()}
with open(os.environ["GPUSWEEP_METRICS"], "a") as f:
    f.write(json.dumps(line) + "\n")
time.sleep(float(os.environ.get("HOLD_S", "0")))
PY

sweep() {  # $1 = name, $2 = trials, $3 = resources, $4 = ALLOC_GIB, $5 = HOLD_S
  cat > "$work/$1.yaml" <<YAML
name: $1
command: [/usr/bin/env, ALLOC_GIB=$4, HOLD_S=$5, $python, "$work/trial.py"]
metric: {name: ok, mode: max}
sampler: {type: grid}
search_space:
  i: {type: int, low: 1, high: $2}
resources: $3
timeout: 5m
YAML
  (cd "$work" && timeout 300 "$binary" run "$1.yaml" > "$work/$1.log" 2>&1)
}

# Facts from one experiment's journal, as JSON on one line.
facts() {  # $1 = experiment name
  "$python" - "$work/runs/$1/gpusweep.db" <<'PY'
import json, sqlite3, sys
db = sqlite3.connect(f"file:{sys.argv[1]}?mode=ro", uri=True)
trials = [dict(zip(("state", "gpus", "start", "end", "metrics"), row)) for row in db.execute(
    "select state, gpus, start_time, end_time, last_metrics from trials order by number")]
events = {}
for kind, detail in db.execute("select kind, detail from events"):
    events.setdefault(kind, []).append(json.loads(detail))
most = max((sum(1 for o in trials if o["start"] <= t["start"] < o["end"]) for t in trials), default=0)
gaps = [b["start"] - a["end"] for a, b in zip(trials, trials[1:])]
print(json.dumps({
    "completed": sum(t["state"] == "completed" for t in trials), "trials": len(trials),
    "metrics": [json.loads(t["metrics"]) for t in trials], "most_at_once": most,
    "gaps": gaps, "peaks_mib": [e["peak_bytes"] // 2**20 for e in events.get("trial_gpu_memory", [])],
    "quarantined": events.get("gpu_quarantined", []), "foreign": events.get("gpu_foreign_memory", [])}))
PY
}
field() { "$python" -c "import json,sys; d=json.loads(sys.argv[1]); print(eval(sys.argv[2], {}, d))" "$1" "$2"; }

echo "GPUs (nvidia-smi): $(nvidia-smi --query-gpu=index,name,memory.total --format=csv,noheader | paste -sd';')"

# 1+2. Detection and the mask: 3 exclusive trials of 2 GiB, one after another on GPU 0.
sweep release 3 "{gpus: [0], gpu_release_timeout: 60s}" 2 0
f=$(facts release)
uuid0=$(nvidia-smi --query-gpu=uuid --format=csv,noheader -i 0)
report "detection" "$([ "$(field "$f" completed)" = 3 ] && echo 0 || echo 1)" \
  "$(field "$f" completed)/3 trials completed on GPU 0 ($(head -c 300 "$work/release.log" | tr '\n' ' '))"
report "mask" "$(field "$f" "all(m['mask']=='0' and m['devices']==1 and m['uuid']=='$uuid0' for m in metrics)" | grep -q True; echo $?)" \
  "CUDA_VISIBLE_DEVICES, device count, UUID per trial: $(field "$f" "[(m['mask'], m['devices'], m['uuid']) for m in metrics]")"
# 3. Memory verified free: NVML saw each trial's 2 GiB (per-process accounting matched
# its pids), no GPU was quarantined, and each next trial found the memory free.
report "memory per trial (NVML)" "$(field "$f" "len(peaks_mib)==3 and min(peaks_mib)>=2048" | grep -q True; echo $?)" \
  "peaks MiB $(field "$f" peaks_mib)"
report "memory freed before reuse" "$(field "$f" "not quarantined and max(m['free_before_mib'] for m in metrics)-min(m['free_before_mib'] for m in metrics) < 512" | grep -q True; echo $?)" \
  "free MiB at each start $(field "$f" "[m['free_before_mib'] for m in metrics]"), gaps s $(field "$f" "[round(g,2) for g in gaps]"), quarantined $(field "$f" "len(quarantined)")"

# 4. Sharing: 8 trials of 1 GiB holding 4 s, trials_per_gpu 4.
sweep share 8 "{gpus: [0], trials_per_gpu: 4, gpu_memory_per_trial: 3GiB}" 1 4
f=$(facts share)
report "sharing" "$(field "$f" "completed==8 and most_at_once==4 and all(m['devices']==1 for m in metrics)" | grep -q True; echo $?)" \
  "completed $(field "$f" completed)/8, most at once $(field "$f" most_at_once) (limit 4), peaks MiB $(field "$f" peaks_mib)"

# 5. A foreign process: 3 GiB held on GPU 0 by a process gpusweep did not start.
"$python" -c 'import torch, time; x = torch.empty(3 * 2**30, dtype=torch.uint8, device="cuda"); torch.cuda.synchronize(); time.sleep(300)' &
foreign=$!
sleep 8  # CUDA init
sweep foreign 2 "{gpus: [0]}" 0 2
f=$(facts foreign)
report "foreign process reported" "$(field "$f" "any($foreign in e['pids'] for e in foreign)" | grep -q True; echo $?)" \
  "$(grep -h 'did not start it' "$work/foreign.log" | head -1)"
kill "$foreign" 2>/dev/null; wait "$foreign" 2>/dev/null; foreign=""

echo "device_check: $failures check(s) failed"
[ "$failures" -eq 0 ]
