#!/usr/bin/env python3
"""One severity scale for a scenario's injected events (docs/greyhound.md#a-calibrated-prediction).
An event's slowdown 1/f (f: a gpu_slowdown's `factor`, a link_degrade's `bandwidth_factor`)
becomes 1 + s (1/f - 1): f' = 1 / (1 + s (1/f - 1)). s = 1 is the scenario as written, s = 0 no
slowdown; every s > 0 is valid. Durations, starts and targets are unchanged.

usage: greyhound_scale.py SCENARIO SCALE
         prints one --set override a line (/faults/<i>/factor=f'), for bench/greyhound-256gpu.sh;
       greyhound_scale.py SCENARIO floor HEALTHY_ITERATION_S
         prints the whole-campaign iterations per minute if the job made no progress at all while
         any event is active: the lowest rate any severity can give, since the events' windows are
         fixed in simulated time."""
import json
import re
import sys

KEYS = {"gpu_slowdown": "factor", "link_degrade": "bandwidth_factor"}


def seconds(v):
    if isinstance(v, (int, float)):
        return float(v)
    m = re.fullmatch(r"\s*([0-9.eE+-]+)\s*(ms|us|ns|s|min|h)?\s*", v)
    x, unit = float(m.group(1)), m.group(2) or "s"
    return x * {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1, "min": 60, "h": 3600}[unit]


def scaled(scenario, s):
    out = []
    for i, f in enumerate(scenario.get("faults", [])):
        key = KEYS.get(f["kind"])
        if key is None or key not in f:
            continue
        out.append((i, key, 1 / (1 + s * (1 / f[key] - 1))))
    return out


def floor(scenario, h):
    """iterations / campaign time when no iteration ends inside the union of the events' windows."""
    n = scenario["training"]["iterations"] - scenario["training"].get("warmup", 0)
    w = sorted((seconds(f["start"]), seconds(f["start"]) + seconds(f["duration"])) for f in scenario["faults"])
    union = []
    for a, b in w:
        if union and a <= union[-1][1]:
            union[-1][1] = max(union[-1][1], b)
        else:
            union.append([a, b])
    t, done = h, 0.0  # the first timed iteration starts after the warmup one
    for a, b in union:
        k = max(0.0, (a - t) / h)
        if done + k >= n:
            break
        done += k
        t = max(t, b)
    t += (n - done) * h
    return n / ((t - h) / 60), sum(b - a for a, b in union) / 60


def main():
    scenario = json.load(open(sys.argv[1]))
    if sys.argv[2] == "floor":
        rate, covered = floor(scenario, float(sys.argv[3]))
        print("%.2f %.1f" % (rate, covered))
        return
    for i, key, f in scaled(scenario, float(sys.argv[2])):
        print("/faults/%d/%s=%.6g" % (i, key, f))


if __name__ == "__main__":
    main()
