#!/usr/bin/env bash
# The table of docs/jobs.md#packed-against-spread: two GPT-2 DDP jobs of 4 x 8 H100 on one 2:1
# leaf-spine (scenarios/fabric/two-jobs-*.json), packed and spread, together (both start at 0) and
# one after the other (job b starts at 1 s, long after job a has ended: each runs alone).
# usage: bench/jobs.sh [BUILD_DIR]   (default: build)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
run() { SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1 "$build/trainvp" run "scenarios/fabric/two-jobs-$1.json" -q -o "$out/$2" "${@:3}"; }
for p in packed spread; do
  run $p $p-together
  run $p $p-alone --set /jobs/1/start=1s
done
python3 - "$out" <<'PY'
import json, sys
print("| placement | jobs run | job | nodes | iteration (ms) | communication (ms) | exposed (ms) | samples/s | spine bytes (run) | sim wall (s) |")
print("|---|---|---|---|---|---|---|---|---|---|")
for p in ("packed", "spread"):
    for when, label in (("together", "together"), ("alone", "one after the other")):
        r = json.load(open(f"{sys.argv[1]}/{p}-{when}/results.json"))
        for j in r["jobs"]:
            print(f"| {p} | {label} | {j['name']} | {','.join(map(str, j['nodes']))} | {j['iteration_time_s'] * 1e3:.3f} | "
                  f"{j['comm_time_s'] * 1e3:.3f} | {j['exposed_comm_s'] * 1e3:.3f} | {j['throughput']['samples_per_s']:.0f} | "
                  f"{r['link_tiers']['spine_bytes']:.3g} | {r['sim']['wall_s']:.1f} |")
PY
