#!/usr/bin/env bash
# Throughput of several trials per GPU: the Fashion-MNIST example's trials on ONE GPU,
# first with exclusive masks (one trial at a time, the default), then with
# `resources.trials_per_gpu: 4` and `8`. The same trials (same seeds and settings) in
# every mode; the table gives trials per hour and the ratio to the exclusive run, and
# each mode's median GPU memory peak per trial (from gpusweep's NVML readings).
# The issue's target: at least 3x the exclusive throughput on a large GPU.
#
# Usage: bench/gpu_sharing.sh [TRIALS] [EPOCHS]   (default 16 trials of 2 epochs)
#   GPU=1 bench/gpu_sharing.sh                    (which GPU; default 0)
# Needs: build/gpusweep, an NVIDIA GPU with its driver (libnvidia-ml.so.1),
# /usr/bin/python3 with CUDA-enabled torch, and /usr/share/datasets/fashion-mnist.
# Each mode is cut off after MODE_LIMIT seconds (default 140), so the whole stays under
# 8 minutes; a mode cut off prints how many trials it finished and their rate.
set -euo pipefail
cd "$(dirname "$0")/.."
trials=${1:-16}
epochs=${2:-2}
gpu=${GPU:-0}
mode_limit=${MODE_LIMIT:-140}
repo=$PWD
binary=$repo/build/gpusweep
python=/usr/bin/python3

fail() { echo "gpu_sharing.sh: $*" >&2; exit 2; }
[ -x "$binary" ] || fail "build/gpusweep is missing: run scripts/build.sh first"
# NVML, the same library gpusweep loads; without it there is nothing to measure.
"$python" - <<'PY' || fail "no NVIDIA driver here (libnvidia-ml.so.1 cannot be loaded or finds no GPU): this benchmark needs a GPU; its numbers are pending a GPU run (bench/README.md)"
import ctypes, sys
try:
    nvml = ctypes.CDLL("libnvidia-ml.so.1")
except OSError:
    sys.exit(1)
if nvml.nvmlInit_v2() != 0:
    sys.exit(1)
count = ctypes.c_uint(0)
sys.exit(0 if nvml.nvmlDeviceGetCount_v2(ctypes.byref(count)) == 0 and count.value > 0 else 1)
PY
"$python" -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' 2>/dev/null ||
  fail "$python has no CUDA-enabled torch (python3 -c 'import torch; print(torch.cuda.is_available())')"
[ -e /usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz ] ||
  fail "the Fashion-MNIST training set is not in /usr/share/datasets/fashion-mnist"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
now() { date +%s.%N; }

# A fixed list of settings (grid over seeds and widths): every mode runs the same work.
write_sweep() {  # $1 = name, $2 = trials_per_gpu
  cat > "$work/$1.yaml" <<YAML
name: $1
command: [$python, "$repo/examples/fashion-mnist/train.py",
          --lr, "0.003", --channels, "{{channels}}", --dropout, "0.25",
          --batch-size, "128", --epochs, "$epochs",
          --train-size, "10000", --val-size, "2000", --seed, "{{seed}}"]
metric: {name: val_acc, mode: max}
sampler: {type: grid}
search_space:
  channels: {type: choice, values: [16, 32]}
  seed: {type: int, low: 1, high: $(( (trials + 1) / 2 ))}
resources: {gpus: [$gpu], trials_per_gpu: $2, gpu_release_timeout: 60s}
timeout: 10m
YAML
}

# Reads one experiment's journal: finished trials, their span, median GPU memory peak.
summarize() {  # $1 = experiment dir
  "$python" - "$1/gpusweep.db" <<'PY'
import json, sqlite3, statistics, sys
db = sqlite3.connect(f"file:{sys.argv[1]}?mode=ro", uri=True)
done = db.execute("select count(*) from trials where state = 'completed'").fetchone()[0]
peaks = []
for (detail,) in db.execute("select detail from events where kind = 'trial_gpu_memory'"):
    peaks.append(json.loads(detail)["peak_bytes"] / 2**20)
print(done, f"{statistics.median(peaks):.0f}" if peaks else "-")
PY
}

printf '%-14s %8s %10s %12s %8s %16s\n' mode trials wall_s trials/hour ratio "median peak MiB"
base_rate=""
for per_gpu in 1 4 8; do
  name=share$per_gpu
  write_sweep "$name" "$per_gpu"
  start=$(now)
  status=0
  (cd "$work" && timeout --signal=INT "$mode_limit" "$binary" run "$name.yaml" \
      > "$work/$name.log" 2>&1) || status=$?
  wall=$(echo "$(now) - $start" | bc)
  read -r done peak < <(summarize "$work/runs/$name")
  [ "$status" -eq 0 ] || [ "$status" -eq 124 ] || [ "$status" -eq 130 ] ||
    { tail -20 "$work/$name.log" >&2; fail "mode trials_per_gpu=$per_gpu: gpusweep exited $status"; }
  rate=$(echo "scale=1; $done * 3600 / $wall" | bc)
  if [ -z "$base_rate" ]; then base_rate=$rate; fi
  ratio=$(echo "scale=2; $rate / $base_rate" | bc)
  label=$([ "$per_gpu" = 1 ] && echo exclusive || echo "trials_per_gpu=$per_gpu")
  note=$([ "$status" -eq 0 ] && echo "" || echo " (cut off at ${mode_limit}s)")
  printf '%-14s %8s %10.1f %12s %8s %16s%s\n' "$label" "$done" "$wall" "$rate" "$ratio" "$peak" "$note"
  grep -h "quarantined\|not used for now\|did not start it" "$work/$name.log" | sed 's/^/  /' || true
done
echo "GPU $gpu: $(nvidia-smi --query-gpu=name,memory.total --format=csv,noheader -i "$gpu" 2>/dev/null || echo unknown)"
