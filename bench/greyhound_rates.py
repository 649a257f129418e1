#!/usr/bin/env python3
"""GREYHOUND's campaigns (bench/greyhound-256gpu.sh, bench/greyhound-s3.sh,
bench/greyhound-s3-swap.sh), one table row per run: iterations per minute over the whole
campaign and over the time some fault is active, the diagnoses scored against the injected
faults, and the mitigation's actions; with a run labelled healthy, the time each event cost the
others. usage: greyhound_rates.py LABEL=RUN_DIR ... (each RUN_DIR holds results.json, and `time`
from /usr/bin/time -f "%e %U %M" when the bench script ran it)."""
import json
import os
import sys


def union(windows):
    out = []
    for a, b in sorted(windows):
        if out and a <= out[-1][1]:
            out[-1][1] = max(out[-1][1], b)
        else:
            out.append([a, b])
    return out


def row(label, run):
    r = json.load(open(os.path.join(run, "results.json")))
    it = [i for i in r["iterations"] if not i.get("warmup")]
    start, end = it[0]["start_s"], it[-1]["end_s"]
    overall = len(it) / ((end - start) / 60)
    faults = union([(f["start_s"], f["end_s"]) for f in r.get("faults", []) if f.get("applied")])
    inside = sum(1 for i in it if any(a <= i["end_s"] < b for a, b in faults))
    span = sum(min(b, end) - max(a, start) for a, b in faults if b > start and a < end)
    during = inside / (span / 60) if span > 0 else float("nan")
    h = r.get("health", {})
    s = h.get("score", {})
    acts = h.get("mitigation", {}).get("actions", [])
    steps = {}
    for a in acts:
        steps[a["step"]] = steps.get(a["step"], 0) + 1
    wall = cpu = rss = None
    tf = os.path.join(run, "time")
    if os.path.exists(tf):
        wall, cpu, rss = open(tf).read().split()
    ff = r.get("fast_forward", {})
    return {
        "label": label, "overall": overall, "during": during, "iterations": len(it), "end_min": end / 60,
        "detected": "%s/%s" % (s.get("faults_detected", "-"), s.get("faults_applied", "-")),
        "fp": s.get("false_positives", "-"), "reaction": s.get("mean_reaction_s"),
        "detect": s.get("mean_change_detection_s"), "validate": s.get("mean_validation_s"),
        "steps": ", ".join("%s x%d" % kv for kv in sorted(steps.items())) or "-",
        "paused": h.get("mitigation", {}).get("paused_s", 0),
        "simulated": ff.get("iterations_simulated"), "wall": wall, "cpu": cpu, "rss": rss,
    }


def lost(run, healthy_s):
    """Per injected fault: seconds lost inside its window, sum of (iteration - healthy iteration)
    over the iterations ending in it (events overlap: rows do not add up); and over the whole run."""
    r = json.load(open(os.path.join(run, "results.json")))
    it = [i for i in r["iterations"] if not i.get("warmup")]
    found = {f["index"]: f.get("detected") for f in r.get("health", {}).get("faults", [])}
    events = []
    for f in r.get("faults", []):
        if not f.get("applied"):
            continue
        a, b = f["start_s"], f["end_s"]
        events.append((f["index"], f["kind"], f.get("params", {}), a,
                       sum(i["duration_s"] - healthy_s for i in it if a <= i["end_s"] < b), found.get(f["index"])))
    return events, sum(i["duration_s"] - healthy_s for i in it)


def fmt(x, f="%.1f"):
    return "-" if x is None else f % x


def main():
    rows = [row(*a.split("=", 1)) for a in sys.argv[1:]]
    base = next((x for x in rows if x["label"] == "none"), None)
    print("| run | it/min, whole campaign | it/min while a fault is active | vs none: whole, while active | faults detected | false alarms | reaction: detect + validate | mitigation steps | paused |")
    print("|---|---|---|---|---|---|---|---|---|")
    for x in rows:
        vs = "%.2fx" % (x["overall"] / base["overall"]) if base else "-"
        if base and x["during"] == x["during"] and base["during"] == base["during"]:  # nan: no fault
            vs += ", %.2fx" % (x["during"] / base["during"])
        react = "-" if x["reaction"] is None else "%.1f + %.1f s" % (x["detect"], x["validate"])
        during = "-" if x["during"] != x["during"] else "%.1f" % x["during"]
        print("| %s | %.1f | %s | %s | %s | %s | %s | %s | %s s |" % (
            x["label"], x["overall"], during, vs, x["detected"], x["fp"], react, x["steps"], fmt(x["paused"], "%.0f")))
    print()
    print("| run | iterations | simulated (rest skipped) | simulated time | wall | CPU | peak RSS |")
    print("|---|---|---|---|---|---|---|")
    for x in rows:
        print("| %s | %d | %s | %.1f min | %s s | %s s | %s |" % (
            x["label"], x["iterations"], x["simulated"], x["end_min"], x["wall"] or "-", x["cpu"] or "-",
            "-" if x["rss"] is None else "%.1f GB" % (int(x["rss"]) / 1e6)))
    healthy = next((x for x in rows if x["label"] == "healthy"), None)
    faulty = [(x["label"], a.split("=", 1)[1]) for x, a in zip(rows, sys.argv[1:]) if x["label"] != "healthy"]
    if not healthy or not faulty:
        return
    h = 60 / healthy["overall"]  # the healthy iteration
    per = {label: lost(run, h) for label, run in faulty}
    print()
    print("Time lost against the healthy iteration (%.3f s), per event and over the run (found: detected):" % h)
    print()
    print("| event | kind | level | start | " + " | ".join("%s: lost" % l for l, _ in faulty) + " |")
    print("|---|---|---|---|" + "---|" * len(faulty))
    first = per[faulty[0][0]][0]
    for k, (index, kind, params, start, _, _) in enumerate(first):
        level = params.get("factor", params.get("bandwidth_factor", "-"))
        cells = []
        for l, _ in faulty:
            e = per[l][0][k]
            cells.append("%.0f s%s" % (e[4], " (found)" if e[5] else ""))
        print("| %d | %s | %s | %.0f min | %s |" % (index, kind, level, start / 60, " | ".join(cells)))
    print("| whole run | | | | " + " | ".join("%.0f s" % per[l][1] for l, _ in faulty) + " |")


if __name__ == "__main__":
    main()
