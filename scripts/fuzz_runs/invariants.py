"""The invariants scripts/fuzz-runs checks on every generated run.

Each check reads results.json (docs/scenario-format.md#resultsjson) and derives what it expects
from the scenario and the documented model, never from another field the same code computed the
same way. docs/reliability.md#fuzzing-what-the-simulator-computes lists them with their
justification; the names below are the ones a report gives.

A check returns a list of Violation; an empty list is a pass.
"""

import json
import re
import threading

PS = 1e-12

# Which invariants applied to the scenario being checked (per thread: scenarios run in threads),
# for the campaign's summary of how often each was exercised.
_applied = threading.local()


def applied_reset():
    _applied.names = set()


def applied():
    return sorted(getattr(_applied, "names", set()))


def apply(name):
    if not hasattr(_applied, "names"):
        _applied.names = set()
    _applied.names.add(name)


class Violation:
    def __init__(self, invariant, message):
        self.invariant = invariant
        self.message = message

    def __repr__(self):
        return f"{self.invariant}: {self.message}"


def rel(a, b):
    return abs(a - b) / max(abs(a), abs(b), 1e-300)


GRAD_SIZE = {"fp32": 4, "tf32": 4, "bf16": 2, "fp16": 2, "fp8": 1}


# ---------------------------------------------------------------------------------------------
# Refusals: exit 2 and one line "trainvp: error: <JSON pointer>: ..." (docs/scenario-format.md#errors).
POINTER_LINE = re.compile(r"^trainvp: error: (/[^:\s]*)?(/|[^:\s]*): ")


def refusal_names_a_pointer(rc, stderr):
    apply("refusal_names_a_pointer")
    if rc != 2:
        return [Violation("refusal_names_a_pointer", f"exit {rc}, expected 2 for a refused scenario")]
    lines = [l for l in stderr.splitlines() if l.startswith("trainvp: error:")]
    if not lines or not re.match(r"^trainvp: error: /\S*: ", lines[0]):
        return [Violation("refusal_names_a_pointer", f"no JSON pointer in {stderr.strip()[:200]!r}")]
    return []


def pointer_of(stderr):
    m = re.search(r"trainvp: error: (/\S*): ", stderr)
    return m.group(1) if m else None


# ---------------------------------------------------------------------------------------------
# Rerun: byte-identical files but for the wall clock (README: "The same scenario and seed give
# byte-identical results.json except for sim.wall_s").
WALL = re.compile(rb'"wall_s": *[-+0-9.eE]+')


def rerun_identical(files_a, files_b):
    apply("rerun_identical")
    out = []
    if sorted(files_a) != sorted(files_b):
        return [Violation("rerun_identical", f"files {sorted(files_a)} then {sorted(files_b)}")]
    for name in sorted(files_a):
        a, b = files_a[name], files_b[name]
        if name == "results.json":
            a, b = WALL.sub(b'"wall_s": 0', a), WALL.sub(b'"wall_s": 0', b)
        if a != b:
            diff = first_difference(a, b)
            out.append(Violation("rerun_identical", f"{name} differs: {diff}"))
    return out


def first_difference(a, b):
    try:
        ja, jb = json.loads(a), json.loads(b)
    except ValueError:
        for k, (x, y) in enumerate(zip(a, b)):
            if x != y:
                return f"byte {k}"
        return "length"
    path = json_diff(ja, jb, "")
    return path or "formatting"


def json_diff(a, b, path):
    if type(a) != type(b):
        return f"{path}: {a!r:.60} vs {b!r:.60}"
    if isinstance(a, dict):
        for k in list(a.keys()) + [k for k in b if k not in a]:
            if k not in a or k not in b:
                return f"{path}/{k}: only in one"
            d = json_diff(a[k], b[k], f"{path}/{k}")
            if d:
                return d
        return None
    if isinstance(a, list):
        if len(a) != len(b):
            return f"{path}: {len(a)} vs {len(b)} elements"
        for i, (x, y) in enumerate(zip(a, b)):
            d = json_diff(x, y, f"{path}/{i}")
            if d:
                return d
        return None
    return None if a == b else f"{path}: {a!r:.60} vs {b!r:.60}"


# ---------------------------------------------------------------------------------------------
# Helpers over the scenario as resolved (results.json's `scenario`: every default filled in).
def fabric_of(res):
    return res["scenario"]["cluster"].get("fabric", {})


def link_kind_params(res, kind):
    """(mtu, framing) of a link kind, from the resolved scenario."""
    cl = res["scenario"]["cluster"]
    if kind == "ethernet":
        f = cl.get("fabric", {})
        return f.get("mtu", 4096), f.get("framing", 82)
    if kind == "nvlink":
        n = cl["node"].get("nvlink", {})
        return n.get("mtu", 256), n.get("framing", 56)
    if kind == "pcie":
        p = cl["node"].get("pcie", {})
        return p.get("mtu", 256), p.get("framing", 24)
    return None


def has_fault(sc, *kinds):
    faults = sc.get("faults", [])
    gen = sc.get("fault_generator")
    for f in faults:
        if not kinds or f["kind"] in kinds:
            return True
    if gen:
        for k in (kinds or ("gpu_slowdown", "cpu_contention", "link_degrade", "packet_loss", "link_down", "congestion")):
            g = gen.get(k)
            # Only the kinds given a positive rate draw events (docs: packet_loss, link_down and
            # congestion are off by default, the others on at GREYHOUND's rates).
            if g is None:
                if k in ("gpu_slowdown", "cpu_contention", "link_degrade"):
                    return True
                continue
            if g.get("rate", 1 if k in ("gpu_slowdown", "cpu_contention", "link_degrade") else 0) > 0:
                return True
    return False


# ---------------------------------------------------------------------------------------------
# Links: busy time within the run, bytes conserved at every device that forwards, wire bytes
# between full and partial packets, busy time = wire time at the link's rate.
def links_checks(sc, res, topo):
    out = []
    sim = res["sim"]["simulated_s"]
    kinds = {l["name"]: l for l in topo["links"]}
    dev_kind = {d["name"]: d["kind"] for d in topo["devices"]}
    flow = fabric_of(res).get("fidelity", "packet") == "flow"
    rate_faults = has_fault(sc, "link_degrade", "link_down", "packet_loss")
    lossy = has_fault(sc, "packet_loss")
    net_in, net_out = {}, {}
    apply("link_busy_within_run")
    for l in res["links"]:
        busy = l["busy_s"]
        # A direction transmits one chunk at a time, so its busy time fits in the run.
        if busy > sim * (1 + 1e-9) + PS:
            out.append(Violation("link_busy_within_run", f"{l['name']}: busy {busy} s > simulated {sim} s"))
        if not 0 <= l["utilization"] <= 1 + 1e-9:
            out.append(Violation("link_busy_within_run", f"{l['name']}: utilization {l['utilization']}"))
        src, dst = l["name"].split("->")
        payload = l["bytes"] - l.get("background_bytes", 0)
        net_out[src] = net_out.get(src, 0) + payload
        net_in[dst] = net_in.get(dst, 0) + payload
        info = kinds.get(l["link"])
        if info is None:
            out.append(Violation("links_named_as_topology", f"{l['link']} is not a link of describe topology"))
            continue
        mp = link_kind_params(res, info["kind"])
        if mp is None or lossy:
            continue
        mtu, framing = mp
        b, w, chunks = l["bytes"], l["wire_bytes"], l["chunks"]
        # Every packet carries at most mtu payload bytes; each chunk ends with at most one partial
        # packet (docs/scenario-format.md: ceil(bytes / mtu) packets per chunk per link).
        lo = b + framing * (-(-b // mtu) if b else 0) if chunks <= 1 else b + framing * b / mtu
        hi = b + framing * (b / mtu + chunks)
        apply("wire_bytes_framed")
        if not (lo - 1e-6 <= w <= hi + 1e-6):
            out.append(Violation("wire_bytes_framed", f"{l['name']}: wire {w} B outside [{lo:.0f}, {hi:.0f}] for {b} B in {chunks} chunks (mtu {mtu}, framing {framing})"))
        if rate_faults:
            continue
        bw = info["bandwidth_bps"]
        apply("busy_is_wire_time")
        # busy = the sum of wire bytes / rate (packet), or the integral of load / payload
        # capacity (flow: bytes x (mtu + framing) / mtu / rate), each chunk rounded to a ps.
        expect = (b * (mtu + framing) / mtu if flow else w) * 8 / bw
        # Packet: each chunk's time rounded to a ps; flow: a double integral over rate changes;
        # fast-forward adds whole periods' busy time, within its tolerance (campaign 1045, 7456).
        ff = res.get("fast_forward", {})
        fft = res["scenario"].get("training", {}).get("fast_forward", {}).get("tolerance", 0) if ff.get("iterations_skipped") else 0
        # Flow: a link counts each flow's bytes in whole bytes (the fraction of a byte a stopped
        # flow had sent is dropped) while its busy time integrates the exact rate: half a byte
        # per flow (campaign 99, 5971: 9 paced congestion flows, 3 bytes).
        whole = 0.5 * max(chunks, 1) * (mtu + framing) / mtu * 8 / bw if flow else 0
        if abs(busy - expect) > ((1e-6 if flow else 1e-9) + fft) * expect + 2 * PS * max(chunks, 1) * 4 + whole:
            out.append(Violation("busy_is_wire_time", f"{l['name']}: busy {busy} s, wire time {expect} s ({w} wire B at {bw:g} bit/s)"))
    # Forwarding devices neither make nor keep bytes once the run has ended (training runs end
    # with every transfer delivered; background cross-traffic is subtracted).
    if any(c.get("end_s", 0) < c.get("start_s", 0) for c in res.get("collectives", [])):
        return out  # a transfer cut by the run's end is still in some queue: collectives_complete
    if any(b.get("end_s") is None for j in res.get("jobs", []) for b in j.get("bursts", [])):
        return out  # so is a checkpoint burst the run cut (jobs.md#checkpoint-jobs), with `collectives` off too
    apply("bytes_conserved")
    forwarding = {"switch", "leaf", "spine", "core", "nvswitch", "pcie-switch", "nic"}
    if not sc.get("cluster", {}).get("node", {}).get("cxl", {}).get("present"):
        forwarding.add("root-complex")
    for dev, kind in dev_kind.items():
        if kind in forwarding and net_in.get(dev, 0) != net_out.get(dev, 0):
            out.append(Violation("bytes_conserved", f"{dev} ({kind}): {net_in.get(dev, 0)} B in, {net_out.get(dev, 0)} B out"))
    return out


def is_benchmark(res):
    return res["scenario"].get("workload", {}).get("kind") == "collective"


SIZE_UNITS = {"B": 1, "KB": 1000, "kB": 1000, "MB": 10**6, "GB": 10**9, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30}


def size_bytes(v):
    """A size as the scenario writes it ("64KiB", "1MB", or a number of bytes)."""
    if isinstance(v, (int, float)):
        return int(v)
    num = v.rstrip("BKMGiTk")
    return int(round(float(num) * SIZE_UNITS[v[len(num):]]))


def benchmark_sizes(w):
    """The sizes a benchmark runs (docs/scenario-format.md#collective_workload): `bytes`, or
    min_bytes x factor^k up to max_bytes, max included only when a step lands on it."""
    if "bytes" in w:
        return [size_bytes(w["bytes"])]
    out, n, hi = [], size_bytes(w["min_bytes"]), size_bytes(w["max_bytes"])
    while n <= hi:
        out.append(n)
        n *= w.get("factor", 2)
    return out


# nccl-tests' bus factors (docs/scenario-format.md#resultsjson-of-a-collective-benchmark) and the
# bytes the ranks of a ring send in all per collective of n bytes over p ranks: every segment of an
# all-reduce is sent p - 1 times in each phase; reduce-scatter and all-gather send each of the p
# segments (n/p) p - 1 times; the broadcast chain forwards n p - 1 times; sendrecv sends n per rank.
BUS_FACTOR = {"all_reduce": lambda p: 2 * (p - 1) / p, "reduce_scatter": lambda p: (p - 1) / p,
              "all_gather": lambda p: (p - 1) / p, "broadcast": lambda p: 1.0, "sendrecv": lambda p: 1.0}
RING_SENT = {"all_reduce": lambda p, n: 2 * (p - 1) * n, "reduce_scatter": lambda p, n: (p - 1) * n,
             "all_gather": lambda p, n: (p - 1) * n, "broadcast": lambda p, n: (p - 1) * n, "sendrecv": lambda p, n: p * n}


def benchmark_checks(sc, res, topo):
    """A collective benchmark's rows: one per size drawn, algbw = bytes / time, busbw = algbw x the
    bus factor, min <= mean <= max; with nccl `bound`, rings of GPUs send exactly the closed form's
    bytes over warm-up and measured collectives; and each size's time is at least what its busiest
    rank must send (or receive) at the sum of its GPU's link rates."""
    w = res["scenario"]["workload"]
    rows = res.get("collectives", [])
    out = []
    apply("benchmark_closed_forms")
    sizes = benchmark_sizes(w)
    if [r["bytes"] for r in rows] != sizes:
        return [Violation("benchmark_closed_forms", f"rows for sizes {[r['bytes'] for r in rows]}, the workload asks for {sizes}")]
    comm = w["communicator"]
    p = len(comm)
    op = w.get("op", "all_reduce")
    for r in rows:
        if not r["min_time_s"] - PS <= r["time_s"] <= r["max_time_s"] + PS:
            out.append(Violation("benchmark_closed_forms", f"{r['bytes']} B: mean {r['time_s']} s outside [min {r['min_time_s']}, max {r['max_time_s']}]"))
        alg = r["bytes"] / r["time_s"] / 1e9
        if rel(alg, r["algbw_GBps"]) > 1e-9:
            out.append(Violation("benchmark_closed_forms", f"{r['bytes']} B: algbw {r['algbw_GBps']} GB/s, bytes / time = {alg}"))
        bus = r["algbw_GBps"] * BUS_FACTOR[op](p)
        if rel(bus, r["busbw_GBps"]) > 1e-9:
            out.append(Violation("benchmark_closed_forms", f"{r['bytes']} B: busbw {r['busbw_GBps']} GB/s, algbw x bus factor = {bus}"))
        # Every rank of an all-reduce sends 2(p-1)/p n and receives as much; of reduce-scatter and
        # all-gather (p-1)/p n; of sendrecv n; every non-root of a broadcast receives n.
        gpu_rate = {}
        for l in topo["links"]:
            for end in (l["a"], l["b"]):
                gpu_rate[end] = gpu_rate.get(end, 0) + l["bandwidth_bps"]
        # NVLink SHARP moves (1 + 1/p) n each way (the switch sums and copies).
        need = ((1 + 1 / p) if w.get("algorithm") == "nvls" else BUS_FACTOR[op](p)) * r["bytes"] * 8
        names = [g["name"] for g in topo["devices"] if g["kind"] == "gpu"]
        for rank in comm:
            rate = gpu_rate.get(names[rank], 0)
            if rate and w.get("algorithm", "ring") not in ("cxl_allreduce", "cxl_hierarchical", "ps") \
                    and r["min_time_s"] < need / rate * (1 - 1e-9):
                out.append(Violation("benchmark_above_bandwidth_bound", f"{r['bytes']} B {op}: fastest {r['min_time_s']} s, but rank {rank} must move {need / 8:.0f} B at its {rate:g} bit/s"))
                break
    apply("benchmark_above_bandwidth_bound")
    if w.get("algorithm", "ring") == "ring" and fabric_of(res).get("nccl", {}).get("model") == "bound" \
            and not has_fault(sc, "congestion", "packet_loss"):
        apply("ring_bytes_closed_form")
        runs = w.get("iterations", 20) + w.get("warmup", 5)
        expect = sum(runs * RING_SENT[op](p, n) for n in sizes)
        gpus = {d["name"] for d in topo["devices"] if d["kind"] == "gpu"}
        sent = sum(l["bytes"] - l.get("background_bytes", 0) for l in res["links"] if l["name"].split("->")[0] in gpus)
        if sent != expect:
            out.append(Violation("ring_bytes_closed_form", f"GPUs sent {sent} B, {runs} x the ring's closed form over the sizes is {expect} B"))
    return out


def chakra_checks(res):
    """Chakra traces: the run's time is the last rank's end; every rank's communication and its
    exposed part fit in its time; and the listed collectives complete (collectives_complete)."""
    c = res["chakra"]
    apply("chakra_times_consistent")
    out = []
    last = max(r["end_s"] for r in c["per_rank"])
    if abs(last - c["time_s"]) > PS:
        out.append(Violation("chakra_times_consistent", f"time_s {c['time_s']} s, the last rank ends at {last} s"))
    for r in c["per_rank"]:
        if not 0 <= r["exposed_communication_s"] <= r["communication_s"] + PS or r["gpu_busy_s"] > r["end_s"] + PS:
            out.append(Violation("chakra_times_consistent", f"rank {r['rank']}: {r}"))
            break
    return out


# link_series.json (docs/scenario-format.md#link_seriesjson): the links of results.json in their
# order, each one's intervals adding up to its busy_s, the interval the closed form (1 ns x 2^k,
# the smallest covering the run in 128); with jobs, every byte but background traffic a job's.
def link_series_checks(sc, res, raw):
    name = "link_series_adds_up"
    apply(name)
    if raw is None:
        return [Violation(name, "no link_series.json beside results.json")]
    s = json.loads(raw)
    sim = res["sim"]["simulated_s"]
    w = 1e-9
    while w * 128 < sim * (1 - 1e-12):
        w *= 2
    out = []
    if rel(s["interval_s"], w) > 1e-9:
        out.append(Violation(name, f"interval {s['interval_s']} s, expected {w} s for a run of {sim} s"))
    if [l["name"] for l in s["links"]] != [l["name"] for l in res["links"]]:
        return out + [Violation(name, "its links are not results.json's, in the same order")]
    whole = "jobs" in sc and not sc["cluster"]["node"].get("cxl", {}).get("present") \
        and not sc["cluster"].get("aggregators", {}).get("count", 0)
    for l, t in zip(s["links"], res["links"]):
        if len(l["busy"]) != s["intervals"]:
            out.append(Violation(name, f"{l['name']}: {len(l['busy'])} intervals, expected {s['intervals']}"))
        total = sum(l["busy"])
        if abs(total - t["busy_s"]) > 1e-9 * t["busy_s"] + 1e-12:
            out.append(Violation(name, f"{l['name']}: intervals add up to {total} s, busy_s {t['busy_s']} s"))
        if whole and sum(l["job_bytes"]) != t["bytes"] - t.get("background_bytes", 0):
            out.append(Violation(name, f"{l['name']}: jobs' bytes {l['job_bytes']} do not add up to {t['bytes']} B less background"))
        if len(out) > 3:
            break
    return out


def health_checks(res):
    """The health score's figures follow from its lists (docs/scenario-format.md, `health`):
    recall = detected / applied faults, precision = true positives / diagnoses, true + false
    positives = diagnoses, a diagnosis is detected no earlier than its change and diagnosed no
    earlier than detected; the ladder's actions are in time order."""
    h = res.get("health")
    if not h:
        return []
    apply("health_score_consistent")
    out = []
    sc_ = h.get("score", {})
    diags = h.get("diagnoses", [])
    faults = h.get("faults", [])
    tp = sum(1 for d in diags if d.get("fault") is not None)
    detected = sum(1 for f in faults if f.get("detected"))
    checks = [("diagnoses", len(diags)), ("true_positives", tp), ("false_positives", len(diags) - tp),
              ("faults_detected", detected)]
    for key, want in checks:
        if key in sc_ and sc_[key] != want:
            out.append(Violation("health_score_consistent", f"score.{key} {sc_[key]}, the lists give {want}"))
    if sc_.get("faults_applied"):
        if "recall" in sc_ and rel(sc_["recall"], detected / sc_["faults_applied"]) > 1e-9:
            out.append(Violation("health_score_consistent", f"recall {sc_['recall']}, detected / applied = {detected / sc_['faults_applied']}"))
    if diags and "precision" in sc_ and sc_["precision"] is not None and rel(sc_["precision"], tp / len(diags)) > 1e-9:
        out.append(Violation("health_score_consistent", f"precision {sc_['precision']}, true positives / diagnoses = {tp / len(diags)}"))
    for d in diags:
        if d.get("detected_s") is not None and d.get("change_s") is not None and d["detected_s"] < d["change_s"] - PS:
            out.append(Violation("health_score_consistent", f"a diagnosis detected at {d['detected_s']} s before its change at {d['change_s']} s"))
        if d.get("diagnosed_s") is not None and d.get("detected_s") is not None and d["diagnosed_s"] < d["detected_s"] - PS:
            out.append(Violation("health_score_consistent", f"a diagnosis made at {d['diagnosed_s']} s before its detection at {d['detected_s']} s"))
    acts = h.get("mitigation", {}).get("actions", [])
    if any(b["at_s"] < a["at_s"] - PS for a, b in zip(acts, acts[1:])):
        out.append(Violation("health_score_consistent", "mitigation actions out of time order"))
    return out


def retry_checks(res):
    """Transport retry (docs/faults.md#transport-failure): the totals are the sums over units, a
    unit fails at most as often as it tries, and every failure is a collective listed as failed."""
    r = res.get("sync", {}).get("retry")
    if not r or "units" not in r:
        return []
    apply("retry_counts_consistent")
    out = []
    units = r["units"]
    for key in ("failures", "exhausted"):
        if key in r and r[key] != sum(u.get(key, 0) for u in units):
            out.append(Violation("retry_counts_consistent", f"retry.{key} {r[key]}, the units sum to {sum(u.get(key, 0) for u in units)}"))
    for u in units:
        if u.get("failures", 0) > u.get("attempts", 0):
            out.append(Violation("retry_counts_consistent", f"unit {u['unit']}: {u['failures']} failures in {u['attempts']} attempts"))
    # One data-parallel group: each try of a unit is one collective. With TP or PP every group
    # launches its own, and a unit's try counts once however many of them fail.
    if "collectives" in res and "failures" in r and "parallel" not in res["scenario"].get("training", {}):
        # A unit's later step given up with it (`abandoned`) is no failure of its own.
        failed = sum(1 for c in res["collectives"] if c.get("failed") and not c.get("abandoned"))
        if failed != r["failures"]:
            out.append(Violation("retry_counts_consistent", f"retry.failures {r['failures']}, collectives marked failed {failed}"))
    return out


def ring_bytes_closed_form(sc, res, topo):
    """With nccl model "bound" (no protocol bytes) and only ring all-reduces and all-gathers of
    GPUs, the GPUs send in all sum over collectives of 2(p-1) n (all-reduce: p-1 reduce-scatter
    and p-1 all-gather steps, every segment of the n bytes sent p-1 times in each) or (p-1) n
    (all-gather, n its output) bytes, whatever the segments' rounding, channels or chunks."""
    if "collectives" not in res or res.get("aggregators") or res.get("cxl") or "parallel" in res:
        return []
    if fabric_of(res).get("nccl", {}).get("model") != "bound" or has_fault(sc, "congestion"):
        return []
    colls = res["collectives"]
    if not colls or any(c.get("failed") for c in colls):
        return []  # a failed collective sent part of its bytes (retry, docs/faults.md)
    expect = 0
    for c in colls:
        if c["algorithm"] != "ring":
            return []
        p = c["ranks"]
        if c["op"] == "all_reduce":
            expect += 2 * (p - 1) * c["bytes"]
        elif c["op"] == "all_gather":
            expect += (p - 1) * c["bytes"]
        else:
            return []
    apply("ring_bytes_closed_form")
    gpus = {d["name"] for d in topo["devices"] if d["kind"] == "gpu"}
    sent = sum(l["bytes"] for l in res["links"] if l["name"].split("->")[0] in gpus)
    got = sum(l["bytes"] for l in res["links"] if l["name"].split("->")[1] in gpus)
    out = []
    if sent != expect:
        out.append(Violation("ring_bytes_closed_form", f"GPUs sent {sent} B, the collectives' closed form is {expect} B"))
    if got != sent:
        out.append(Violation("bytes_conserved", f"GPUs sent {sent} B and received {got} B"))
    return out


# ---------------------------------------------------------------------------------------------
# Iterations: durations tile the run; each rank's compute fits in its own iterations.
def iteration_checks(sc, res):
    out = []
    its = res.get("iterations")
    if not its:
        return out
    prev_end = None
    for it in its:
        expect = it["end_s"] - (prev_end if prev_end is not None else it["start_s"])
        if abs(it["duration_s"] - expect) > 2 * PS:
            out.append(Violation("durations_tile_the_run", f"iteration {it['index']}: duration {it['duration_s']} s, end - previous end {expect} s"))
        if it["end_s"] < it["start_s"] - PS:
            out.append(Violation("durations_tile_the_run", f"iteration {it['index']} ends before it starts"))
        prev_end = it["end_s"]
    if its[-1]["end_s"] > res["sim"]["simulated_s"] + PS:
        out.append(Violation("durations_tile_the_run", f"the last iteration ends at {its[-1]['end_s']} s after the run ({res['sim']['simulated_s']} s)"))
    for r in res.get("ranks", []):
        if r["compute_s"] > r["iteration_time_s"] * (1 + 1e-9) + PS:
            out.append(Violation("compute_within_iteration", f"{r['name']}: compute {r['compute_s']} s > its iteration {r['iteration_time_s']} s"))
    tr = res["scenario"].get("training", {})
    w = res["scenario"].get("workload", {})
    measured = [it for it in its if not it["warmup"]]
    if measured and "iteration_time_s" in res:
        mean = sum(it["duration_s"] for it in measured) / len(measured)
        if abs(mean - res["iteration_time_s"]) > 1e-9 * mean + PS:
            out.append(Violation("means_of_iterations", f"iteration_time_s {res['iteration_time_s']} s, mean of the measured durations {mean} s"))
        # throughput.samples_per_s = batch x micro_batches x GPUs / iteration_time_s (docs).
        t = res.get("throughput", {})
        if "samples_per_s" in t and "parallel" not in tr and res["iteration_time_s"] > 0:
            gpus = len(res["ranks"])
            exp = w.get("batch", 8) * w.get("micro_batches", 1) * gpus / res["iteration_time_s"]
            if rel(exp, t["samples_per_s"]) > 1e-9:
                out.append(Violation("throughput_closed_form", f"samples_per_s {t['samples_per_s']}, batch x micro_batches x GPUs / iteration = {exp}"))
    return out


def measured_compute_closed_form(sc, res):
    """Explicit layers with measured times only and a measured (or no) optimizer step: every GPU's
    compute per iteration is micro_batches x the sum of its phases' times, plus the step, each
    divided by its speed (docs/scenario-format.md#how-a-gpu-is-timed), to a picosecond per phase.
    Returns (violations, {rank name: compute per iteration}) or ([], None) when it does not apply."""
    w = res["scenario"].get("workload", {})
    tr = res["scenario"].get("training", {})
    if "layers" not in w or "parallel" in tr or "jobs" in sc or "health" in sc:
        return [], None
    if has_fault(sc, "gpu_slowdown", "cpu_contention"):
        return [], None
    comp = tr.get("sync", {}).get("compression", {}).get("kind", "none")
    if comp != "none":
        return [], None
    opt = tr.get("optimizer", "adam")
    if opt != "none" and "optimizer_time" not in w:
        return [], None
    total_ps = 0
    phases = 0
    for i, l in enumerate(w["layers"]):
        if "fwd_time" not in l:
            return [], None
        f = parse_ps(l["fwd_time"])
        if "bwd_time" in l:
            b = parse_ps(l["bwd_time"])
            bi, bw = b // 2, b - b // 2
        elif "bwd_input_time" in l and "bwd_weight_time" in l:
            bi, bw = parse_ps(l["bwd_input_time"]), parse_ps(l["bwd_weight_time"])
        else:
            return [], None
        total_ps += f + bi + bw
        phases += 3
    apply("compute_closed_form")
    mb = w.get("micro_batches", 1)
    step = parse_ps(w["optimizer_time"]) if opt != "none" else 0
    out = []
    expect = {}
    for r in res["ranks"]:
        c = (mb * total_ps + step) / r["speed"] * PS
        tol = (mb * phases + 1) * PS  # each phase rounded to a ps on its own
        expect[r["name"]] = (c, tol)
        if abs(r["compute_s"] - c) > tol + 1e-12 * c:
            out.append(Violation("compute_closed_form", f"{r['name']}: compute {r['compute_s']} s per iteration, the measured phases / speed {r['speed']} give {c} s"))
    return out, expect


TIME_UNITS = {"ps": 1, "ns": 10**3, "us": 10**6, "ms": 10**9, "s": 10**12, "min": 60 * 10**12, "h": 3600 * 10**12}


def parse_ps(q):
    m = re.match(r"^\s*([-+0-9.eE]+)\s*([a-z]+)\s*$", q)
    return round(float(m.group(1)) * TIME_UNITS[m.group(2)])


def lower_bounds(sc, res, topo, compute_per_gpu):
    """The whole run, warm-up included (end of the last iteration - start of the first), holds
    every GPU's compute of every iteration, and the bytes every rank must send for the gradient
    all-reduces at no more than the sum of its GPU's link rates."""
    out = []
    its = res.get("iterations")
    if not its:
        return out
    span = its[-1]["end_s"] - its[0]["start_s"]
    n = len(its)
    if compute_per_gpu:
        apply("iteration_above_compute_bound")
        worst, tol = max(compute_per_gpu.values())
        if span < n * (worst - tol) * (1 - 1e-12):
            out.append(Violation("iteration_above_compute_bound", f"{n} iterations take {span} s, less than the slowest GPU's compute {n} x {worst} s"))
    # Communication: each all-reduce of n bytes over p ranks that reduce at the ranks makes every
    # rank send at least 2 (p - 1) / p x n (the bandwidth lower bound of all-reduce).
    tr = res["scenario"].get("training", {})
    s = tr.get("sync", {})
    w = res["scenario"].get("workload", {})
    strategy = s.get("strategy", "none")
    if strategy not in ("ddp", "ddp_no_overlap", "layerwise", "blockwise", "adaptive", "asc_wfbp"):
        return out
    if s.get("compression", {}).get("kind", "none") != "none" or s.get("algorithm", "ring") not in ("ring", "tree", "hierarchical"):
        return out
    if "layers" not in w or "parallel" in tr:
        return out
    # A unit whose tries ran out (transport `retry`) ends without its reduction: its bytes were
    # never all sent (campaign 104, scenario 751: 6 units exhausted, the run under the bound).
    if (res.get("sync", {}).get("retry") or {}).get("exhausted", 0) > 0:
        return out
    p = len(res["ranks"])
    if p < 2:
        return out
    g = GRAD_SIZE[w.get("grad_dtype", w.get("dtype", "bf16"))] * sum(l.get("params", 0) for l in w["layers"])
    apply("iteration_above_comm_bound")
    k = n if tr.get("optimizer", "adam") != "none" else n - 1  # optimizer none: the last is not waited for
    need = k * 2 * (p - 1) / p * g * 8  # bits
    for r in res["ranks"]:
        rate = sum(l["bandwidth_bps"] for l in topo["links"] if r["name"] in (l["a"], l["b"]))
        if rate and span < need / rate * (1 - 1e-9):
            out.append(Violation("iteration_above_comm_bound", f"{r['name']}: {k} iterations of {g} gradient bytes over {p} ranks need at least {need / rate} s at its {rate:g} bit/s of links; the run took {span} s"))
    return out


def symmetric_ranks(sc, res):
    """Ranks of equal role on a symmetric cluster get equal times: with identical GPUs, no
    overrides or faults, one switch, and rings in rank order (or hierarchical rings), moving
    every rank by one node maps the cluster, the fabric and every ring onto themselves, so ranks
    with the same GPU index in their node have the same timeline."""
    tr = res["scenario"].get("training", {})
    cl = res["scenario"]["cluster"]
    f = cl.get("fabric", {})
    if "jobs" in sc or "parallel" in tr or sc.get("faults") or sc.get("fault_generator") or cl.get("gpu_overrides"):
        return []
    if f.get("topology", "switch") != "switch" or cl.get("aggregators", {}).get("count", 0):
        return []
    s = tr.get("sync", {})
    if s.get("strategy", "none") != "none" and s.get("algorithm", "ring") not in ("ring", "hierarchical"):
        return []
    if f.get("nccl", {}).get("order", "rank") != "rank":
        return []
    gpus = cl["node"].get("gpus", 8)
    if s.get("strategy", "none") != "none":
        # A collective splits its n bytes into one segment per rank (and channel); when they are
        # unequal the ranks' roles differ. So every collective must divide evenly: explicit layers
        # whose gradients all do (units, packs and buckets are sums of layers), no compression.
        w = res["scenario"].get("workload", {})
        if "layers" not in w or s.get("compression", {}).get("kind", "none") != "none":
            return []
        split = len(res["ranks"]) * max(1, f.get("nccl", {}).get("channels", 0))
        size = GRAD_SIZE[w.get("grad_dtype", w.get("dtype", "bf16"))]
        if tr.get("sync", {}).get("strategy") in ("localsgd", "plsgd", "dreamddp"):
            size = GRAD_SIZE[w.get("dtype", "bf16")]
        if any(l.get("params", 0) * size % split for l in w["layers"]):
            return []
    apply("symmetric_ranks_equal")
    out = []
    for field, tol in (("compute_s", 0.0), ("iteration_time_s", 1e-9), ("blocked_s", 1e-9)):
        by_role = {}
        for r in res["ranks"]:
            by_role.setdefault(r["rank"] % gpus, []).append((r[field], r["name"]))
        for role, vals in by_role.items():
            lo, hi = min(vals), max(vals)
            if hi[0] - lo[0] > tol * max(abs(hi[0]), 1e-12) + PS:
                out.append(Violation("symmetric_ranks_equal", f"{field} of GPU {role} of every node: {lo[1]} {lo[0]} s, {hi[1]} {hi[0]} s"))
    return out


# --include-known: also check where a defect is known and reported but not fixed (the suite's
# tests/fuzz-runs/known/ scenarios), instead of leaving those conditions out.
INCLUDE_KNOWN = False


def collectives_complete(res, sc=None):
    """Every listed collective ended after it started, its time is end - start (docs: collectives[])."""
    apply("collectives_complete")
    out = []
    for c in res.get("collectives", []):
        if c["end_s"] < c["start_s"] or abs(c["time_s"] - (c["end_s"] - c["start_s"])) > 2 * PS:
            out.append(Violation("collectives_complete", f"{c['label']}: start {c['start_s']} s, end {c['end_s']} s, time {c['time_s']} s"))
            break
    return out


def single_run_checks(sc, res, topo):
    if is_benchmark(res):
        return links_checks(sc, res, topo) + benchmark_checks(sc, res, topo)
    out = collectives_complete(res, sc)
    if "chakra" in res:
        return out + links_checks(sc, res, topo) + chakra_checks(res)
    out += health_checks(res)
    out += retry_checks(res)
    out += links_checks(sc, res, topo)
    out += ring_bytes_closed_form(sc, res, topo)
    out += iteration_checks(sc, res)
    v, compute = measured_compute_closed_form(sc, res)
    out += v
    out += lower_bounds(sc, res, topo, compute)
    out += symmetric_ranks(sc, res)
    return out


# ---------------------------------------------------------------------------------------------
# Twins: the same scenario with one thing changed.
def fast_forward_agrees(res_on, res_off):
    """Skipped iterations repeat the last period, within `tolerance` x the period P
    (docs/performance.md#steady-state-fast-forward: the repeat check compares iteration i with
    i - L, L iterations a period, within tolerance x P, P the span of those L iterations, so a
    localsgd period of 3 admits three iterations' worth); link counters add whole periods exactly."""
    apply("fast_forward_agrees")
    ff = res_on["fast_forward"]
    tol = res_on["scenario"]["training"]["fast_forward"]["tolerance"]
    period = max(s["period_s"] for s in ff["skips"])
    skipped = ff["iterations_skipped"]
    d = tol * period + 2 * PS
    out = []

    def close(a, b, what, allow):
        if abs(a - b) > allow:
            out.append(Violation("fast_forward_agrees", f"{what}: {a} with fast-forward, {b} without (allowed {allow:.3g})"))

    close(res_on["iteration_time_s"], res_off["iteration_time_s"], "iteration_time_s", d)
    if len(res_on["iterations"]) != len(res_off["iterations"]):
        return [Violation("fast_forward_agrees", "iteration counts differ")]
    for a, b in zip(res_on["iterations"], res_off["iterations"]):
        for k in ("duration_s", "compute_s", "comm_s", "exposed_comm_s"):
            if k in a:
                close(a[k], b.get(k, 0), f"iterations/{a['index']}/{k}", d * 2)
        close(a["end_s"], b["end_s"], f"iterations/{a['index']}/end_s", d * (skipped + 1) * 2)
    for a, b in zip(res_on["ranks"], res_off["ranks"]):
        for k in ("iteration_time_s", "compute_s", "blocked_s"):
            close(a[k], b[k], f"ranks/{a['name']}/{k}", d * 2)
    la = {l["name"]: l for l in res_on["links"]}
    lb = {l["name"]: l for l in res_off["links"]}
    if set(la) != set(lb):
        out.append(Violation("fast_forward_agrees", f"link directions differ: {sorted(set(la) ^ set(lb))[:4]}"))
    for name in set(la) & set(lb):
        for k in ("bytes", "wire_bytes", "chunks"):
            if la[name][k] != lb[name][k]:
                out.append(Violation("fast_forward_agrees", f"links/{name}/{k}: {la[name][k]} with fast-forward, {lb[name][k]} without"))
        close(la[name]["busy_s"], lb[name]["busy_s"], f"links/{name}/busy_s", tol * lb[name]["busy_s"] + 1e-12 * skipped)
    return out


def compute_only_bound(res_sync, res_none):
    """Communication never slows a phase (docs/scenario-format.md#how-a-gpu-is-timed): a strategy
    only makes GPUs wait, so the iteration is no faster than the same scenario with sync none."""
    apply("iteration_above_compute_bound")
    # Every GPU's timeline with the strategy is its timeline without, delayed: so the last end is
    # no earlier. The mean of the measured iterations is not bounded so: a duration is the latest
    # end minus the previous latest end, and a wait that delays the last warm-up iteration's end
    # but not a later one (plsgd every other iteration) shortens the window (campaign 1045, 4165).
    a, b = res_sync["iterations"][-1]["end_s"], res_none["iterations"][-1]["end_s"]
    if a < b * (1 - 1e-12) - PS:
        return [Violation("iteration_above_compute_bound", f"the last iteration ends at {a} s with {res_sync['scenario']['training']['sync']['strategy']}, {b} s with sync none")]
    return []


def grouping_changes_nothing(res_on, res_off):
    """Flow fidelity's grouped ring steps (docs/fabric.md#ring-steps-as-one-flow) change the
    order of same-time events only: the run with `group_ring_steps` off ends at the same time
    (1e-6 of it, for ties broken the other way) and moves the same bytes over every link
    direction (a byte each, for a split group's remainders)."""
    apply("grouping_changes_nothing")
    out = []
    time_on, time_off = res_on["sim"]["simulated_s"], res_off["sim"]["simulated_s"]
    if abs(time_on - time_off) > 1e-6 * time_off + 2 * PS:
        out.append(Violation("grouping_changes_nothing", f"{time_on * 1e3:.6f} ms with group_ring_steps, {time_off * 1e3:.6f} ms without ({(time_on / time_off - 1) * 100:+.4f}%)"))
    la = {l["name"]: l for l in res_on.get("links", [])}
    lb = {l["name"]: l for l in res_off.get("links", [])}
    for name in sorted(set(la) & set(lb)):
        if abs(la[name]["bytes"] - lb[name]["bytes"]) > 1:
            out.append(Violation("grouping_changes_nothing", f"links/{name}/bytes: {la[name]['bytes']} with group_ring_steps, {lb[name]['bytes']} without"))
            break
    return out
