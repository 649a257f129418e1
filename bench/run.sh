#!/usr/bin/env bash
# Simulator speed: wall time and model events per second for fixed scenarios.
# usage: bench/run.sh [BUILD_DIR]   (default: build; builds trainvp if missing)
# Figures go in docs/performance.md together with the machine they were measured on.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
[ -x "$build/trainvp" ] || { cmake -S . -B "$build" >/dev/null && cmake --build "$build" -j"$(nproc)" --target trainvp >/dev/null; }
export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
repeats=${REPEATS:-5}

field() { grep -m1 "\"$1\":" "$2" | sed -E 's/.*: ([0-9.eE+-]+),?$/\1/'; }

bench() {  # name, then trainvp run arguments
  local name=$1; shift
  local best="" best_cmd=""
  for _ in $(seq "$repeats"); do
    local t0 t1; t0=$(date +%s.%N)
    "$build/trainvp" run "$@" -q -o "$out/$name" >/dev/null
    t1=$(date +%s.%N)
    local w c; w=$(field wall_s "$out/$name/results.json"); c=$(awk "BEGIN{print $t1 - $t0}")
    if [ -z "$best" ] || awk "BEGIN{exit !($w < $best)}"; then best=$w; fi
    if [ -z "$best_cmd" ] || awk "BEGIN{exit !($c < $best_cmd)}"; then best_cmd=$c; fi
  done
  local events sim
  events=$(field events "$out/$name/results.json")
  sim=$(field simulated_s "$out/$name/results.json")
  awk -v n="$name" -v w="$best" -v c="$best_cmd" -v e="$events" -v s="$sim" \
    'BEGIN{printf "%-40s sim wall %8.4f s  command %7.3f s  events %9d  %11.0f events/s  simulated %7.3f s\n", n, w, c, e, e/w, s}'
}

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), best of $repeats"
bench "8xH100 gpt2-xl 20 it (quickstart)" scenarios/quickstart.json
bench "8xH100 gpt2-xl 20 it, no trace" scenarios/quickstart.json --set /output/trace=false
bench "64x8 H100 gpt2-xl 20 it, no trace" scenarios/quickstart.json --set /cluster/nodes=64 --set /output/trace=false
bench "8xH100 gpt2-xl 20 it, 8 micro-batches" scenarios/quickstart.json --set /workload/micro_batches=8 --set /output/trace=false
