#!/usr/bin/env bash
# The incast table of docs/fabric.md#incast-with-and-without-dcqcn: a 16-to-1 gather of 256 MiB on
# one 400 Gbit/s switch (scenarios/fabric/incast-*.json) with back-pressure only, with DCQCN at the
# paper's parameters, and with DCQCN's increase steps scaled to 400 Gbit/s (rate_ai and rate_hai x 10).
# usage: bench/incast-dcqcn.sh [BUILD_DIR]   (default: build)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
run() { SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1 "$build/trainvp" run "scenarios/fabric/$1.json" -q -o "$out/$2" "${@:3}"; }
run incast-none none
run incast-dcqcn dcqcn
run incast-dcqcn scaled --set /cluster/fabric/dcqcn/rate_ai=400Mbps --set /cluster/fabric/dcqcn/rate_hai=2Gbps
python3 - "$out" <<'PY'
import json, sys
rows = [("none", "none"), ("dcqcn (paper's parameters)", "dcqcn"), ("dcqcn, rate_ai 400 Mbit/s, rate_hai 2 Gbit/s", "scaled")]
print("| congestion_control | completion (ms) | bottleneck utilization | peak queue (KiB) | mean queue (KiB) | pauses | CNPs | ECN-marked packets |")
print("|---|---|---|---|---|---|---|---|")
for label, d in rows:
    r = json.load(open(f"{sys.argv[1]}/{d}/results.json"))
    t = r["collectives"][0]["time_s"]
    links = {l["name"]: l for l in r["links"]}
    b = links["switch->node0.nic0"]
    net = [l for l in r["links"] if "switch" in l["name"]]
    pauses = sum(l.get("pauses", 0) for l in net)
    cnps = sum(l.get("cnps_sent", 0) for l in net)
    marks = sum(l.get("ecn_marked_packets", 0) for l in net)
    print(f"| {label} | {t * 1e3:.2f} | {b['busy_s'] / t:.3f} | {b['peak_queue_bytes'] / 1024:.0f} | "
          f"{b['mean_queue_bytes'] / 1024:.0f} | {pauses} | {cnps} | {marks} |")
PY
