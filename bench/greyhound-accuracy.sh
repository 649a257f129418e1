#!/usr/bin/env bash
# GREYHOUND's detection accuracy, scored exactly (docs/greyhound.md#detection-accuracy): the
# single-node probe population (scenarios/sweeps/greyhound-accuracy-single-node.json: 392 jobs of 4 H800
# for 80 minutes) and the four-node one (scenarios/sweeps/greyhound-accuracy-four-node.json: 107
# jobs of 4 x 8 A100 for 5 hours; fast-forward skips their steady stretches), each job under the fault generator's
# GREYHOUND defaults with its own seed, the monitor on. Prints, per population, the job-level
# confusion matrix (a job is right when it had no fault and no diagnosis, or when every fault it
# had was diagnosed with the right cause and suspect and nothing else was), the reaction times, and
# per fault kind how many slowed their job by 10% or more and were found (bench/greyhound_manifest.py).
# four-nccl: the four-node population with NCCL's 8 topology-ordered channels
# (scenarios/sweeps/greyhound-accuracy-four-node-nccl.json; not part of `both`).
# usage: bench/greyhound-accuracy.sh [BUILD_DIR] [single|four|four-nccl|both]
source "$(dirname "$0")/common.sh"
which=${2:-both}

score() {
  local db=$1
  sqlite3 -header -column "$db" "
    SELECT COUNT(*) AS jobs,
           SUM(faults_applied = 0 AND diagnoses = 0) AS healthy_right,
           SUM(faults_applied = 0 AND diagnoses > 0) AS false_alarm,
           SUM(faults_applied > 0 AND faults_detected = faults_applied AND false_positives = 0) AS faulty_right,
           SUM(faults_applied > 0 AND faults_detected < faults_applied) AS missed,
           SUM(faults_applied > 0 AND faults_detected = faults_applied AND false_positives > 0) AS found_plus_false,
           ROUND(100.0 * (SUM(faults_applied = 0 AND diagnoses = 0) +
                          SUM(faults_applied > 0 AND faults_detected = faults_applied AND false_positives = 0)) / COUNT(*), 1)
             AS accuracy_pct
    FROM points WHERE status = 'ok';"
  sqlite3 -header -column "$db" "
    SELECT fault_kind, fault_severity, COUNT(*) AS jobs, SUM(faults_detected > 0) AS detected,
           ROUND(AVG(change_detection_s), 2) AS change_detection_s, ROUND(AVG(validation_s), 2) AS validation_s
    FROM points WHERE status = 'ok' AND faults_applied > 0 GROUP BY fault_kind, fault_severity;"
}

for pop in single four four-nccl; do
  [ "$which" = both ] && [ "$pop" != four-nccl ] || [ "$which" = "$pop" ] || continue
  case $pop in four-nccl) spec=scenarios/sweeps/greyhound-accuracy-four-node-nccl.json ;;
               *) spec=scenarios/sweeps/greyhound-accuracy-$pop-node.json ;; esac
  /usr/bin/time -f "$pop-node: %e s wall" "$build/trainvp" sweep "$spec" -o "$out/accuracy-$pop" -j "$(nproc)" 2>&1 |
    grep -v 'is not in results.json'
  score "$out/accuracy-$pop/sweep.db"
  python3 bench/greyhound_manifest.py "$out/accuracy-$pop/points"
done
