#!/usr/bin/env bash
# GREYHOUND's S3 role swap in the loop (docs/greyhound.md#s3-role-swap-in-the-loop):
# scenarios/greyhound/s3-role-swap-64gpu.json healthy (no faults; 300 iterations give its pace),
# without mitigation, and with the ladder (the scenario's steps s1, s3), then one table:
# iterations per minute over the run and while the uplinks are slow, detection and mitigation,
# wall and CPU time, and the time the event cost each. About 25 minutes of CPU a faulty run: ECMP
# spreads each collective's flows afresh, so no two iterations repeat and fast-forward never
# skips. RUNS picks a subset (default "healthy none ladder").
# usage: bench/greyhound-s3-swap.sh [BUILD_DIR]
source "$(dirname "$0")/common.sh"
args=()
for run in ${RUNS:-healthy none ladder}; do
  case $run in
    healthy) set=(--set '/faults=[]' --set /training/iterations=300) ;;
    none) set=(--set '/health/mitigation/policy="none"') ;;
    ladder) set=() ;;
  esac
  mkdir -p "$out/$run"
  /usr/bin/time -f "%e %U %M" -o "$out/$run/time" \
    "$build/trainvp" run scenarios/greyhound/s3-role-swap-64gpu.json -q -o "$out/$run" "${set[@]}" >/dev/null
  args+=("$run=$out/$run")
done
python3 bench/greyhound_rates.py "${args[@]}"
