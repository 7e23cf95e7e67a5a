#!/usr/bin/env bash
# bench/pbt: population-based training against random search and ASHA on a toy whose
# best lr falls during training (toy_trial.py), through the real `gpusweep run`, on 2
# CPU slots, the same 144 epochs for each: PBT 8 members x 18 epochs (a perturbation every
# 2), random 8 trials x 18 epochs, ASHA (budgeted, rungs 2, 6, 18, eta 3; promotions
# resume from the checkpoint) over 30 configurations (about 140 epochs; the report counts
# each run's epochs from its trials). Seeds 1..SEEDS.
#   bench/pbt/run.sh [SEEDS=10]   writes bench/pbt/results/ (report.py makes the table)
# GPUSWEEP_BINARY=path uses another build (default build/gpusweep).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
gpusweep=${GPUSWEEP_BINARY:-$root/build/gpusweep}
seeds=${1:-10}
work=$(mktemp -d /tmp/gs-bench-pbt.XXXXXX)
trap '[ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT
out=$here/results
mkdir -p "$out"
: > "$out/runs.jsonl"
cp "$here/toy_trial.py" "$work/"
space='search_space: {lr: {type: uniform, low: 0.01, high: 1.0}}'
common='metric: {name: score, mode: max}
resources: {gpus: none, cpu_slots: 2}'
for seed in $(seq 1 "$seeds"); do
  for method in pbt random asha; do
    dir=$work/$method-$seed
    mkdir -p "$dir"
    case $method in
      pbt) cat > "$dir/exp.yaml" <<EOF
name: toy
command: [/usr/bin/python3, '$work/toy_trial.py', '{{budget}}']
$common
$space
sampler: {type: random, trials: 8, seed: $seed}
scheduler: {type: pbt, resource: epoch, perturbation_interval: 2, max_resource: 18,
            population: 8, quantile: 0.25, synchronous: false,
            explore: {resample_probability: 0.25, factors: [0.8, 1.2]}, mutations: [lr]}
EOF
      ;;
      random) cat > "$dir/exp.yaml" <<EOF
name: toy
command: [/usr/bin/python3, '$work/toy_trial.py', '18']
$common
$space
sampler: {type: random, trials: 8, seed: $seed}
EOF
      ;;
      asha) cat > "$dir/exp.yaml" <<EOF
name: toy
command: [/usr/bin/python3, '$work/toy_trial.py', '{{budget}}']
$common
$space
sampler: {type: random, trials: 30, seed: $seed}
scheduler: {type: asha, resource: epoch, min_resource: 2, max_resource: 18, reduction_factor: 3}
EOF
      ;;
    esac
    (cd "$dir" && "$gpusweep" run exp.yaml > run.log 2>&1 && "$gpusweep" export --format json -o trials.json)
    if [ "$method" = pbt ]; then (cd "$dir" && "$gpusweep" best > "$out/best_pbt_seed$seed.txt"); fi
    /usr/bin/python3 "$here/summarise.py" "$method" "$seed" "$dir/trials.json" >> "$out/runs.jsonl"
    echo "$method seed $seed: $(tail -1 "$out/runs.jsonl")"
  done
done
/usr/bin/python3 "$here/report.py" "$out"
