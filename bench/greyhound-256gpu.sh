#!/usr/bin/env bash
# GREYHOUND's 256-GPU experiment (docs/greyhound.md#the-256-gpu-experiment):
# scenarios/greyhound/campaign-256gpu.json healthy (no faults), without mitigation (the monitor
# detects only) and with GREYHOUND's ladder, then tables: iterations per minute, detection and
# mitigation, wall and CPU time, and the time each event cost each run. About 13 minutes of CPU and 4.5 GB for the run without
# mitigation, 27 minutes and 8 GB for the ladder, 40 s and 1.3 GB for the healthy one; RUNS picks
# a subset (default "healthy none ladder"), run one after the other; SET adds --set overrides to
# every run (SET="/training/fast_forward/repeats=2 /training/fast_forward/margin=1": the
# fast-forward settings of docs/performance.md's 10-minute row). SCALE=s scales every event's
# severity: slowdown 1/f becomes 1 + s (1/f - 1) (bench/greyhound_scale.py;
# docs/greyhound.md#a-calibrated-prediction); the healthy run has no events and ignores it. OUT=DIR
# keeps the runs' folders in DIR/<run> instead of a temporary folder.
# usage: bench/greyhound-256gpu.sh [BUILD_DIR]
source "$(dirname "$0")/common.sh"
scenario=scenarios/greyhound/campaign-256gpu.json
if [ -n "${OUT:-}" ]; then rm -rf "$out"; trap - EXIT; out=$OUT; mkdir -p "$out"; fi
scale=()
if [ -n "${SCALE:-}" ]; then
  for kv in $(python3 bench/greyhound_scale.py "$scenario" "$SCALE"); do scale+=(--set "$kv"); done
fi
args=()
for run in ${RUNS:-healthy none ladder}; do
  case $run in
    healthy) set=(--set '/faults=[]') ;;
    *) set=(--set "/health/mitigation/policy=\"$run\"" "${scale[@]}") ;;
  esac
  for kv in ${SET:-}; do set+=(--set "$kv"); done
  mkdir -p "$out/$run"
  /usr/bin/time -f "%e %U %M" -o "$out/$run/time" \
    "$build/trainvp" run "$scenario" -q -o "$out/$run" "${set[@]}" >/dev/null
  args+=("$run=$out/$run")
done
python3 bench/greyhound_rates.py "${args[@]}"
