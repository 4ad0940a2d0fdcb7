#!/usr/bin/env bash
# The hardware campaign of issue 46 in one command (paper-notes/hardware.md,
# "What remains for a GPU session"): runs litmus/classic, litmus/sync,
# litmus/proxy, the small tests of litmus/scale and litmus/async (when
# present) on the GPU with thread-placement stress, and writes one JSON file
# per suite under paper-notes/hardware/RUN/ with the device, driver,
# iterations, seed and every test's histogram. Any test that shows a
# forbidden state is re-run alone with two more seeds (its histograms kept
# beside the suite's). Needs no network.
#
#   scripts/gpu-campaign.sh                 the campaign (about 6 minutes on an H100/H200)
#   scripts/gpu-campaign.sh --dry-run       the same without a GPU: `run --dry-run`, to check the script
#   scripts/gpu-campaign.sh --one FILE      re-run one test alone (with --seed S, --iterations N)
#
# Options: --bin PATH (the ptx-litmus binary; default target/release/ptx-litmus,
# built with `cargo build --release --offline` when absent), --out DIR
# (default paper-notes/hardware/RUN, RUN = UTC date and time), --iterations N
# (default 1M per test), --seed S (default 1), --stress CTAS (default 64),
# --pre-stress N (default 32), --budget SECONDS (the whole campaign's time
# limit, default 420: each suite gets its share and stops there, keeping the
# tests it finished).
#
# What it needs on the device machine: the repository (litmus/, this script)
# and either the release binary (carry target/release/ptx-litmus, about 10 MB)
# or a Rust toolchain with the crates already in ~/.cargo (no download). The
# binary opens libcuda at run time (no CUDA toolkit needed); nvidia-smi, when
# present, names the device and driver.
set -euo pipefail
cd "$(dirname "$0")/.."

bin=${PTXL_BIN:-target/release/ptx-litmus}
out="" iterations=1M seed=1 stress=64 pre=32 budget=420 dry=0 one=""
while [ $# -gt 0 ]; do
  case "$1" in
    --dry-run) dry=1 ;;
    --one) one=$2; shift ;;
    --bin) bin=$2; shift ;;
    --out) out=$2; shift ;;
    --iterations) iterations=$2; shift ;;
    --seed) seed=$2; shift ;;
    --stress) stress=$2; shift ;;
    --pre-stress) pre=$2; shift ;;
    --budget) budget=$2; shift ;;
    -h|--help) sed -n '2,30p' "$0"; exit 0 ;;
    *) echo "gpu-campaign: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done

if [ ! -x "$bin" ]; then
  echo "gpu-campaign: $bin is missing; building it (cargo build --release --offline)" >&2
  cargo build --release --offline
  bin=target/release/ptx-litmus
fi
[ -n "$out" ] || out=paper-notes/hardware/$(date -u +%Y%m%dT%H%M%SZ)$([ $dry = 1 ] && echo -dry-run)
mkdir -p "$out"

# The device, for every file: nvidia-smi's name and driver, else what `run` reports.
device="none (dry run)" driver="none"
if [ $dry = 0 ] && command -v nvidia-smi > /dev/null; then
  device=$(nvidia-smi --query-gpu=name --format=csv,noheader -i 0 | head -1)
  driver=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader -i 0 | head -1)
  nvidia-smi > "$out/nvidia-smi.txt" || true
fi

common=(--iterations "$iterations" --stress "$stress" --pre-stress "$pre" --json)
[ $dry = 1 ] && common+=(--dry-run)

# suite_json NAME SEED FILES...: one run over FILES, its JSON lines wrapped in one object.
suite_json() {
  local name=$1 s=$2 limit=$3; shift 3
  local lines="$out/$name.jsonl" t0 rc=0
  t0=$(date +%s)
  timeout --signal=INT "$limit" "$bin" run "${common[@]}" --seed "$s" "$@" > "$lines" 2> "$out/$name.stderr" || rc=$?
  local secs=$(( $(date +%s) - t0 ))
  {
    printf '{"suite": "%s", "device": "%s", "driver": "%s", "iterations": "%s", "seed": %s, "stress": %s, "pre_stress": %s,\n' \
      "$name" "$device" "$driver" "$iterations" "$s" "$stress" "$pre"
    printf ' "exit": %s, "seconds": %s, "time_limit": %s, "command": "%s run %s --seed %s FILES",\n "tests": [\n' \
      "$rc" "$secs" "$limit" "$bin" "${common[*]}" "$s"
    sed '$!s/$/,/' "$lines"
    printf ' ]}\n'
  } > "$out/$name.json"
  rm -f "$lines"
  echo "$name: exit $rc in ${secs}s, $(grep -c '"status"' "$out/$name.json" || true) tests -> $out/$name.json"
}

if [ -n "$one" ]; then
  # The second mode: one test alone, its histogram kept under its own name.
  name=$(basename "$one" .litmus)
  suite_json "one-$name-seed$seed" "$seed" "$budget" "$one"
  exit 0
fi

# Small sizes of litmus/scale: the 2- and 3-thread locks and counters.
mapfile -t scale < <(ls litmus/scale/*.litmus | grep -E -- '-(2|3)(-|\.litmus)|-2x|reread-2|backoff-[23]' || true)
suites=(classic sync proxy)
[ -d litmus/async ] && suites+=(async)
# Shares of the budget: classic is the largest; sync, proxy, async and scale split the rest.
n=$(( ${#suites[@]} + 1 ))
share=$(( budget / (n + 1) ))
for s in "${suites[@]}"; do
  limit=$share
  [ "$s" = classic ] && limit=$(( share * 2 ))
  suite_json "$s" "$seed" "$limit" "litmus/$s"
done
[ ${#scale[@]} -gt 0 ] && suite_json scale-small "$seed" "$share" "${scale[@]}"

# Findings: every test with a forbidden state observed, re-run alone with two more seeds.
findings=$(grep -h -E '"forbidden_observed":[1-9]' "$out"/*.json 2>/dev/null \
  | sed -E 's/.*"file":"([^"]*)".*/\1/' | sort -u || true)
for f in $findings; do
  for s in $(( seed + 1 )) $(( seed + 2 )); do
    suite_json "finding-$(basename "$f" .litmus)-seed$s" "$s" 60 "$f"
  done
done
{
  echo "campaign $(date -u +%FT%TZ): device $device, driver $driver, iterations $iterations, seed $seed, stress $stress, pre-stress $pre"
  echo "forbidden states observed in: ${findings:-none}"
} | tee "$out/summary.txt"
