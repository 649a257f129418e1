#!/usr/bin/env python3
"""GREYHOUND's production population (docs/greyhound.md#the-production-population).

usage: bench/greyhound_production.py spec
           writes scenarios/sweeps/greyhound-production.json
       bench/greyhound_production.py ladder SPEC_OUT BASE_OUT
           writes a copy of that sweep whose base is production-job.json with the ladder on
       bench/greyhound_production.py summary NONE_POINTS [LADDER_POINTS]
           prints the seed's figures beside the runs' (each a sweep's DIR/points)

The seed (shared/seeds/, DOMAIN.md section 3): 27 production jobs of 512 to 1,024 GPUs over one
month; 16 encountered fail-slows, 13 network congestion and 3 congestion with GPU degradation;
events lasted 72 minutes on average; job completion rose 34.59% (the hit jobs'); more than 20% of
the jobs were delayed by over 50%; one 1,024-GPU job fell to 10% of normal throughput.

The population (`spec`), chosen before any run and not tuned:
- sizes: the seed gives the range only, so the 27 are spread evenly over it, job i having
  512 + 512 i / 26 GPUs rounded to a multiple of 16 (TP 8 x PP 2): 512, 528, ..., 1,024;
- each job is scenarios/greyhound/production-job.json (5 hours healthy), exposed to faults from
  minute 5 to hour 5 (T = 4 h 55 min), its own generator seed (i + 1);
- network congestion arrives per node-hour (the fault generator's assumption: a job's rate grows
  with its size) at the rate r for which the 27 jobs expect 16 hit:
  sum_i (1 - exp(-r n_i T)) = 16, n_i the job's nodes;
- GPU degradation per GPU-hour at the rate g for which they expect 3 jobs with one:
  sum_i (1 - exp(-g G_i T)) = 3, independent of the congestion (so a GPU event may also hit a job
  without congestion: the seed saw none such, the model expects about 1.2).

`summary`, per job from results.json: the completion time is the last iteration's end; the
fault-free completion is what the job's own fault-free prefix gives, the end of the last
iteration before the first fault plus the rest at the healthy iteration time
(degradation.baseline_iteration_s): exactly what a fault-free twin gives, since a healthy
iteration repeats to the picosecond (fast-forward skips on it). Stretch = completion / fault-free
completion - 1. The lowest throughput is the healthy iteration time over the longest iteration,
leaving out the iterations a mitigation pause delays (a pause is the step's cost, not the fault's).
"""
import json
import math
import os
import statistics
import sys

JOBS, HIT, GPU_HIT = 27, 16, 3
START_H, HORIZON_H = 5 / 60, 5.0


def sizes():
    return [512 + round(512 * i / 26 / 16) * 16 for i in range(JOBS)]


def solve(units, target):
    """The rate per unit-hour for which sum(1 - exp(-rate u T)) over the jobs equals target."""
    t = HORIZON_H - START_H
    lo, hi = 0.0, 1.0
    for _ in range(200):
        mid = (lo + hi) / 2
        if sum(1 - math.exp(-mid * u * t) for u in units) < target: lo = mid
        else: hi = mid
    return (lo + hi) / 2


def spec():
    gpus = sizes()
    nodes = [g // 8 for g in gpus]
    r, g = solve(nodes, HIT), solve(gpus, GPU_HIT)
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "scenarios", "sweeps")
    for name, policy in (("greyhound-production", None),):
        params = [
            {"path": "/cluster/nodes", "values": nodes},
            {"path": "/fault_generator/seed", "values": list(range(1, JOBS + 1))},
            {"path": "/fault_generator/link_degrade/rate", "values": [float(f"{r * n:.8g}") for n in nodes]},
            {"path": "/fault_generator/gpu_slowdown/rate", "values": [float(f"{g * x:.8g}") for x in gpus]},
        ]
        doc = {
            "sweep": 1,
            "name": name,
            "description": ("GREYHOUND's production population (docs/greyhound.md#the-production-population): 27 jobs "
                            "of 512 to 1,024 GPUs of production-job.json, each its own generator seed; congestion "
                            f"at {r:.6g} per node-hour and GPU degradation at {g:.6g} per GPU-hour, the rates for "
                            "which the 27 expect 16 jobs hit and 3 with a GPU event (bench/greyhound_production.py "
                            "writes this file). No mitigation: the monitor detects only; bench/greyhound-production.sh "
                            "runs it with the ladder too."),
            "base": "../greyhound/production-job.json",
            "design": "zip",
            "parameters": params,
            "metrics": {
                "faults_applied": "/health/score/faults_applied",
                "faults_detected": "/health/score/faults_detected",
                "false_positives": "/health/score/false_positives",
                "baseline_iteration_s": "/degradation/baseline_iteration_s",
                "time_below_slo_s": "/degradation/time_below_slo_s",
                "gpu_hours_lost": "/degradation/gpu_hours_lost",
            },
        }
        with open(os.path.join(root, name + ".json"), "w") as f:
            f.write(json.dumps(doc, indent=2) + "\n")
    print(f"congestion {r:.6g} per node-hour, GPU degradation {g:.6g} per GPU-hour")


def ladder(spec_out, base_out):
    """The sweep with GREYHOUND's ladder (S1, S2, S4): a sweep's values must differ, so the policy
    goes into a copy of the base, written beside the copy of the spec."""
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "scenarios")
    base = json.load(open(os.path.join(root, "greyhound", "production-job.json")))
    base["health"]["mitigation"]["policy"] = "ladder"
    base["workload"]["hf_config"] = os.path.abspath(os.path.join(root, "greyhound", base["workload"]["hf_config"]))
    with open(base_out, "w") as f: json.dump(base, f, indent=2)
    doc = json.load(open(os.path.join(root, "sweeps", "greyhound-production.json")))
    doc["name"] += "-ladder"
    doc["base"] = os.path.abspath(base_out)
    with open(spec_out, "w") as f: json.dump(doc, f, indent=2)


def parse_s(text):
    """Seconds of a scenario time ("5min", "5h", "300s")."""
    for unit, f in (("min", 60), ("ms", 1e-3), ("us", 1e-6), ("ps", 1e-12), ("s", 1), ("h", 3600)):
        if text.endswith(unit): return float(text[:-len(unit)]) * f
    return float(text)


def job(d):
    r = json.load(open(os.path.join(d, "results.json")))
    its = [i for i in r["iterations"]]
    gpus = r["scenario"]["cluster"]["nodes"] * r["scenario"]["cluster"]["node"]["gpus"]
    applied = [f for f in r.get("faults", []) if f.get("applied")]
    base = r.get("degradation", {}).get("baseline_iteration_s")
    end = its[-1]["end_s"]
    gen = r["fault_generator"]
    t = (parse_s(gen["horizon"]) - parse_s(gen["start"])) / 3600
    p_any = 1 - math.exp(-(gen["link_degrade"]["rate"] + gen["gpu_slowdown"]["rate"]) * t)
    if not applied or base is None:
        return dict(p_any=p_any, levels=[], gpus=gpus, kinds=set(), stretch=0.0, lowest=1.0, durations=[], detected=0, applied=0,
                    false_positives=0, steps=[], paused=0.0)
    first = min(f["start_s"] for f in applied)
    prefix = [i for i in its if i["end_s"] <= first]
    k = prefix[-1]
    healthy_end = k["end_s"] + (len(its) - 1 - k["index"]) * base
    mit = r.get("health", {}).get("mitigation", {})
    paused = set()
    for a in mit.get("actions", []):
        if a.get("pause_s", 0) > 0 and a.get("after_iteration") is not None:
            paused.update({a["after_iteration"], a["after_iteration"] + 1})
    longest = max(i["duration_s"] for i in its if not i["warmup"] and i["index"] not in paused)
    score = r.get("health", {}).get("score", {})
    # Each fault's steady slowdown: the median iteration wholly inside its window, no other fault active.
    levels = []
    for f in applied:
        inside = [i["duration_s"] for i in its if i["start_s"] >= f["start_s"] and i["end_s"] <= f["end_s"]
                  and i["index"] not in paused
                  and not any(g is not f and g["start_s"] < i["end_s"] and g["end_s"] > i["start_s"] for g in applied)]
        if inside: levels.append((f["kind"], f.get("severity", "?"), statistics.median(inside) / base))
    return dict(p_any=p_any, levels=levels, gpus=gpus, kinds={f["kind"] for f in applied}, stretch=end / healthy_end - 1, lowest=base / longest,
                durations=[(f["kind"], f["end_s"] - f["start_s"]) for f in applied],
                detected=score.get("faults_detected", 0), applied=score.get("faults_applied", len(applied)),
                false_positives=score.get("false_positives", 0), steps=[a["step"] for a in mit.get("actions", [])],
                paused=mit.get("paused_s", 0.0))


def population(points, only=None):
    """The jobs of a sweep's DIR/points that finished (with `only`, those of these point ids), by size."""
    jobs = []
    for p in sorted(os.listdir(points)):
        if os.path.exists(os.path.join(points, p, "results.json")) and (only is None or p in only):
            jobs.append(dict(job(os.path.join(points, p)), id=p))
    return sorted(jobs, key=lambda j: j["gpus"])


def finished(points):
    return {p for p in os.listdir(points) if os.path.exists(os.path.join(points, p, "results.json"))}


def summarize(jobs):
    hit = [j for j in jobs if j["kinds"]]
    both = [j for j in hit if "gpu_slowdown" in j["kinds"] and "link_degrade" in j["kinds"]]
    net = [j for j in hit if j["kinds"] == {"link_degrade"}]
    gpu = [j for j in hit if j["kinds"] == {"gpu_slowdown"}]
    netd = [d for j in jobs for k, d in j["durations"] if k == "link_degrade"]
    over = sum(j["stretch"] > 0.5 for j in jobs)
    lowest = min(jobs, key=lambda j: j["lowest"])
    steps = {}
    for j in jobs:
        for s in j["steps"]: steps[s] = steps.get(s, 0) + 1
    return {
        "jobs": f"{len(jobs)}",
        "jobs with a fault": f"{len(hit)} of {len(jobs)}",
        "expected from the rates": f"{sum(j['p_any'] for j in jobs):.1f} of {len(jobs)}",
        "congestion only / with GPU degradation / GPU only": f"{len(net)} / {len(both)} / {len(gpu)}",
        "mean congestion event, to the job end (min)": f"{statistics.mean(netd) / 60:.0f} ({len(netd)} events)" if netd else "-",
        "mean stretch of the jobs with a fault": f"+{100 * statistics.mean(j['stretch'] for j in hit):.2f}%" if hit
        else "-",
        "largest stretch": f"+{100 * max(j['stretch'] for j in jobs):.1f}%",
        "jobs stretched over 50%": f"{over} of {len(jobs)} ({100 * over / len(jobs):.0f}%)",
        "lowest throughput / normal": f"{100 * lowest['lowest']:.0f}% ({lowest['gpus']} GPUs)",
        "faults detected": f"{sum(j['detected'] for j in jobs)} of {sum(j['applied'] for j in jobs)}, "
        f"{sum(j['false_positives'] for j in jobs)} false",
        "mitigation steps": ", ".join(f"{k} x{v}" for k, v in sorted(steps.items())) or "-",
    }


SEED = {
    "jobs": "27",
    "jobs with a fault": "16 of 27",
    "expected from the rates": "17.2 of 27 (16 congestion)",
    "congestion only / with GPU degradation / GPU only": "13 / 3 / 0",
    "mean congestion event, to the job end (min)": "72 (all events)",
    "mean stretch of the jobs with a fault": "+34.59%",
    "largest stretch": "-",
    "jobs stretched over 50%": "over 20%",
    "lowest throughput / normal": "10% (1,024 GPUs)",
    "faults detected": "-",
    "mitigation steps": "-",
}


def summary(dirs):
    cols = [summarize(population(d)) for d in dirs]
    names = ["seed", "trainvp, no mitigation", "trainvp, ladder"][:1 + len(cols)]
    if len(dirs) == 2 and finished(dirs[0]) != finished(dirs[1]):  # a subset ran with the ladder
        both = finished(dirs[0]) & finished(dirs[1])
        cols = [cols[0], summarize(population(dirs[0], both)), summarize(population(dirs[1], both))]
        names = ["seed", "trainvp, no mitigation", "no mitigation, the ladder's jobs", "trainvp, ladder"]
        cols = [cols[0], cols[1], cols[2]]
    print("| | " + " | ".join(names) + " |")
    print("|---" * (1 + len(names)) + "|")
    for key in SEED:
        print(f"| {key} | {SEED[key]} | " + " | ".join(c[key] for c in cols) + " |")
    print()
    print("steady slowdown of a fault alone (median iteration inside its window / healthy), no mitigation:")
    by = {}
    for j in population(dirs[0]):
        for k, sev, x in j["levels"]: by.setdefault((k, sev), []).append(x)
    for (k, sev), xs in sorted(by.items()):
        print(f"  {k} {sev}: {len(xs)} events, {min(xs):.2f}x to {max(xs):.2f}x, median {statistics.median(xs):.2f}x")
    print()
    for d in dirs:
        print(d)
        for j in population(d):
            if not j["kinds"]: print(f"  {j['gpus']:5d} GPUs  no fault")
            else:
                ev = ", ".join(f"{k.split('_')[0]} {s / 60:.0f} min" for k, s in j["durations"])
                print(f"  {j['gpus']:5d} GPUs  stretch +{100 * j['stretch']:6.2f}%  lowest {100 * j['lowest']:5.1f}%  "
                      f"detected {j['detected']}/{j['applied']}  steps {' '.join(j['steps']) or '-'}  [{ev}]")


if __name__ == "__main__":
    if len(sys.argv) >= 2 and sys.argv[1] == "spec": spec()
    elif len(sys.argv) == 4 and sys.argv[1] == "ladder": ladder(sys.argv[2], sys.argv[3])
    elif len(sys.argv) >= 3 and sys.argv[1] == "summary": summary(sys.argv[2:])
    else: sys.exit(__doc__)
