#!/usr/bin/env bash
# How the fabric's chunk size trades simulation speed for fidelity: the same scenarios at 64 KiB,
# 1 MiB and 16 MiB chunks. Prints a Markdown table (docs/fabric.md keeps the measured one).
# usage: bench/chunk.sh [BUILD_DIR]
source "$(dirname "$0")/common.sh"


row() {  # label, metric pointer name (time_s or iteration_time_s), then trainvp run arguments
  local label=$1 metric=$2; shift 2
  local ref=""
  for c in 64KiB 1MiB 16MiB; do
    "$build/trainvp" run "$@" --set /cluster/fabric/chunk=$c --set /output/trace=false -q -o "$out/r" >/dev/null
    local w e v
    w=$(field wall_s "$out/r/results.json"); e=$(field events "$out/r/results.json"); v=$(field "$metric" "$out/r/results.json")
    [ -n "$ref" ] || ref=$v
    awk -v l="$label" -v c="$c" -v w="$w" -v e="$e" -v v="$v" -v r="$ref" -v m="$metric" \
      'BEGIN{d=(v-r)/r*100; printf "| %s | %s | %.3f | %d | %s %.6g s | %s |\n", l, c, w, e, m, v, (c=="64KiB"?"(reference)":sprintf("%+.2f%%", d))}'
    label=""
  done
}

echo "| Scenario | chunk | sim wall (s) | events | result | difference vs 64 KiB |"
echo "|---|---|---|---|---|---|"
sr=scenarios/collectives/allreduce-8.json
one=(--set /workload/min_bytes=256MiB --set /workload/max_bytes=256MiB --set /workload/iterations=1 --set /workload/warmup=0)
row "sendrecv 64 MiB, 2 nodes x 1 GPU (idle fabric)" time_s $sr --set /cluster/nodes=2 --set /cluster/node/gpus=1 \
  --set /workload/op=sendrecv --set /workload/min_bytes=64MiB --set /workload/max_bytes=64MiB --set /workload/iterations=1 --set /workload/warmup=0
row "ring all-reduce 256 MiB, 8 nodes x 1 GPU (idle fabric)" time_s $sr --set /cluster/nodes=8 --set /cluster/node/gpus=1 "${one[@]}"
row "tree all-reduce 256 MiB, 8 nodes x 1 GPU (two children share a parent's NIC)" time_s $sr --set /cluster/nodes=8 \
  --set /cluster/node/gpus=1 "${one[@]}" --set /workload/algorithm=tree
row "GPT-2 XL DDP, 8 x 8 H100, rail-optimized leaf-spine (2 iterations)" iteration_time_s scenarios/clusters/gpt2xl-8node-ddp.json \
  --set /training/iterations=2 --set /training/warmup=1
row "same, 4 comm streams (concurrent buckets share links)" iteration_time_s scenarios/clusters/gpt2xl-8node-ddp.json \
  --set /training/iterations=2 --set /training/warmup=1 --set /training/sync/comm_streams=4
