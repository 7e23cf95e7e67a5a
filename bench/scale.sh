#!/usr/bin/env bash
# The read commands at scale (issue 25): a random sweep of 1,000 and of 100,000 instant
# trials (/bin/sh appending one metric line; 3 parameters; 2 CPU slots), then each read
# command timed at both sizes with /usr/bin/time (wall seconds, peak RSS), the median of
# R runs, and its ratio 100k / 1k; then `status` and `best` of a copy with two
# objectives (pareto_experiment). Prints the table and the load average.
#
# Building the 100,000-trial experiment takes ~9 minutes of both cores; it runs once,
# under `nice -n 19`, into the cache directory and is reused while its journal holds
# every trial completed (delete the directory to build it again). The run's own time
# and peak RSS are recorded there when it is built (the `run` rows).
# Usage: [GPUSWEEP_BINARY=path] [SCALE_CACHE=dir] [SCALE_RUN_MAX=n] bench/scale.sh [R] [SIZES...]
#   R: runs per command (default 3); SIZES: default "1000 100000"; SCALE_CACHE default
#   /tmp/gpusweep-scale; SCALE_RUN_MAX: sizes above it are synthesized from the first
#   size's journal instead of run (below). Needs build/gpusweep unless GPUSWEEP_BINARY
#   names another.
set -euo pipefail
cd "$(dirname "$0")/.."
repeats=${1:-3}
shift || true
sizes=("$@")
[[ ${#sizes[@]} -gt 0 ]] || sizes=(1000 100000)
binary=${GPUSWEEP_BINARY:-$PWD/build/gpusweep}
cache=${SCALE_CACHE:-/tmp/gpusweep-scale}
run_max=${SCALE_RUN_MAX:-1000000}  # larger sizes are synthesized (synthesize_experiment)
mkdir -p "$cache"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The objective comes from the params, so ranking, ties and sorting see real values.
build_experiment() {  # size -> $cache/<size>/runs/scale-<size>
  local n=$1 dir=$cache/$1
  local db=$dir/runs/scale-$n/gpusweep.db
  if [[ -f $db ]] && [[ $(/usr/bin/python3 -c "import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute(\"select count(*) from trials where state='completed'\").fetchone()[0])" "$db") == "$n" ]]; then
    return
  fi
  rm -rf "$dir"
  mkdir -p "$dir"
  if (( n > run_max )); then synthesize_experiment "$n"; return; fi
  cat > "$dir/sweep.yaml" <<YAML
name: scale-$n
command: [/bin/sh, -c, 'echo "{\"loss\": {{a}}.{{b}}, \"c\": \"{{c}}\"}" >> "\$GPUSWEEP_METRICS"']
metric: {name: loss, mode: min}
sampler: {type: random, trials: $n, seed: 1}
search_space:
  a: {type: int, low: 0, high: 999}
  b: {type: int, low: 0, high: 99}
  c: {type: choice, values: [x, y, z]}
resources: {gpus: none, cpu_slots: 2}
YAML
  echo "building the $n-trial experiment in $dir (nice -n 19) ..." >&2
  (cd "$dir" && nice -n 19 /usr/bin/time -f '%e %M' -o "$dir/run.time" \
     "$binary" run sweep.yaml > "$dir/run.log" 2>&1)
  cut -d' ' -f1-3 /proc/loadavg > "$dir/run.load"
}

# An experiment larger than SCALE_RUN_MAX trials is written, not run: the journal of the
# run one (the first size) with its trials and results replaced by `n` of the same shape
# (params drawn as the random sampler's, the objective from them, one result line each),
# its experiment row and experiment.json saying `n` trials, and the first size's trial
# directories. On a machine shared with other builds the 100,000-trial run took hours.
synthesize_experiment() {
  local n=$1 dir=$cache/$1 from=$cache/${sizes[0]}
  mkdir -p "$dir/runs/scale-$n"
  sed "s/scale-${sizes[0]}/scale-$n/; s/trials: ${sizes[0]},/trials: $n,/" "$from/sweep.yaml" > "$dir/sweep.yaml"
  cp -r "$from/runs/scale-${sizes[0]}/trials" "$dir/runs/scale-$n/"
  /usr/bin/python3 - "$from/runs/scale-${sizes[0]}" "$dir/runs/scale-$n" "$n" "$dir/sweep.yaml" <<'PY'
import json, random, shutil, sqlite3, sys
src, dst, n, yaml = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
meta = json.load(open(f"{src}/experiment.json"))
meta.update(name=f"scale-{n}", total_trials=n, config_path=yaml)
json.dump(meta, open(f"{dst}/experiment.json", "w"), indent=2)
shutil.copy(f"{src}/gpusweep.db", f"{dst}/gpusweep.db")
db = sqlite3.connect(f"{dst}/gpusweep.db")
name, identity = db.execute("select name, identity from experiment").fetchone()
identity = json.loads(identity)
identity["sampler"]["trials"] = n
db.execute("update experiment set name = ?, config_path = ?, config_yaml = ?, identity = ?",
           (f"scale-{n}", yaml, open(yaml).read(), json.dumps(identity, separators=(",", ":"))))
template = db.execute("select * from trials order by number limit 1").fetchone()
db.execute("delete from trials")
db.execute("delete from results")
rng = random.Random(1)
t0 = template[6]
trials, results = [], []
for k in range(n):
    a, b, c = rng.randint(0, 999), rng.randint(0, 99), rng.choice("xyz")
    params = json.dumps({"a": a, "b": b, "c": c}, separators=(",", ":"))
    loss = float(f"{a}.{b}")
    metrics = json.dumps({"loss": loss, "c": c}, separators=(",", ":"))
    start = t0 + k * 0.005
    row = list(template)
    row[0], row[3], row[6], row[7], row[8], row[13], row[14] = k, params, start, start + 0.05, 10000 + k % 30000, loss, metrics
    trials.append(row)
    results.append((k, 1, 0, start + 0.04, metrics))
db.executemany(f"insert into trials values ({','.join('?' * len(template))})", trials)
db.executemany('insert into results (trial, attempt, step, time, "values") values (?, ?, ?, ?, ?)', results)
db.commit()
db.execute("pragma wal_checkpoint(truncate)")
PY
  echo "synthesized (not run)" > "$dir/run.load"
}

# The same experiment with two objectives (loss min and size min, size = 999 - a + b/100:
# a trade-off along a, b breaking it), for the Pareto front's `status` and `best`: a copy
# whose recorded config says `metrics:` and whose trials report size too. Made again
# from the plain one each time (seconds).
pareto_experiment() {  # size -> $cache/<size>-pareto/scale-<size>
  local n=$1 from=$cache/$1/runs/scale-$1 to=$cache/$1-pareto/scale-$1
  rm -rf "$cache/$1-pareto"
  mkdir -p "$to"
  cp "$from/experiment.json" "$to/"
  /usr/bin/python3 - "$from/gpusweep.db" "$to/gpusweep.db" <<'PY'
import json, sqlite3, sys
src = sqlite3.connect(sys.argv[1])
src.execute("pragma wal_checkpoint(truncate)")
src.backup(db := sqlite3.connect(sys.argv[2]))
identity = json.loads(db.execute("select identity from experiment").fetchone()[0])
identity["metrics"] = [{"name": "loss", "mode": "min"}, {"name": "size", "mode": "min"}]
db.execute("update experiment set identity = ?", (json.dumps(identity, separators=(",", ":")),))
db.execute("update trials set last_metrics = json_set(last_metrics, '$.size', "
           "round(999 - json_extract(params, '$.a') + json_extract(params, '$.b') / 100.0, 2)) "
           "where state = 'completed'")
db.commit()
PY
}

# Median wall seconds and the largest peak RSS (KiB) of `repeats` runs of a command.
# The time is read from the clock around /usr/bin/time (its %e counts in 10 ms steps,
# which made the 1,000-trial times 0.00-0.02 s and their ratios noise); it includes
# /usr/bin/time's own start, about a millisecond.
measure() {  # out-file command...
  local out=$1; shift
  local times=() rss=0 start end t m
  for _ in $(seq "$repeats"); do
    start=$(date +%s%N)
    /usr/bin/time -f '%e %M' -o "$work/t" "$@" > "$work/out" 2> "$work/err" || {
      echo "failed: $* ($(head -c 300 "$work/err"))" >&2; echo "nan 0" > "$out"; return; }
    end=$(date +%s%N)
    read -r _ m < <(tail -n 1 "$work/t")
    t=$(echo "scale=4; ($end - $start) / 1000000000" | bc)
    times+=("$t"); (( m > rss )) && rss=$m
  done
  echo "$(printf '%s\n' "${times[@]}" | sort -g | sed -n "$(( (repeats + 1) / 2 ))p") $rss" > "$out"
}

load_before=$(cut -d' ' -f1-3 /proc/loadavg)
for n in "${sizes[@]}"; do build_experiment "$n"; done

commands=(
  "status|status"
  "status --top 10|status --top 10"
  "status --sort loss --top 10|status --sort objective --top 10"
  "best|best"
  "export csv|export --format csv -o $work/e.csv"
  "export json|export --format json -o $work/e.json"
  "export --steps csv|export --steps --format csv -o $work/s.csv"
  "show 500|show 500"
)
pareto_commands=(
  "2 objectives: status|status"
  "2 objectives: status --top 10|status --top 10"
  "2 objectives: best|best"
  "2 objectives: best --json|best --json"
)
for n in "${sizes[@]}"; do
  exp=$cache/$n/runs/scale-$n
  i=0
  for entry in "${commands[@]}"; do
    IFS='|' read -r label args <<< "$entry"
    # shellcheck disable=SC2086  # args split into words on purpose
    measure "$work/m.$n.$i" "$binary" $args "$exp"
    i=$((i + 1))
  done
  # Resume of the finished experiment: open, replay, nothing left to run, the summary.
  (cd "$cache/$n" && measure "$work/m.$n.resume" "$binary" run sweep.yaml)
  pareto_experiment "$n"
  for entry in "${pareto_commands[@]}"; do
    IFS='|' read -r label args <<< "$entry"
    # shellcheck disable=SC2086
    measure "$work/m.$n.$i" "$binary" $args "$cache/$n-pareto/scale-$n"
    i=$((i + 1))
  done
done
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

/usr/bin/python3 - "$work" "$cache" "$load_before" "$load_after" "$repeats" "${sizes[@]}" <<PY
import os, sys
work, cache, before, after, repeats = sys.argv[1:6]
sizes = sys.argv[6:]
labels = [e.split("|")[0] for e in """$(printf '%s\n' "${commands[@]}")""".splitlines()]
pareto = [e.split("|")[0] for e in """$(printf '%s\n' "${pareto_commands[@]}")""".splitlines()]
def read(path):
    t, m = open(path).read().split()
    return float(t), int(m) / 1024
rows = [(label, [read(f"{work}/m.{n}.{i}") for n in sizes]) for i, label in enumerate(labels)]
rows.append(("run (resume, finished)", [read(f"{work}/m.{n}.resume") for n in sizes]))
rows += [(label, [read(f"{work}/m.{n}.{len(labels) + i}") for n in sizes]) for i, label in enumerate(pareto)]
built = []
for n in sizes:
    p = f"{cache}/{n}/run.time"
    built.append(read(p) if os.path.exists(p) else (float("nan"), 0))
rows.append(("run (the build, once)", built))
head = "".join(f" | {n} trials: s, MB" for n in sizes)
print(f"| command{head} | time ratio {sizes[-1]}/{sizes[0]} |")
print("|---" * (len(sizes) + 2) + "|")
for label, cells in rows:
    text = "".join(f" | {t:.3f}, {m:.0f}" for t, m in cells)
    ratio = cells[-1][0] / cells[0][0] if cells[0][0] > 0 else float("nan")
    print(f"| {label}{text} | {ratio:.1f} |")
print(f"median of {repeats} runs each; load average {before} before, {after} after")
import sqlite3
for n in sizes:
    p = f"{cache}/{n}/run.load"
    if os.path.exists(p):
        print(f"{n}-trial build: load average at its end {open(p).read().strip()}")
    # The launch rate at the start and at the end of a run that was run (not synthesized):
    # starts per second over the first and the last 5% of trial starts (issue 25: the
    # rate at the end within 10% of the rate at the start).
    db = f"{cache}/{n}/runs/scale-{n}/gpusweep.db"
    if os.path.exists(p) and "synthesized" not in open(p).read() and os.path.exists(db):
        starts = [r[0] for r in sqlite3.connect(db).execute(
            "select start_time from trials order by start_time")]
        k = max(2, len(starts) // 20)
        if len(starts) >= 2 * k:
            first = (k - 1) / (starts[k - 1] - starts[0])
            last = (k - 1) / (starts[-1] - starts[-k])
            print(f"{n}-trial build: launch rate {first:.0f} trials/s over the first {k} starts, "
                  f"{last:.0f} over the last {k} (end / start {last / first:.2f})")
PY
