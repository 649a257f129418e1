#!/usr/bin/env bash
# The table of docs/jobs.md#a-neighbours-checkpoint: the training job of
# scenarios/jobs/neighbour-checkpoint.json alone (the checkpoint job starts after it has ended), beside
# the neighbour's checkpoint burst without mitigation (its monitor only detects), and with its ladder
# (S1, S2, S4 onto spare nodes).
# usage: bench/tenants.sh [BUILD_DIR]   (default: build)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
run() { SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1 "$build/trainvp" run scenarios/jobs/neighbour-checkpoint.json -q -o "$out/$1" "${@:2}"; }
run alone --set /jobs/1/start=1000s
run detect --set '/jobs/0/health/mitigation/policy="none"'
run ladder
python3 - "$out" <<'PY'
import json, sys
print("| run | job's end (s) | mean iteration (ms) | p50 / p5 iterations per min | below 90% of alone (s) | "
      "diagnosed (s) | cause, edges | matched | mitigation | sim wall (s) |")
print("|---|---|---|---|---|---|---|---|---|---|")
for run, label in (("alone", "job alone"), ("detect", "with the neighbour, detect only"),
                   ("ladder", "with the neighbour, ladder S1-S2-S4")):
    r = json.load(open(f"{sys.argv[1]}/{run}/results.json"))
    j = r["jobs"][0]
    d = j["degradation"]
    h = j["health"]
    diag = h["diagnoses"][0] if h["diagnoses"] else None
    edges = ", ".join(f"{l['src_rank']}>{l['dst_rank']}" for l in diag["links"]) if diag else ""
    acts = h.get("mitigation", {}).get("actions", [])
    mit = "; ".join(f"{a['step']} at {a['at_s']:.1f} s" + (f" to nodes {a['moved_to_spares']}" if "moved_to_spares" in a else "")
                    for a in acts if a["step"] != "s1") or "none"
    print(f"| {label} | {j['end_s']:.1f} | {j['iteration_time_s'] * 1e3:.2f} | "
          f"{d['p50_iterations_per_min']:.0f} / {d['p5_iterations_per_min']:.0f} | {d['time_below_slo_s']:.1f} | "
          f"{diag['diagnosed_s']:.2f} |" if diag else f"| {label} | {j['end_s']:.1f} | {j['iteration_time_s'] * 1e3:.2f} | "
          f"{d['p50_iterations_per_min']:.0f} / {d['p5_iterations_per_min']:.0f} | {d['time_below_slo_s']:.1f} | - |", end="")
    print(f" {diag['cause'] + ', ' + edges if diag else '-'} | {(diag or {}).get('neighbour') or '-'} | {mit} | {r['sim']['wall_s']:.1f} |")
PY
