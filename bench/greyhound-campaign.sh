#!/usr/bin/env bash
# Issue #14's GREYHOUND target: scenarios/greyhound/campaign-256gpu.json (40B GPT-2, TP 8, PP 2,
# DP 16 on 32 x 8 H800, twelve injected events over 2 hours) with steady-state fast-forward; one
# docs/performance.md row: wall time, peak memory, iterations simulated and skipped, simulated time.
# ITERATIONS (default: the scenario's 4,480, 2 hours at the healthy rate) shortens the horizon.
# usage: bench/greyhound-campaign.sh [BUILD_DIR] [ITERATIONS]
source "$(dirname "$0")/common.sh"
set_it=()
[ -n "${2:-}" ] && set_it=(--set "/training/iterations=$2")
/usr/bin/time -f "%e %U %M" -o "$out/time" \
  "$build/trainvp" run scenarios/greyhound/campaign-256gpu.json -q -o "$out/run" "${set_it[@]}" >/dev/null
python3 - "$out" <<'PY'
import json, os, sys
out = sys.argv[1]
wall, user, rss = open(os.path.join(out, "time")).read().split()
r = json.load(open(os.path.join(out, "run", "results.json")))
ff = r["fast_forward"]
it = r["iterations"]
print("| iterations | simulated | skipped (skips) | simulated time | wall | CPU | peak RSS | faults applied |")
print("|---|---|---|---|---|---|---|---|")
print("| %d | %d | %d (%d) | %.1f min | %.0f s | %.0f s | %.1f GB | %d |" % (
    len(it), ff["iterations_simulated"], ff["iterations_skipped"], len(ff["skips"]),
    it[-1]["end_s"] / 60, float(wall), float(user), int(rss) / 1e6,
    sum(1 for f in r.get("faults", []) if f.get("applied"))))
PY
