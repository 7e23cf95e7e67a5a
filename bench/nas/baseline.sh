#!/usr/bin/env bash
# The NAS tournament against regularized evolution and its random baseline on
# examples/nas-fashion-mnist/nas-cpu.yaml: for each seed, the same config run with
# `nas.search: tournament`, `nas.search: evolution` (regularized evolution, docs/nas.md)
# and `nas.search: random` (the same number of evaluations, data sizes and epochs, spent
# on random architectures of the same space), back to back so all see the same load.
# Prints one line per run (wall time, load average, evaluations, final test
# accuracy of the retrained network) and a summary per search mode.
#
# Usage: bench/nas/baseline.sh [SEED...]        (default seeds: 1 2 3)
#   GPUSWEEP=build/gpusweep  WORK=build/nas-baseline  CONFIG=.../nas-cpu.yaml
#   SEARCHES="tournament evolution random"  (the modes to run, in this order)
# Each run takes what the example's README says (minutes on 2 cores); runs already
# finished under $WORK are reused (gpusweep resumes them), so an interrupted bench
# continues where it stopped.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
gpusweep="${GPUSWEEP:-$root/build/gpusweep}"
work="${WORK:-$root/build/nas-baseline}"
config="${CONFIG:-$root/examples/nas-fashion-mnist/nas-cpu.yaml}"
example_dir="$(cd "$(dirname "$config")" && pwd)"
seeds=("$@")
((${#seeds[@]} > 0)) || seeds=(1 2 3)
mkdir -p "$work"
echo "config $config; load average $(cut -d' ' -f1-3 /proc/loadavg) at start; $(nproc) cores"

# Summarises one finished experiment directory as "evaluations test_acc".
summarise() {
  /usr/bin/python3 - "$1" <<'PY'
import json, pathlib, sys
trials = sorted(pathlib.Path(sys.argv[1], "trials").iterdir())
test_acc = None
for t in trials:
    params = json.loads((t / "params.json").read_text())
    lines = [json.loads(l) for l in (t / "metrics.jsonl").read_text().splitlines() if l.strip()] \
        if (t / "metrics.jsonl").exists() else []
    if params.get("nas_stage") == "retrain" and lines and "test_acc" in lines[-1]:
        test_acc = lines[-1]["test_acc"]
print(len(trials) - 1, "none" if test_acc is None else test_acc)
PY
}

results=()
for seed in "${seeds[@]}"; do
  for search in ${SEARCHES:-tournament evolution random}; do
    name="nas-cpu-$search-s$seed"
    cfg="$work/$name.yaml"
    # The example's config with its own name, seed and search mode; {{config_dir}}
    # pinned to the example so train.py is found from $work.
    sed -e "s|^name: .*|name: $name|" -e "s|{{config_dir}}|$example_dir|g" \
        -e "s|^  search: .*|  search: $search|" -e "s|^  seed: .*|  seed: $seed|" \
        "$config" > "$cfg"
    printf 'output_dir: %s\n' "$work/$name" >> "$cfg"
    load_before=$(cut -d' ' -f1 /proc/loadavg)
    start=$(date +%s)
    "$gpusweep" run "$cfg" > "$work/$name.log" 2>&1 || {
      echo "$name: gpusweep run failed, see $work/$name.log" >&2; exit 1; }
    wall=$(( $(date +%s) - start ))
    read -r evaluations test_acc < <(summarise "$work/$name")
    line=$(printf '%-10s seed %-3s wall %4d s  load %s..%s  evaluations %3d (+1 retrain)  test_acc %s' \
      "$search" "$seed" "$wall" "$load_before" "$(cut -d' ' -f1 /proc/loadavg)" "$evaluations" "$test_acc")
    echo "$line"
    results+=("$search $test_acc")
  done
done

printf '%s\n' "${results[@]}" | /usr/bin/python3 -c '
import statistics, sys
by = {}
for line in sys.stdin:
    search, acc = line.split()
    if acc != "none":
        by.setdefault(search, []).append(float(acc))
for search, accs in by.items():
    sd = statistics.stdev(accs) if len(accs) > 1 else 0.0
    print("%-10s test_acc mean %.4f  sd %.4f  over %d seeds: %s"
          % (search, statistics.mean(accs), sd, len(accs), " ".join("%.4f" % a for a in accs)))'
