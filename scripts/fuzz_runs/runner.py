"""Runs one generated scenario and its twins through `trainvp`, and checks the invariants.

check(scenario) runs:
  A  the scenario as generated          -> every single-run invariant (invariants.py)
  A' the same again                     -> rerun_identical
  F  the other fabric fidelity          -> flow_matches_packet, where a tolerance is stated
  G  group_ring_steps off, A in flow    -> grouping_changes_nothing
  N  fast-forward off, when A skipped   -> fast_forward_agrees
  0  sync none, where the bound holds   -> iteration_above_compute_bound
  M  one key broken (some scenarios)    -> refusal_names_a_pointer (exit 2, the broken key's pointer)
"""

import copy
import json
import os
import random
import re
import shutil
import subprocess
import tempfile

from . import invariants as inv
from .invariants import Violation

SANITIZER_EXIT = {86: "ASan/LSan", 87: "UBSan"}
CXL_TIME_FACTOR = 4  # a CXL scenario's time limit, in multiples of the others' (check())


class Trainvp:
    def __init__(self, binary, env=None, timeout=120, report_dir=None):
        self.binary = binary
        self.env = env
        self.timeout = timeout
        self.report_dir = report_dir

    def slower(self, factor):
        """The same runner with `factor` times the time limit."""
        return Trainvp(self.binary, self.env, self.timeout * factor, self.report_dir)

    def __call__(self, *args):
        try:
            r = subprocess.run([self.binary, *args], capture_output=True, text=True, env=self.env, timeout=self.timeout)
        except subprocess.TimeoutExpired:
            return 124, "", f"timed out after {self.timeout} s"
        return r.returncode, r.stdout, r.stderr


def read_outputs(d):
    files = {}
    for name in sorted(os.listdir(d)):
        with open(os.path.join(d, name), "rb") as fh:
            files[name] = fh.read()
    return files


# Flow against packet (docs/fabric.md#flow-against-packet): the tolerance on the mean iteration
# for each kind of traffic, and the kinds with none stated. Returns (tolerance or None, kind).
def pcie_gbps(node):
    """A node's PCIe rate per direction in Gbit/s, after 128b/130b coding (fabric_config.cpp)."""
    p = node.get("pcie", {})
    gts = {3: 8, 4: 16, 5: 32, 6: 64}[p.get("gen", 5)]
    return gts * p.get("lanes", 16) * 128 / 130


def size_of_rate(v):
    """A bandwidth string ("400Gbps") in Gbit/s."""
    for unit, scale in (("Tbps", 1000), ("Gbps", 1), ("Mbps", 1e-3)):
        if v.endswith(unit):
            return float(v[: -len(unit)]) * scale
    raise ValueError(v)


def fidelity_class(sc):
    cl = sc["cluster"]
    f = cl.get("fabric", {})
    if "jobs" in sc:
        trainings = [j.get("training", {}) for j in sc["jobs"]]
    else:
        trainings = [sc.get("training", {})]
    syncs = [t.get("sync", {}) for t in trainings]
    strategies = {s.get("strategy", "none") for s in syncs}
    if sc.get("faults") or sc.get("fault_generator"):
        return None, "faults (applied at once to whole flows; congestion, loss as an expectation)"
    w = sc.get("workload", {})
    small_chunks = f.get("chunk", "1MiB") in ("64KiB", "256KiB")
    if w.get("kind") == "collective":
        if w.get("algorithm", "ring") != "ring" or not small_chunks:
            return None, "benchmarks other than rings in chunks up to 256 KiB"
        if f.get("chunk") == "256KiB" and pcie_gbps(cl["node"]) < size_of_rate(f.get("link_bw", "400Gbps")):
            # A transfer of a few chunks is stored and forwarded a chunk at a time on PCIe hops
            # slower than the network in packet fidelity, where flow fidelity charges a packet per
            # hop: known (tests/fuzz-runs/known/flow_matches_packet--sendrecv-two-chunks-slow-pcie.json).
            return None, "benchmarks in 256 KiB chunks behind PCIe slower than the network (#45)"
        return 0.03, "benchmark rings, one collective at a time"
    if "chakra" in w:
        if not small_chunks:
            return None, "chunks above 256 KiB (round-robin per chunk on contended links)"
        return 0.03, "Chakra traces (concurrent collectives)"
    if strategies <= {"none"} and not any("parallel" in t for t in trainings):
        return 1e-9, "no traffic"
    if any(s.get("algorithm", "ring") not in ("ring", "hierarchical") for s in syncs if s.get("strategy", "none") != "none"):
        return None, "tree, PS or CXL all-reduces (a GPU sends to several peers at once; a big tree in small chunks +5.5% in flow, #45)"
    node = cl["node"]
    if any(s.get("algorithm") == "hierarchical" for s in syncs) and node.get("nics", 0) not in (0, node.get("gpus", 8)):
        return None, "hierarchical rails sharing a NIC (max-min against round-robin with back-pressure)"
    if any("parallel" in t for t in trainings):
        return None, "hybrid parallelism (TP, PP and DP traffic at once)"
    chunk = f.get("chunk", "1MiB")
    if chunk not in ("64KiB", "256KiB"):
        # Packet fidelity shares a contended link round-robin per chunk, so each transfer may wait a
        # chunk time per shared hop and ring step; flow fidelity is the fluid limit it approaches as
        # chunks shrink (-0.3% at 256 KiB, -3.7% at 1 MiB, -6.6% at 16 MiB: --seed 1045 --index 160).
        # So do a GPU's concurrent transfers: a queued one takes what the ones ahead leave of its
        # first link, which packet fidelity's buffers give it only a chunk at a time (#45).
        return None, "chunks above 256 KiB (round-robin per chunk on contended links)"
    if "asc_wfbp" in strategies or any(s.get("comm_streams", 1) > 1 for s in syncs) or len(syncs) > 1:
        return 0.03, "concurrent collectives from one GPU"
    if f.get("nccl", {}).get("channels", 0) > 1 or f.get("nccl", {}).get("order") == "topology":
        return 0.03, "multi-channel rings"
    return 0.03, "rings, one collective at a time per GPU"


def apply_set(sc, pointer, value):
    """--set on a dict, for the twins' scenario files (creates missing objects)."""
    parts = [p.replace("~1", "/").replace("~0", "~") for p in pointer.split("/")[1:]]
    node = sc
    for p in parts[:-1]:
        if isinstance(node, list):
            node = node[int(p)]
        else:
            node = node.setdefault(p, {})
    if isinstance(node, list):
        node[int(parts[-1])] = value
    else:
        node[parts[-1]] = value


class Result:
    def __init__(self):
        self.violations = []
        self.refused = None  # the pointer of a refusal of the scenario itself
        self.runs = 0
        self.notes = []
        self.fidelity = None  # (kind, packet s, flow s) when compared
        self.applied = []  # the invariants that applied


def run_one(tv, sc, work, tag, extra=(), out_tag=None):
    """Writes sc and runs it; returns (rc, stderr, results or None, files). The resolved scenario
    in results.json holds the output directory, so a rerun writes to the same one (out_tag)."""
    path = os.path.join(work, f"{tag}.json")
    with open(path, "w") as fh:
        json.dump(sc, fh, indent=1)
    out = os.path.join(work, f"{out_tag or tag}.out")
    shutil.rmtree(out, ignore_errors=True)
    rc, _, err = tv("run", path, "-q", "-o", out, *extra)
    if rc != 0 or not os.path.exists(os.path.join(out, "results.json")):
        return rc, err, None, {}
    files = read_outputs(out)
    return rc, err, json.loads(files["results.json"]), files


def sanitizer_findings(rc, err, what):
    out = []
    if rc in SANITIZER_EXIT:
        out.append(Violation("sanitizer_clean", f"{what}: {SANITIZER_EXIT[rc]} report (exit {rc}): {err.strip()[-400:]}"))
    elif "runtime error:" in err:
        out.append(Violation("sanitizer_clean", f"{what}: UBSan: {err.strip()[-400:]}"))
    return out


def run_twin(tv, sc, work, tag, what, pointer, value, res):
    """The scenario with `pointer` set to `value`, run once (counted in res.runs, its sanitizer
    findings added to res.violations); returns (rc, stderr, results or None)."""
    twin = copy.deepcopy(sc)
    apply_set(twin, pointer, value)
    rc, err, results, _ = run_one(tv, twin, work, tag)
    res.runs += 1
    res.violations += sanitizer_findings(rc, err, what)
    return rc, err, results


FIDELITY_TOLERANCE = None  # --fidelity-tolerance: one tolerance for every kind of traffic


def check(tv, sc, work, only=None, mutate_seed=None):
    """Every invariant on scenario sc (a dict), in the directory `work`. `only`: the name of the
    one invariant the shrinker follows (the others are skipped when they cost a run)."""
    res = Result()
    inv.applied_reset()
    want = lambda name: only is None or only == name
    # A CXL device runs its Verilated engine cycle by cycle: a generated GPT-2 medium over it takes
    # about 40 s per run on an idle 2-core machine, past the limit once two runs share the cores.
    if sc.get("cluster", {}).get("node", {}).get("cxl", {}).get("present"):
        tv = tv.slower(CXL_TIME_FACTOR)

    rc, err, a, files_a = run_one(tv, sc, work, "a")
    res.runs += 1
    res.violations += sanitizer_findings(rc, err, "run")
    if rc == 2:
        res.refused = inv.pointer_of(err)
        res.violations += inv.refusal_names_a_pointer(rc, err)
        return res
    if rc != 0 or a is None:
        if rc not in SANITIZER_EXIT:
            res.violations.append(Violation("valid_scenario_runs", f"exit {rc}: {err.strip()[-400:]}"))
        return res

    topo = None
    if only is None or only not in ("rerun_identical", "flow_matches_packet", "fast_forward_agrees",
                                    "grouping_changes_nothing"):
        trc, tout, terr = tv("describe", "topology", os.path.join(work, "a.json"), "--json")
        res.runs += 1
        if trc != 0:
            res.violations.append(Violation("valid_scenario_runs", f"describe topology: exit {trc}: {terr.strip()[-300:]}"))
            return res
        topo = json.loads(tout)
        if "jobs" not in sc:
            res.violations += inv.single_run_checks(sc, a, topo)
        else:
            res.violations += inv.links_checks(sc, a, topo)
        res.violations += inv.link_series_checks(sc, a, files_a.get("link_series.json"))

    if want("rerun_identical"):
        rc2, err2, _, files_b = run_one(tv, sc, work, "b", out_tag="a")
        res.runs += 1
        res.violations += sanitizer_findings(rc2, err2, "rerun")
        if rc2 != 0:
            res.violations.append(Violation("rerun_identical", f"the rerun exits {rc2}: {err2.strip()[-300:]}"))
        else:
            res.violations += inv.rerun_identical(files_a, files_b)

    cl = sc["cluster"]
    f = cl.get("fabric", {})
    packet_only = (cl["node"].get("cxl", {}).get("present") or cl.get("aggregators", {}).get("count", 0)
                   or f.get("congestion_control") or f.get("pfc", {}).get("mode", "egress") != "egress")
    tol, kind = fidelity_class(sc)
    if FIDELITY_TOLERANCE is not None:
        tol = FIDELITY_TOLERANCE
    elif tol is None and inv.INCLUDE_KNOWN and "#45" in kind:
        tol = 0.03  # the known defect's kinds, held to the rings' tolerance
    if want("flow_matches_packet") and not packet_only and tol is not None and "jobs" not in sc:
        other = "packet" if f.get("fidelity", "packet") == "flow" else "flow"
        rcf, errf, b = run_twin(tv, sc, work, "f", f"{other} fidelity", "/cluster/fabric/fidelity", other, res)
        if rcf != 0:
            res.violations.append(Violation("flow_matches_packet", f"the {other}-fidelity twin exits {rcf}: {errf.strip()[-300:]}"))
        else:
            pk, fl = (a, b) if other == "flow" else (b, a)
            tp, tf = headline_time(pk), headline_time(fl)
            res.fidelity = (kind, tp, tf)
            inv.apply("flow_matches_packet")
            if abs(tf - tp) > tol * tp + 2e-12:
                res.violations.append(Violation("flow_matches_packet", f"{kind}: iteration {tp * 1e3:.6f} ms in packet fidelity, {tf * 1e3:.6f} ms in flow ({(tf / tp - 1) * 100:+.2f}%, tolerance {tol * 100:g}%)"))

    if want("grouping_changes_nothing") and a.get("sim", {}).get("fidelity") == "flow" and f.get("group_ring_steps", True):
        rcg, errg, g = run_twin(tv, sc, work, "g", "group_ring_steps off", "/cluster/fabric/group_ring_steps", False, res)
        if rcg != 0:
            res.violations.append(Violation("grouping_changes_nothing", f"the run without grouping exits {rcg}: {errg.strip()[-300:]}"))
        else:
            res.violations += inv.grouping_changes_nothing(a, g)

    ff = a.get("fast_forward", {})
    if want("fast_forward_agrees") and ff.get("iterations_skipped", 0) > 0:
        rcn, errn, b = run_twin(tv, sc, work, "n", "fast-forward off", "/training/fast_forward/enabled", False, res)
        if rcn != 0:
            res.violations.append(Violation("fast_forward_agrees", f"the run without fast-forward exits {rcn}: {errn.strip()[-300:]}"))
        else:
            res.violations += inv.fast_forward_agrees(a, b)

    if want("iteration_above_compute_bound") and compute_twin_applies(sc):
        rc0, err0, b = run_twin(tv, sc, work, "0", "sync none", "/training/sync/strategy", "none", res)
        if rc0 == 0:
            res.violations += inv.compute_only_bound(a, b)
        elif rc0 != 2:  # some keys are refused without a strategy that uses them: no bound then
            res.violations.append(Violation("valid_scenario_runs", f"the sync-none twin exits {rc0}: {err0.strip()[-300:]}"))

    if want("refusal_names_a_pointer") and mutate_seed is not None:
        res.violations += mutation_refused(tv, sc, work, random.Random(mutate_seed))
        res.runs += 1
    res.applied = inv.applied()
    return res


def headline_time(res):
    """The time flow and packet fidelity are compared on: the mean iteration; a benchmark's
    summed mean times over its sizes; a Chakra run's end."""
    if "chakra" in res:
        return res["chakra"]["time_s"]
    if res["scenario"].get("workload", {}).get("kind") == "collective":
        return sum(r["time_s"] for r in res["collectives"])
    return res["iteration_time_s"]


def compute_twin_applies(sc):
    tr = sc.get("training", {})
    s = tr.get("sync", {})
    if "jobs" in sc or sc.get("faults") or sc.get("fault_generator") or sc.get("health"):
        return False  # timed faults land elsewhere on a slower timeline
    if s.get("strategy", "none") == "none":
        return False
    w = sc.get("workload", {})
    if "train" in w:
        return False
    return True


QUANTITY = re.compile(r"^[0-9.eE+-]+ *(bps|Kbps|Mbps|Gbps|Tbps|B/s|KB/s|MB/s|GB/s|TB/s|ps|ns|us|ms|s|min|h|B|KB|kB|MB|GB|KiB|MiB|GiB|TFLOPS|GFLOPS)$")


def objects_and_quantities(node, path, objs, quants):
    if isinstance(node, dict):
        objs.append(path)
        for k, v in node.items():
            objects_and_quantities(v, f"{path}/{k}", objs, quants)
    elif isinstance(node, list):
        for i, v in enumerate(node):
            objects_and_quantities(v, f"{path}/{i}", objs, quants)
    elif isinstance(node, str) and QUANTITY.match(node):
        quants.append(path)


OPAQUE = ("/workload/layers/", "/training/sync/profile")  # validated too, but keep mutations simple


def mutation_refused(tv, sc, work, r):
    """Breaks one key of a valid scenario: an unknown key in an object, or a quantity written as a
    bare number. The loader must refuse it with exit 2 and name that key's JSON pointer."""
    objs, quants = [], []
    objects_and_quantities(sc, "", objs, quants)
    objs = [o for o in objs if not o.startswith(OPAQUE)]
    bad = copy.deepcopy(sc)
    if quants and r.random() < 0.5:
        p = r.choice(quants)
        apply_set(bad, p, 7)
        expect = p
    else:
        p = r.choice(objs) if objs else ""
        key = "fuzz_unknown_key"
        apply_set(bad, f"{p}/{key}", 1)
        expect = f"{p}/{key}"
    path = os.path.join(work, "m.json")
    with open(path, "w") as fh:
        json.dump(bad, fh, indent=1)
    rc, _, err = tv("validate", path)
    out = sanitizer_findings(rc, err, "validate")
    out += inv.refusal_names_a_pointer(rc, err)
    got = inv.pointer_of(err)
    if rc == 2 and got is not None and got != expect:
        out.append(Violation("refusal_names_a_pointer", f"broke {expect}, the error names {got}: {err.strip()[:200]}"))
    return out
