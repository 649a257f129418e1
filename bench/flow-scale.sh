#!/usr/bin/env bash
# A GPT-style iteration at flow fidelity up to 8,192 GPUs (bench/gpt-8192-flow.json: GPT-2 XL,
# batch 8 x 1024 tokens per GPU, DDP with 25 MiB buckets on the double binary tree, 1,024 nodes x
# 8 H100, rail-optimized leaf-spine, 400 Gbit/s): the docs/performance.md table "Flow fidelity at
# scale". Per node count: the simulated iteration, the whole process's wall time and CPU time (user
# + sys: steadier than wall on a shared machine), sim.wall_s (the simulation alone), the model
# events (sim.events) and events per second of sim wall, and peak RSS.
# usage: bench/flow-scale.sh [BUILD_DIR]   NODES="128 1024" overrides the node counts.
source "$(dirname "$0")/common.sh"
nodes=${NODES:-128 512 1024}
echo "| GPUs | simulated iteration | process wall | process CPU | sim wall | events | events/s | peak RSS |"
echo "|---|---|---|---|---|---|---|---|"
for n in $nodes; do
  /usr/bin/time -f "%e %U %S %M" -o "$out/t$n" "$build/trainvp" run bench/gpt-8192-flow.json -q -o "$out/r$n" \
    --set /cluster/nodes="$n" >/dev/null
  read -r e u s m < <(tail -1 "$out/t$n")
  python3 - "$out/r$n/results.json" "$n" "$e" "$u" "$s" "$m" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
n, e, u, s, m = int(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4]), float(sys.argv[5]), int(sys.argv[6])
sim = r['sim']
print(f"| {8 * n:,} | {r['iteration_time_s'] * 1e3:.1f} ms | {e:.1f} s | {u + s:.1f} s | {sim['wall_s']:.2f} s | "
      f"{sim['events']:,} | {sim['events'] / sim['wall_s'] / 1e6:.2f} M | {m // 1024:,} MB |")
PY
done
