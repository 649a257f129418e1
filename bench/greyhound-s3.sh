#!/usr/bin/env bash
# GREYHOUND's S3 on two slow GPUs (docs/greyhound.md#s3-on-two-slow-gpus):
# scenarios/greyhound/s3-two-slow-gpus-64gpu.json healthy (no faults), without mitigation, with S2
# alone (steps s1, s2), with S2 and S3 (the scenario's steps s1, s2, s3) and the oracle, then one
# table: iterations per minute over the run and while the GPUs are slow, detection and
# mitigation, wall and CPU time. About 5 minutes of CPU a run; RUNS picks a subset (default
# "healthy none s2 s3 oracle").
# usage: bench/greyhound-s3.sh [BUILD_DIR]
source "$(dirname "$0")/common.sh"
args=()
for run in ${RUNS:-healthy none s2 s3 oracle}; do
  case $run in
    healthy) set=(--set '/faults=[]') ;;
    none | oracle) set=(--set "/health/mitigation/policy=\"$run\"") ;;
    s2) set=(--set '/health/mitigation/steps=["s1","s2"]') ;;
    s3) set=() ;;
  esac
  mkdir -p "$out/$run"
  /usr/bin/time -f "%e %U %M" -o "$out/$run/time" \
    "$build/trainvp" run scenarios/greyhound/s3-two-slow-gpus-64gpu.json -q -o "$out/$run" "${set[@]}" >/dev/null
  args+=("$run=$out/$run")
done
python3 bench/greyhound_rates.py "${args[@]}"
