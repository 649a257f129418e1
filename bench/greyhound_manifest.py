#!/usr/bin/env python3
"""Which injected faults a job felt, and which the monitor found (docs/greyhound.md#detection-accuracy).

usage: bench/greyhound_manifest.py SWEEP_OUT/points

Per applied fault of every job: its slowdown, the median iteration inside its window over the
median iteration with no fault active (from the job's iterations.csv, warm-up left out), and
whether the monitor diagnosed it with its cause and suspect (results.json health.faults). Prints a
table per kind and severity (faults, detected, manifested: slowdown >= 1.10, the detector's
verification threshold, and detected among those), then the undetected faults by slowdown and,
for NIC link degradations, whether the NIC is one a rank-order ring crosses between nodes
(nic0 receives, nic7 sends on 8-GPU nodes).
"""
import collections
import csv
import json
import os
import statistics
import sys


def faults_of(job):
    r = json.load(open(os.path.join(job, "results.json")))
    its = [(float(x["start_s"]), float(x["end_s"]), float(x["duration_s"]))
           for x in csv.DictReader(open(os.path.join(job, "iterations.csv"))) if x["warmup"] == "0"]
    applied = [f for f in r.get("faults", []) if f.get("applied")]
    scored = {h["index"]: h for h in r.get("health", {}).get("faults", [])}
    healthy = [d for s, e, d in its if not any(f["start_s"] < e and f["end_s"] > s for f in applied)]
    base = statistics.median(healthy) if healthy else None
    for f in applied:
        inside = [d for s, e, d in its if s >= f["start_s"] and e <= f["end_s"]]
        slow = statistics.median(inside) / base if inside and base else None
        yield f["kind"], f["severity"], f["target"], slow, scored.get(f["index"], {}).get("detected", False)


def main(points):
    rows = []
    for job in sorted(os.listdir(points)):
        if os.path.exists(os.path.join(points, job, "results.json")):
            rows.extend(faults_of(os.path.join(points, job)))
    by = collections.defaultdict(lambda: [0, 0, 0, 0])
    for kind, sev, _, slow, det in rows:
        felt = slow is not None and slow >= 1.10
        by[(kind, sev)] = [a + b for a, b in zip(by[(kind, sev)], [1, det, felt, felt and det])]
    print("kind severity faults detected manifested(>=1.10x) detected_of_manifested")
    for k in sorted(by):
        print(*k, *by[k])
    print("total", *[sum(v[i] for v in by.values()) for i in range(4)])
    missed = collections.Counter()
    for kind, _, target, slow, det in rows:
        if det:
            continue
        felt = "none" if slow is None else "1.00x" if slow < 1.005 else "<1.05x" if slow < 1.05 else "<1.10x" if slow < 1.10 else ">=1.10x"
        where = ""
        if kind == "link_degrade":
            where = "ring NIC" if ("nic0" in target or "nic7" in target) else "NIC off the ring"
        missed[(kind, where, felt)] += 1
    for k, v in sorted(missed.items()):
        print("undetected", *[x for x in k if x], v)
    print("slowdowns of the detected:", sorted(round(r[3], 2) for r in rows if r[4] and r[3] is not None))


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
