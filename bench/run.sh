#!/usr/bin/env bash
# Simulator speed: wall time and model events per second for fixed scenarios.
# usage: bench/run.sh [BUILD_DIR]   (default: build; builds trainvp if missing)
# Figures go in docs/performance.md together with the machine they were measured on.
source "$(dirname "$0")/common.sh"
repeats=${REPEATS:-5}


bench() {  # name, then trainvp run arguments; BENCH_REPEATS overrides the repeat count for one call
  local name=$1; shift
  local best="" best_cmd=""
  for _ in $(seq "${BENCH_REPEATS:-$repeats}"); do
    local t0 t1; t0=$(date +%s.%N)
    "$build/trainvp" run "$@" -q -o "$out/$name" >/dev/null
    t1=$(date +%s.%N)
    local w c; w=$(field wall_s "$out/$name/results.json"); c=$(awk "BEGIN{print $t1 - $t0}")
    if [ -z "$best" ] || awk "BEGIN{exit !($w < $best)}"; then best=$w; fi
    if [ -z "$best_cmd" ] || awk "BEGIN{exit !($c < $best_cmd)}"; then best_cmd=$c; fi
  done
  local events sim iters
  events=$(field events "$out/$name/results.json")
  sim=$(field simulated_s "$out/$name/results.json")
  iters=$(grep -c "\"index\":" "$out/$name/results.json" || true)  # all iterations: the wall time covers warm-up too
  [ "$iters" -gt 0 ] || iters=1
  awk -v n="$name" -v w="$best" -v c="$best_cmd" -v e="$events" -v s="$sim" -v i="$iters" \
    'BEGIN{printf "%-44s sim wall %8.3f s  per iteration %7.3f s  command %7.3f s  events %9d  %10.0f events/s  simulated %7.3f s\n", n, w, w/i, c, e, e/w, s}'
}

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), best of $repeats"
# GPU models alone (no synchronization): the foundation's figures.
nosync=(--set /training/sync/strategy=none --set /cluster/nodes=1)
bench "8xH100 gpt2-xl 20 it, no sync" scenarios/quickstart.json "${nosync[@]}"
bench "8xH100 gpt2-xl 20 it, no sync, no trace" scenarios/quickstart.json "${nosync[@]}" --set /output/trace=false
bench "64x8 H100 gpt2-xl 20 it, no sync, no trace" scenarios/quickstart.json --set /training/sync/strategy=none --set /cluster/nodes=64 \
  --set /cluster/fabric/switch_ports=512 --set /output/trace=false

# Over the fabric: GPT-2 XL with DDP (ring, 25 MiB buckets, 1 MiB chunks), 400 Gb/s RoCE.
bench "quickstart: 2x8 H100 DDP 20 it (trace on)" scenarios/quickstart.json
ddp=(--set /training/iterations=3 --set /training/warmup=1 --set /output/trace=false)
bench "16 GPUs (2x8) DDP ring" scenarios/quickstart.json "${ddp[@]}"
bench "64 GPUs (8x8) DDP ring, switch" scenarios/clusters/gpt2xl-8node-ddp.json "${ddp[@]}" --set /cluster/fabric/topology=switch
bench "64 GPUs (8x8) DDP ring, rail leaf-spine" scenarios/clusters/gpt2xl-8node-ddp.json "${ddp[@]}"
bench "64 GPUs (8x8) DDP hierarchical" scenarios/clusters/gpt2xl-8node-ddp.json "${ddp[@]}" --set /training/sync/algorithm=hierarchical
BENCH_REPEATS=1 bench "256 GPUs (32x8) DDP ring" scenarios/clusters/gpt2xl-8node-ddp.json --set /cluster/nodes=32 \
  --set /cluster/fabric/leaf_ports=64 --set /training/iterations=2 --set /training/warmup=1
BENCH_REPEATS=1 bench "256 GPUs (32x8) DDP hierarchical" scenarios/clusters/gpt2xl-8node-ddp.json --set /cluster/nodes=32 \
  --set /cluster/fabric/leaf_ports=64 --set /training/iterations=2 --set /training/warmup=1 --set /training/sync/algorithm=hierarchical

# 1 GiB ring all-reduce, one measured collective.
gib=(--set /workload/min_bytes=1GiB --set /workload/max_bytes=1GiB --set /workload/iterations=1 --set /workload/warmup=0 --set /workload/algorithm=ring)
bench "1 GiB ring all-reduce, 64 ranks" scenarios/collectives/allreduce-64.json "${gib[@]}" --set /cluster/fabric/topology=switch
BENCH_REPEATS=1 bench "1 GiB ring all-reduce, 512 ranks" scenarios/collectives/allreduce-512.json "${gib[@]}"

# GPT-3 175B on 1,024 H100 (TP 8, PP 16 interleaved, DP 8; a scale benchmark kept out of ctest):
# one measured iteration after the warm-up one, as shipped.
BENCH_REPEATS=1 bench "1024 GPUs (128x8) GPT-3 175B t8 p16 d8" scenarios/parallel/gpt3-175b-1024gpu.json
