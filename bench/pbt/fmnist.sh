#!/usr/bin/env bash
# bench/pbt/fmnist.sh: population-based training against random search and ASHA on the
# Fashion-MNIST CNN (examples/fashion-mnist/train.py, SGD), through the real `gpusweep
# run`, on 2 CPU slots, lr and momentum as PBT's mutable params, the same 64 epochs for
# each method: PBT 8 members x 8 epochs (a perturbation every 2), random 8 trials x 8
# epochs, ASHA (budgeted, rungs 2, 4, 8, eta 2; promotions resume from the checkpoint)
# over 16 configurations (2 + 1 + 1 epochs a configuration in expectation). Every
# trial trains on the same 8,000 images and is scored on the same 2,000 held-out ones
# (val_acc at the last epoch it trained). Seeds 1..SEEDS (the sampler's seed; the
# network's initialisation seed is the trial's, so the methods differ only in search).
#   bench/pbt/fmnist.sh [SEEDS=3]   appends to bench/pbt/results/fmnist_runs.jsonl
#   (report.py results fmnist_ makes the table)
# EPOCHS=16 trains every trial that long instead (ASHA's rungs 2, 4, ..., EPOCHS; give
# EPOCHS a power of 2 and ASHA_TRIALS the configurations for the same total, e.g. 26 for
# 16: 2 + 1 + 1 + 1 epochs each in expectation) and writes results/fmnist16_*.
# GPUSWEEP_BINARY=path uses another build (default build/gpusweep); METHODS="pbt asha"
# runs a subset; KEEP=1 keeps the work directory.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
gpusweep=${GPUSWEEP_BINARY:-$root/build/gpusweep}
seeds=${1:-3}
methods=${METHODS:-pbt random asha}
epochs_each=${EPOCHS:-8}
asha_trials=${ASHA_TRIALS:-16}
prefix=fmnist_
[ "$epochs_each" = 8 ] || prefix=fmnist${epochs_each}_
[ -d /usr/share/datasets/fashion-mnist ] || {
  echo "fmnist.sh: /usr/share/datasets/fashion-mnist is missing (apt install dataset-fashion-mnist)" >&2
  exit 2
}
work=$(mktemp -d /tmp/gs-bench-pbt-fmnist.XXXXXX)
trap '[ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT
out=$here/results
mkdir -p "$out"
train=$root/examples/fashion-mnist/train.py
command="command: [/usr/bin/python3, '$train', --optimizer, sgd, --lr, '{{lr}}',
          --momentum, '{{momentum}}', --epochs, 'EPOCHS', --train-size, '8000',
          --val-size, '2000', --seed, '{{trial.number}}'CHECKPOINT]"
common="metric: {name: val_acc, mode: max}
resources: {gpus: none, cpu_slots: 2}
timeout: 10m
search_space:
  lr: {type: loguniform, low: 0.003, high: 0.3}
  momentum: {type: uniform, low: 0.5, high: 0.99}"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
for seed in $(seq 1 "$seeds"); do
  for method in $methods; do
    dir=$work/$method-$seed
    mkdir -p "$dir"
    case $method in
      pbt) epochs='{{budget}}'; checkpoint='' ;;          # $GPUSWEEP_CHECKPOINT_DIR
      random) epochs=$epochs_each; checkpoint='' ;;
      asha) epochs='{{budget}}'; checkpoint=", --checkpoint, checkpoint.pt" ;;
    esac
    {
      echo "name: fmnist-$method"
      echo "${command//EPOCHS/$epochs}" | sed "s|CHECKPOINT|$checkpoint|"
      echo "$common"
      case $method in
        pbt) echo "sampler: {type: random, trials: 8, seed: $seed}"
             echo "scheduler: {type: pbt, resource: epoch, perturbation_interval: 2, max_resource: $epochs_each,"
             echo "            population: 8, quantile: 0.25, synchronous: false,"
             echo "            explore: {resample_probability: 0.25, factors: [0.8, 1.2]},"
             echo "            mutations: [lr, momentum]}" ;;
        random) echo "sampler: {type: random, trials: 8, seed: $seed}" ;;
        asha) echo "sampler: {type: random, trials: $asha_trials, seed: $seed}"
              echo "scheduler: {type: asha, resource: epoch, min_resource: 2, max_resource: $epochs_each, reduction_factor: 2}" ;;
      esac
    } > "$dir/exp.yaml"
    started=$(date +%s)
    (cd "$dir" && "$gpusweep" run exp.yaml > run.log 2>&1 && "$gpusweep" export --format json -o trials.json) ||
      { echo "fmnist.sh: $method seed $seed failed; see $dir/run.log" >&2; tail -20 "$dir/run.log" >&2; exit 1; }
    if [ "$method" = pbt ]; then (cd "$dir" && "$gpusweep" best > "$out/${prefix}best_pbt_seed$seed.txt"); fi
    /usr/bin/python3 "$here/summarise.py" "$method" "$seed" "$dir/trials.json" \
      --epochs "$epochs_each" --interval 2 --final-only >> "$out/${prefix}runs.jsonl"
    echo "$method seed $seed: $(( $(date +%s) - started )) s, $(tail -1 "$out/${prefix}runs.jsonl")" >&2
  done
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
