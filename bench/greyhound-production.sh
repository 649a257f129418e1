#!/usr/bin/env bash
# GREYHOUND's production population (docs/greyhound.md#the-production-population): the 27 jobs of
# 512 to 1,024 GPUs of scenarios/sweeps/greyhound-production.json (scenarios/greyhound/production-job.json,
# 5 hours each, flow fidelity, fast-forward on, the monitor on, each job its own fault generator
# seed), without mitigation and with GREYHOUND's ladder (S1, S2, S4). Prints, beside the seed's
# figures: the jobs with a fault (16 of 27), the mean completion-time stretch of those jobs
# (+34.59%), the share of jobs stretched over 50% (over 20%), the lowest throughput relative to
# normal (10%), then each hit job. The stretch is computed from each job's own fault-free prefix
# (bench/greyhound_production.py says how). JOBS="0 5 26" runs only those points (idx of
# `trainvp sweep --dry-run`, in that order); OUT=DIR keeps the sweeps in DIR/none and DIR/ladder; J=N runs N jobs at
# once (default: the CPUs); RESUME=1 continues the sweeps in OUT (`trainvp sweep --resume`).
# A healthy job peaks at 0.55 GB (512 GPUs) to 0.92 GB (1,024); a hit one grows slowly with the
# iterations it simulates (a 528-GPU job: 0.84 GB after 7 minutes, where it passed 6 GB before
# its communication intervals were folded as they became final, docs/performance.md).
# usage: bench/greyhound-production.sh [BUILD_DIR] [ladder|none|both]
source "$(dirname "$0")/common.sh"
which=${2:-both}
if [ -n "${OUT:-}" ]; then rm -rf "$out"; trap - EXIT; out=$OUT; mkdir -p "$out"; fi
spec=scenarios/sweeps/greyhound-production.json
python3 bench/greyhound_production.py ladder "$out/ladder-spec.json" "$out/ladder-job.json"
if [ -n "${JOBS:-}" ]; then   # a subset: keep only those points' values
  for s in "$spec" "$out/ladder-spec.json"; do
    python3 - "$s" "$out/$(basename "$s" .json)-subset.json" $JOBS <<'PY'
import json, os, sys
doc = json.load(open(sys.argv[1])); keep = [int(i) for i in sys.argv[3:]]
for p in doc["parameters"]: p["values"] = [p["values"][i] for i in keep]
doc["base"] = os.path.abspath(os.path.join(os.path.dirname(sys.argv[1]), doc["base"]))
json.dump(doc, open(sys.argv[2], "w"), indent=2)
PY
  done
  spec=$out/greyhound-production-subset.json
  ladder_spec=$out/ladder-spec-subset.json
else
  ladder_spec=$out/ladder-spec.json
fi
dirs=()
for run in none ladder; do
  [ "$which" = both ] || [ "$which" = "$run" ] || continue
  s=$spec; [ "$run" = ladder ] && s=$ladder_spec
  resume=(); if [ -n "${RESUME:-}" ]; then resume=(--resume); else rm -rf "$out/$run"; fi
  /usr/bin/time -f "$run: %e s wall, %U s user CPU (children included), %M KB peak RSS of one job" \
    "$build/trainvp" sweep "$s" -o "$out/$run" -j "${J:-$(nproc)}" "${resume[@]}" 2>&1 | grep -v 'is not in results.json' | tail -3
  dirs+=("$out/$run/points")
done
python3 bench/greyhound_production.py summary "${dirs[@]}"
