"""Random valid scenarios for scripts/fuzz-runs (docs/reliability.md#fuzzing-what-the-simulator-computes).

generate(seed, index) draws scenario `index` of campaign `seed` from its own random stream, so one
scenario is reproduced from the pair alone. Every section of the format is drawn (docs/scenario-
format.md), each with a probability, at sizes that keep a run well under a second: 1-4 nodes of
1-4 GPUs (rarely 8), explicit layers with measured times or small zoo models at batch 1-2 and
short sequences, 2-8 iterations (10-24 when fast-forward is asked to skip). The draws respect the
loader's rules as docs/scenario-format.md states them, so the loader should accept every one; a
refusal is reported by the runner.

Besides training on explicit layers and zoo models, a few scenarios are drawn of each other door
(#45): collective benchmarks (`workload.kind` `collective`), Chakra execution traces, Hugging Face
configs and a PyTorch profiler trace shipped in scenarios/workloads/, fail-slow `health` (with its
ladder), transport `retry`, the CXL engine in `rtl` fidelity and functional mode, interleaved
pipeline schedules, placements (`order`, `rank_map`, `stage_layers`), checkpoint jobs and per-job
fail-slow monitors, kernel shapes, `validation`, NVLink SHARP (`nvls`) on one node of Hopper-class
GPUs, three-tier Clos fabrics (a quarter of the leaf-spine draws, from a stream of their own), and
clusters of 32-128 GPUs in flow fidelity.
"""

import os
import random

# The shipped inputs the other doors read (absolute paths: the scenario file lives elsewhere).
WORKLOADS = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "scenarios", "workloads")
# Hugging Face configs small enough to train data-parallel on one GPU's memory, with their layers.
HF_CONFIGS = {"gpt2": 124e6, "bert-base-uncased": 110e6, "megatron-gpt-1.7b": 1.7e9}

PRESETS = ["A100-SXM4-80GB", "H100-SXM5-80GB", "H800-SXM", "H200", "RTX-A6000"]
FP8 = {"H100-SXM5-80GB", "H800-SXM", "H200"}
# Zoo models small enough at batch 1-2 (seq <= 256) to simulate in milliseconds.
ZOO_SEQ = ["gpt2-small", "bert-base", "gpt2-medium"]
ZOO_VISION = ["resnet50", "vit-b16"]
GRADIENT_STRATEGIES = ["ddp", "ddp_no_overlap", "layerwise", "blockwise", "adaptive", "asc_wfbp", "elastic"]
STRATEGIES = ["none"] + GRADIENT_STRATEGIES + ["localsgd", "plsgd", "dreamddp"]


def us(x):
    return f"{x:g}us"


class Draw:
    """The random stream of one scenario, and the features it drew (for the coverage summary)."""

    def __init__(self, seed, index):
        self.r = random.Random(f"trainvp-fuzz-runs:{seed}:{index}")
        self.features = set()

    def p(self, prob, feature=None):
        hit = self.r.random() < prob
        if hit and feature:
            self.features.add(feature)
        return hit

    def pick(self, seq):
        return seq[self.r.randrange(len(seq))]

    def int(self, lo, hi):
        return self.r.randint(lo, hi)

    def real(self, lo, hi):
        return round(self.r.uniform(lo, hi), 4)


def gpu_of(d, allow_custom=True):
    """A preset name, a preset with overrides, or a fully custom GPU; returns (gpu, has_fp8, nvlink)."""
    k = d.r.random()
    if k < 0.6:
        name = d.pick(PRESETS)
        return name, name in FP8, name != "RTX-A6000"
    if k < 0.85 or not allow_custom:
        name = d.pick(PRESETS)
        g = {"preset": name}
        if d.p(0.5):
            g["efficiency"] = d.real(0.2, 0.9)
        if d.p(0.3):
            g["kernel_model"] = "roofline"
        if d.p(0.3):
            g["kernel_launch"] = us(d.int(1, 8))
        if d.p(0.3):
            g["speed"] = d.real(0.5, 1.5)
        if d.p(0.2):
            g["nvlink_bw"] = d.pick(["0bps", "200GB/s", "450GB/s"])
        nvlink = g.get("nvlink_bw", "x") != "0bps" and (name != "RTX-A6000" or g.get("nvlink_bw", "0bps") != "0bps")
        return g, name in FP8, nvlink
    d.features.add("gpu:custom")
    g = {
        "model": "XPU",
        "peak_fp32": f"{d.int(10, 80)}TFLOPS",
        "peak_tf32": f"{d.int(80, 400)}TFLOPS",
        "peak_bf16": f"{d.int(150, 1000)}TFLOPS",
        "peak_fp16": f"{d.int(150, 1000)}TFLOPS",
        "mem_bw": f"{d.real(0.8, 5.0)}TB/s",
        "mem_capacity": "96GiB",
        "efficiency": d.real(0.3, 0.8),
    }
    fp8 = d.p(0.5)
    if fp8:
        g["peak_fp8"] = f"{d.int(500, 2000)}TFLOPS"
    nvlink = d.p(0.6)
    if nvlink:
        g["nvlink_bw"] = f"{d.int(100, 450)}GB/s"
    return g, fp8, nvlink


def explicit_layers(d, n_layers):
    """Explicit layers, most with measured times (cheap and exact), some timed by the roofline."""
    layers = []
    # Half the workloads have every gradient in multiples of 4,096 parameters: their collectives
    # split evenly over up to 64 ranks and channels (symmetric_ranks_equal applies).
    even = d.p(0.5)
    measured = d.p(0.6)  # every phase measured: compute_closed_form applies
    for i in range(n_layers):
        lay = {"name": f"l{i}"}
        if d.p(0.85):
            lay["params"] = d.pick([0, d.int(1000, 200000), d.int(200000, 4000000)]) if i else d.int(1000, 2000000)
            if even:
                lay["params"] = lay["params"] // 4096 * 4096
        if measured or d.p(0.6):
            lay["fwd_time"] = us(d.int(5, 300))
            if d.p(0.5):
                lay["bwd_time"] = us(d.int(10, 600))
            else:
                lay["bwd_input_time"] = us(0 if i == 0 and d.p(0.5) else d.int(5, 300))
                lay["bwd_weight_time"] = us(d.int(5, 300))
        else:
            d.features.add("layers:roofline")
            lay["fwd_flops"] = float(d.int(1, 400)) * 1e9
            lay["bwd_flops"] = float(d.int(2, 800)) * 1e9
            lay["fwd_bytes"] = f"{d.int(1, 200)}MB"
            lay["kernels"] = d.int(0, 4)
            if d.p(0.3, "layers:kernel_shapes"):  # timed by the kernel model (models.md#kernels)
                lay["kernel_shapes"] = {ph: kernels_of(d) for ph in ("fwd", "bwd_input", "bwd_weight") if ph == "fwd" or d.p(0.7)}
        layers.append(lay)
    return layers


def kernels_of(d):
    """A phase's kernels by shape: GEMMs, a memory-bound pass, sometimes a fused attention."""
    ks = []
    for _ in range(d.int(1, 3)):
        kind = d.pick(["gemm", "gemm", "memory", "attention"])
        if kind == "gemm":
            k = {"kind": "gemm", "m": d.pick([64, 512, 2048, 3000]), "n": d.pick([128, 768, 4096]), "k": d.pick([64, 768, 1024])}
        elif kind == "memory":
            k = {"kind": "memory", "bytes": float(d.int(1, 64)) * 1e6}
        else:  # m query and n key positions, k the head dimension, count the heads x the batch
            k = {"kind": "attention", "m": d.pick([128, 512]), "n": d.pick([128, 512]), "k": 64, "causal": d.p(0.5)}
        if d.p(0.3):
            k["count"] = d.int(1, 8)
        ks.append(k)
    return ks


def workload_of(d, gpus_total, fp8, parallel, cxl=False):
    """A training workload; `parallel`: a zoo transformer that TP and PP can split."""
    w = {}
    if parallel:
        if d.p(0.2):
            name = d.pick(["gpt2", "bert-base-uncased"])
            w["hf_config"] = os.path.join(WORKLOADS, "hf", name, "config.json")
            d.features.add("workload:hf:" + name)
        else:
            w["model"] = d.pick(["gpt2-small", "bert-base"])
            d.features.add("workload:zoo:" + w["model"])
        w["batch"] = d.int(1, 2)
        w["seq"] = d.pick([64, 128])
    else:
        k = d.r.random()
        if k < 0.04:
            name = d.pick(sorted(HF_CONFIGS))
            w["hf_config"] = os.path.join(WORKLOADS, "hf", name, "config.json")
            w["batch"] = d.int(1, 2)
            w["seq"] = d.pick([32, 64, 128])
            d.features.add("workload:hf:" + name)
        elif k < 0.07:
            w["torch_profile"] = os.path.join(WORKLOADS, "torch", "tiny-gpt-cpu.trace.json")
            w["batch"] = 4
            w["seq"] = 32
            d.features.add("workload:torch_profile")
        elif k < 0.55:
            w["layers"] = explicit_layers(d, d.int(1, 8))
            d.features.add("workload:layers")
            if d.p(0.5):
                w["optimizer_time"] = us(d.int(0, 200))
            if d.p(0.2):
                w["sequence"] = True
                w["seq"] = d.pick([128, 512])
        elif k < 0.8:
            w["model"] = d.pick(ZOO_SEQ)
            w["batch"] = d.int(1, 2)
            w["seq"] = d.pick([32, 64, 128, 256])
            d.features.add("workload:zoo:" + w["model"])
        else:
            w["model"] = d.pick(ZOO_VISION)
            w["batch"] = d.int(1, 2)
            w["image_size"] = d.pick([224] if w["model"] == "vit-b16" else [64, 128, 224])
            d.features.add("workload:zoo:" + w["model"])
    if not parallel and d.p(0.2):
        w["micro_batches"] = d.int(2, 3)
    dtypes = ["bf16", "fp16", "fp32", "tf32"] + (["fp8"] if fp8 else [])
    if d.p(0.4):
        w["dtype"] = d.pick(dtypes)
    if d.p(0.25):
        w["grad_dtype"] = d.pick(["fp32", "bf16", "fp16"])
    if cxl and w.get("grad_dtype", w.get("dtype", "bf16")) not in ("fp32", "bf16"):
        w["grad_dtype"] = "bf16"  # the formats the CXL engine reduces
    if "torch_profile" in w and "dtype" in w:
        del w["dtype"]  # the trace was measured in fp32; keep its times meaningful
    if ("hf_config" in w or w.get("model") in ZOO_SEQ) and d.p(0.15):
        w["attention"] = "unfused"
    return w


def sync_of(d, strategy, ranks, nodes, gpus, cxl, aggregators, hybrid, jobs=False, nvls=False):
    s = {"strategy": strategy}
    d.features.add("sync:" + strategy)
    if strategy == "none":
        return s
    algos = ["ring"] * 4 + ["tree", "hierarchical"]
    if cxl and strategy in ("ddp", "ddp_no_overlap"):
        algos += ["cxl_hierarchical"] * 3 + (["cxl_allreduce"] * 3 if nodes == 1 and gpus <= 8 else [])
    if aggregators and not hybrid:
        algos += ["ps"] * 3
    if nvls:  # NVLink SHARP: one node of Hopper-class GPUs on NVLink, packet fidelity
        algos += ["nvls"] * 2
    if d.p(0.5):
        s["algorithm"] = d.pick(algos)
        d.features.add("algorithm:" + s["algorithm"])
    if strategy == "ddp":
        if d.p(0.4):
            s["bucket"] = d.pick(["256KiB", "1MiB", "4MiB", "25MiB"])
        if d.p(0.3):
            s["first_bucket"] = d.pick(["64KiB", "1MiB"])
    if strategy in ("ddp", "layerwise", "blockwise", "adaptive", "plsgd", "dreamddp") and d.p(0.3):
        s["comm_streams"] = d.int(2, 3)
        d.features.add("comm_streams")
    if strategy in ("localsgd", "plsgd", "dreamddp"):
        s["period"] = d.int(1, 3)  # the runner keeps iterations >= period, as the loader asks
    if strategy in ("blockwise", "adaptive") and d.p(0.5):
        s["block"] = d.int(1, 3)
    if strategy in ("layerwise", "blockwise", "adaptive") and d.p(0.4):
        s["pack"] = d.int(1, 4)
    if strategy in ("layerwise", "blockwise", "adaptive") and d.p(0.3):
        s["small_bytes"] = "100KB"
        s["large_bytes"] = "2MB"
        if d.p(0.5):
            s["comm_streams"] = 3
            s["class_streams"] = {"large": 0, "medium": 1, "small": 2}
            d.features.add("class_streams")
    if strategy == "adaptive" and d.p(0.5):
        s["util_high"] = d.real(0.5, 0.95)
        s["util_low"] = round(s["util_high"] * d.real(0.5, 1.0), 4)
    if strategy == "dreamddp" and d.p(0.3):
        s["fill_in"] = True
    if strategy not in ("ddp", "ddp_no_overlap") and not jobs and d.p(0.12):  # one job only (the give-up is the fabric's)
        # Transport give-up and layer-granular retry (docs/faults.md#transport-failure): timers
        # short enough that a link down of the faults drawn below outlasts them.
        s["retry"] = {"retry_cnt": d.int(1, 3), "timeout": us(d.pick([20, 50, 200])), "backoff": us(d.int(0, 100)),
                      "attempts": d.int(1, 4)}
        if d.p(0.1):
            s["retry"]["enabled"] = False
        d.features.add("retry")
    if strategy == "elastic" and d.p(0.7):
        s["elastic"] = {"timeout": d.pick(["none", "50us", "500us", "5ms"])}
    if strategy not in ("ddp", "ddp_no_overlap") and s.get("algorithm") not in ("ps",) and d.p(0.3):
        kind = d.pick(["topk", "powersgd"])
        c = {"kind": kind, "min_bytes": d.pick(["0B", "64KB", "1MB"])}
        if kind == "topk":
            c["ratio"] = d.pick([0.01, 0.1, 0.5])
        else:
            c["rank"] = d.int(1, 8)
        s["compression"] = c
        d.features.add("compression:" + kind)
    return s


def faults_of(d, nodes, gpus, nics, topology, spines, fidelity, leaves):
    """A few timed faults of every kind, aimed at devices that exist."""
    faults = []
    nic_links = [f"link:node{n}.nic{i}-switch" for n in range(nodes) for i in range(nics)]
    if topology == "leaf-spine":
        nic_links = [f"link:node{n}.nic{i}-*" for n in range(nodes) for i in range(nics)]
    for _ in range(d.int(1, 3)):
        kind = d.pick(["link_degrade", "gpu_slowdown", "cpu_contention", "link_down", "packet_loss", "congestion"])
        if kind == "congestion" and nodes * nics < 2:
            kind = "gpu_slowdown"
        f = {"kind": kind}
        d.features.add("fault:" + kind)
        if kind in ("gpu_slowdown", "cpu_contention"):
            f["target"] = d.pick([f"node{d.int(0, nodes - 1)}.gpu{d.int(0, gpus - 1)}", f"node{d.int(0, nodes - 1)}.*"])
        elif kind == "congestion":
            pairs = [(n, i) for n in range(nodes) for i in range(nics)]
            a, b = d.r.sample(pairs, 2)
            f["source"] = f"node{a[0]}.nic{a[1]}"
            f["destination"] = f"node{b[0]}.nic{b[1]}"
        elif kind == "link_down" and topology == "leaf-spine" and spines > 1:
            f["target"] = f"spine{d.int(0, spines - 1)}"  # the other spines route around it
        else:
            f["target"] = d.pick(nic_links)
        f["start"] = us(d.int(0, 2000))
        if d.p(0.7) or kind == "link_down":
            f["duration"] = us(d.int(50, 3000))
        if kind == "link_degrade":
            if d.p(0.8):
                f["bandwidth_factor"] = d.real(0.1, 1.0)
            if d.p(0.4) or "bandwidth_factor" not in f:
                f["added_latency"] = us(d.int(0, 20))
        elif kind == "gpu_slowdown":
            f["factor"] = d.real(0.3, 1.0)
            if "duration" in f and d.p(0.3):
                f["ramp"] = us(d.int(0, int(f["duration"][:-2])))
        elif kind == "cpu_contention":
            f["launch_factor"] = d.real(1.0, 5.0)
        elif kind == "packet_loss":
            f["rate"] = d.pick([1e-4, 1e-3, 1e-2])
            if d.p(0.3):
                f["timeout"] = us(d.int(10, 200))
        elif kind == "congestion":
            f["rate"] = d.pick(["10Gbps", "50Gbps", "200Gbps"])
            if d.p(0.3):
                f["flows"] = d.int(1, 4)
            if d.p(0.3):
                f["on"] = us(d.int(50, 500))
                f["off"] = us(d.int(0, 500))
            if d.p(0.3):
                f["chunk"] = d.pick(["64KiB", "256KiB"])
        faults.append(f)
    return faults


def fault_generator_of(d):
    g = {"horizon": d.pick(["2ms", "5ms"]), "seed": d.int(0, 1000)}
    # Rates are per hour of the whole job: 1e6/h is one event every 3.6 ms.
    g["gpu_slowdown"] = {"rate": d.pick([0, 1e6, 3e6]), "duration": {"distribution": d.pick(["exponential", "lognormal", "fixed"]), "mean": "500us"}}
    g["link_degrade"] = {"rate": d.pick([0, 1e6, 2e6]), "duration": {"mean": "300us"}}
    if d.p(0.3):
        g["cpu_contention"] = {"rate": 1e6, "duration": {"mean": "400us"}}
    if d.p(0.2):
        g["link_down"] = {"rate": 1e6, "duration": {"distribution": "fixed", "mean": "100us"}}
    if d.p(0.2):
        g["packet_loss"] = {"rate": 1e6, "duration": {"mean": "200us"}}
    d.features.add("fault_generator")
    return g


def generate(seed, index):
    """Scenario `index` of campaign `seed`, and the set of features it drew."""
    d = Draw(seed, index)
    sc = {"trainvp": 1, "name": f"fuzz-{seed}-{index}"}
    if d.p(0.3):
        sc["seed"] = d.int(0, 100)

    nodes = d.pick([1, 1, 2, 2, 3, 4, 4]) if not d.p(0.05) else 8
    gpus = d.pick([1, 1, 2, 2, 4]) if not d.p(0.05) else 8
    big = d.p(0.04, "cluster:32-128")  # in flow fidelity, the mode meant for scale
    if big:
        nodes, gpus = d.pick([8, 16]), d.pick([4, 8])
    elif nodes * gpus > 16:
        gpus = max(1, 16 // nodes)
    ranks = nodes * gpus
    gpu, fp8, nvlink = gpu_of(d)
    node = {"gpus": gpus, "gpu": gpu}
    nics = gpus
    if d.p(0.4):
        nics = d.int(1, gpus)
        node["nics"] = nics
    if d.p(0.2):
        node["pcie"] = {"gen": d.int(3, 6), "lanes": d.pick([4, 8, 16]), "gpus_per_switch": d.int(1, 4)}
        d.features.add("pcie")
    if d.p(0.1):
        node["nvlink"] = {"latency": "300ns", "mtu": d.pick([128, 256, 512])}
    cluster = {"nodes": nodes, "node": node}
    sc["cluster"] = cluster

    # Jobs, hybrid parallelism and CXL exclude one another here (jobs refuse CXL; CXL reduces
    # one data-parallel group of whole nodes).
    mode = d.r.random()
    jobs = nodes >= 2 and mode < 0.1
    hybrid = not jobs and ranks >= 2 and mode < 0.25
    cxl = not big and not jobs and not hybrid and mode < 0.33 and gpus >= 2
    aggregators = not big and not jobs and not cxl and d.p(0.08)
    # The other workload doors: a collective benchmark, or Chakra execution traces.
    door = d.r.random()
    bench = not jobs and not hybrid and ranks >= 2 and door < 0.08
    # (At most 16 GPUs: the GPT-2 XL trace replicated over 64 ranks takes minutes.)
    chakra = not big and not jobs and not hybrid and not bench and not cxl and not aggregators and ranks >= 2 and door < 0.12

    fidelity = "flow" if big or d.p(0.35) else "packet"
    if cxl or aggregators:  # both need packet fidelity
        fidelity = "packet"
    fabric = {}
    topology = "leaf-spine" if d.p(0.4) else "switch"
    spines = 0
    leaves = 0
    if topology == "leaf-spine":
        fabric["topology"] = "leaf-spine"
        d.features.add("leaf-spine")
        rail = nics > 1 and not aggregators and d.p(0.3)  # aggregators' NICs are on no rail
        leaf_ports = d.pick([1, 2, 4, 8])
        if rail:
            fabric["rail_optimized"] = True
            leaf_ports = max(leaf_ports, nodes)
            d.features.add("rail_optimized")
            leaves = nics
        else:
            leaves = -(-nodes * nics // leaf_ports)
        fabric["leaf_ports"] = leaf_ports
        spines = d.pick([0, 1, 2, 3, 4])
        if spines:
            fabric["spines"] = spines
        else:
            spines = max(1, leaf_ports // 2)
        if d.p(0.3):
            fabric["oversubscription"] = d.pick([1.5, 2, 4])
    elif big or d.p(0.3):
        fabric["switch_ports"] = nodes * nics + 2 * aggregators + d.int(0, 8)  # one per NIC
    if d.p(0.5):
        fabric["link_bw"] = d.pick(["100Gbps", "200Gbps", "400Gbps", "800Gbps"])
    if d.p(0.5):  # small chunks: the flow-against-packet comparison holds its 3% there
        fabric["chunk"] = d.pick(["64KiB", "256KiB", "256KiB", "1MiB", "4MiB"])
    if d.p(0.2):
        fabric["switch_buffer"] = d.pick(["256KiB", "1MiB", "8MiB"])
    if d.p(0.15):
        fabric["link_latency"] = us(d.pick([0, 1, 5]))
    if d.p(0.1):
        fabric["mtu"] = d.pick([1024, 4096, 9000])
    if d.p(0.3):
        n = {}
        if d.p(0.7):
            n["model"] = d.pick(["tuner", "bound", "bound"])
        if d.p(0.5):
            n["channels"] = d.int(0, 4)
        if d.p(0.3):
            n["order"] = d.pick(["rank", "topology"])
        fabric["nccl"] = n
        d.features.add("nccl")
    if fidelity == "flow":
        fabric["fidelity"] = "flow"
    d.features.add("fidelity:" + fidelity)
    if fidelity == "packet" and d.p(0.1):
        fabric["pfc"] = {"mode": d.pick(["egress", "ingress", "off"])}
        if fabric["pfc"]["mode"] == "ingress":  # xoff (the buffer) counts whole chunks
            fabric["chunk"] = "64KiB"
        d.features.add("pfc:" + fabric["pfc"]["mode"])
    if fidelity == "packet" and d.p(0.07):
        fabric["congestion_control"] = "dcqcn"
        if d.p(0.5):
            fabric["dcqcn"] = {"kmin": "10KB", "kmax": "100KB", "pmax": 0.1}
        d.features.add("dcqcn")
    if fabric:
        cluster["fabric"] = fabric
    # NVLink SHARP: one node of Hopper-class GPUs on NVLink, in packet fidelity (docs/fabric.md#nvlink-sharp-nvls).
    nvls = nodes == 1 and gpus >= 2 and fp8 and nvlink and fidelity == "packet" and not cxl

    if d.p(0.2) and not cxl:
        ov = [{"target": f"node{d.int(0, nodes - 1)}.gpu{d.int(0, gpus - 1)}", "speed": d.real(0.5, 1.0)}]
        if d.p(0.3):
            ov.append({"target": f"node{nodes - 1}.*", "gpu": "H100-SXM5-80GB" if fp8 else d.pick(["A100-SXM4-80GB", "RTX-A6000"])})
        cluster["gpu_overrides"] = ov
        d.features.add("gpu_overrides")
        if any("gpu" in o for o in ov) and not fp8:
            fp8 = False
    if cxl:
        node["cxl"] = {"present": True, "generation": d.pick(["2.0", "3.0"]), "engine_lanes": d.pick([8, 16, 32])}
        if d.p(0.3):
            node["cxl"]["completion"] = "poll"
        if d.p(0.6, "cxl:readback"):  # the host reads each job's result back over CXL.mem (kept below where small)
            node["cxl"]["readback"] = True
            if d.p(0.5):
                node["cxl"]["mem_outstanding"] = d.pick([1, 4, 1024])
        d.features.add("cxl")
    if aggregators:
        cluster["aggregators"] = {"count": d.int(1, 2)}
        d.features.add("aggregators")

    if jobs:
        d.features.add("jobs")
        sc["jobs"] = []
        left = nodes
        if nodes >= 3 and d.p(0.25, "jobs:checkpoint"):
            # A storage tenant (jobs.md#checkpoint-jobs) on the last two nodes: one writer, one
            # storage node, explicit so that the training jobs placed after it keep the others.
            ck = {"kind": "checkpoint", "placement": {"nodes": [nodes - 2]},
                  "checkpoint": {"bytes": d.pick(["16MiB", "64MiB", "256MiB"]), "period": us(d.pick([200, 1000, 5000])),
                                 "storage": [nodes - 1]}}
            if d.p(0.5):
                ck["checkpoint"]["bursts"] = d.int(1, 3)
            if d.p(0.3):
                ck["start"] = us(d.int(0, 500))
            sc["jobs"].append(ck)
            left -= 2
        for j in range(d.int(1, min(3, left))):
            take = 1 if left <= 1 else d.int(1, left - 1 if j == 0 else left)
            if take > left or left == 0:
                break
            left -= take
            strat = d.pick([s for s in STRATEGIES if s != "dreamddp"])
            job = {
                "placement": {"nodes": take},
                "workload": workload_of(d, take * gpus, fp8, False),
                "training": {"iterations": d.int(2, 4), "warmup": 1, "sync": sync_of(d, strat, take * gpus, take, gpus, False, False, False, jobs=True)},
            }
            job["training"]["iterations"] = max(job["training"]["iterations"], job["training"]["sync"].get("period", 1))
            if d.p(0.3):
                job["placement"]["policy"] = "spread"
            if d.p(0.3):
                job["start"] = us(d.int(0, 500))
            if "layers" in job["workload"] and take * gpus >= 2 and d.p(0.2, "jobs:health"):
                # Each job's own monitor and ladder (health.md#with-jobs), long enough for its windows.
                job["health"] = {"mitigation": {"policy": d.pick(["ladder", "none", "always_restart"])}}
                job["training"]["iterations"] = d.int(10, 16)
                if d.p(0.5):
                    job["slo"] = {"fraction": d.real(0.5, 0.95)}
            sc["jobs"].append(job)
    elif bench:
        sc["workload"] = benchmark_of(d, ranks, cxl, aggregators, nodes, gpus, nvls=nvls)
    elif chakra:
        # A trace of one rank replicated over every rank (the shipped GPT-2 XL data-parallel step).
        sc["workload"] = {"chakra": {"traces": os.path.join(WORKLOADS, "chakra", "gpt2-xl-dp.et")}}
        d.features.add("workload:chakra")
    else:
        w = workload_of(d, ranks, fp8, hybrid, cxl)
        sc["workload"] = w
        tr = {}
        iterations = d.int(2, 6)
        tr["iterations"] = iterations
        tr["warmup"] = d.int(0, min(2, iterations - 1))
        if d.p(0.4):
            tr["optimizer"] = d.pick(["adam", "sgd", "none"])
        strategy = d.pick(STRATEGIES)
        if cxl:
            strategy = d.pick(["ddp", "ddp_no_overlap"])
        if hybrid and strategy in ("dreamddp", "localsgd", "plsgd", "elastic"):
            strategy = "ddp"
        tr["sync"] = sync_of(d, strategy, ranks, nodes, gpus, cxl, aggregators, hybrid, nvls=nvls)
        if strategy == "dreamddp" and "layers" in w and d.p(0.4, "dreamddp:profile"):
            # The layers' measured backward and communication times in place of the profiling pass.
            tr["sync"]["profile"] = [{"layer": l["name"], "bwd_time": us(d.int(5, 300)), "comm_time": us(d.int(0, 300) if l.get("params") else 0)}
                                     for l in w["layers"]]
        if cxl and tr["sync"].get("algorithm") not in ("cxl_allreduce", "cxl_hierarchical"):
            tr["sync"]["algorithm"] = "cxl_hierarchical"
            d.features.add("algorithm:cxl_hierarchical")
        if hybrid:
            tr["parallel"] = parallel_of(d, nodes, gpus, w)
            if tr["parallel"].get("zero"):  # ZeRO's shards need plain reduce-scatters, and no retry
                tr["sync"].pop("compression", None)
                tr["sync"].pop("retry", None)
            if tr["sync"].get("algorithm") == "hierarchical":  # DP groups may be uneven across nodes
                tr["sync"]["algorithm"] = "ring"
        if "layers" in w and not hybrid and ranks >= 2 and d.p(0.1):
            # Fail-slow in the loop: long enough for the detector's windows (health.md).
            sc["health"] = {}
            if d.p(0.5):
                sc["health"]["detector"] = {"baseline_iterations": d.int(2, 5), "verify_iterations": d.int(1, 2),
                                            "link_probe_min": "1MiB", "link_probe_repeats": 1}
            if d.p(0.5):
                sc["health"]["mitigation"] = {"policy": d.pick(["ladder", "always_restart", "oracle", "none"])}
                d.features.add("health:" + sc["health"]["mitigation"]["policy"])
            tr["iterations"] = d.int(10, 20)
            tr["warmup"] = 1
            d.features.add("health")
        elif "layers" in w and not hybrid and d.p(0.3):
            # Long enough for steady-state fast-forward to skip (docs/performance.md).
            tr["iterations"] = d.int(10, 24)
            tr["warmup"] = 1
            tr["fast_forward"] = {"repeats": 2, "margin": 1, "min_skip": d.int(2, 5)}
            d.features.add("fast_forward")
        elif d.p(0.1):
            tr["fast_forward"] = {"enabled": False}
        if tr["sync"].get("period", 1) > tr["iterations"]:
            tr["iterations"] = tr["sync"]["period"]
        sc["training"] = tr
        if d.p(0.05) and not hybrid and not cxl and tr["sync"]["strategy"] in GRADIENT_STRATEGIES + ["localsgd", "plsgd", "dreamddp"]:
            if tr["sync"].get("compression", {}).get("kind") == "powersgd":
                del tr["sync"]["compression"]
            w["train"] = {"features": 8, "classes": 3, "hidden": [16], "train_samples": 256, "test_samples": 64, "batch": 4, "eval_every": 2}
            d.features.add("train")

    if cxl and d.p(0.4):
        # The Verilated engine line by line: only where it reduces at most a few MB (a zoo model's
        # gradients take minutes of RTL simulation).
        w = sc["workload"]
        grads = 4 * sum(l.get("params", 0) for l in w.get("layers", [])) if "layers" in w else None
        if (w.get("kind") == "collective" and size_of(w.get("bytes", w.get("max_bytes"))) <= 1 << 20) or \
                (grads is not None and grads <= 4 << 20):
            node["cxl"]["fidelity"] = "rtl"
            d.features.add("cxl:rtl")
    if cxl and "training" in sc and sc["training"]["sync"]["strategy"] in ("ddp", "ddp_no_overlap") and d.p(0.3):
        # Real gradients through the device and the engine (cxl.md#functional-mode): small ones,
        # for a few iterations (8 MB over 18 iterations took 138 s: campaign 99, scenario 290).
        w = sc["workload"]
        grads = 4 * sum(l.get("params", 0) for l in w.get("layers", [])) if "layers" in w else None
        if grads is not None and grads <= 2 << 20:
            w["functional"] = True
            d.features.add("cxl:functional")
            tr = sc["training"]
            if tr.get("iterations", 0) > 4:
                tr["iterations"] = 4
                if tr.get("warmup", 0) > 1:
                    tr["warmup"] = 1
    if cxl and node["cxl"].get("readback"):
        # The host reads each job's result back over CXL.mem a line at a time: only where a
        # collective or an iteration reduces a few MB (a zoo model's gradients took 45-74 s a
        # run: campaign 99, scenarios 11, 58 and 390). The draw stays, so later draws keep their
        # values.
        w = sc["workload"]
        grads = 4 * sum(l.get("params", 0) for l in w.get("layers", [])) if "layers" in w else None
        small = (w.get("kind") == "collective" and size_of(w.get("bytes", w.get("max_bytes"))) <= 4 << 20) or \
            (grads is not None and grads <= 8 << 20)
        if not small:
            del node["cxl"]["readback"]
            node["cxl"].pop("mem_outstanding", None)
            d.features.discard("cxl:readback")
    if not cxl and (d.p(0.3) or "health" in sc or any(
            "retry" in t.get("sync", {}) for t in [sc.get("training", {})] + [j.get("training", {}) for j in sc.get("jobs", [])])):
        sc["faults"] = faults_of(d, nodes, gpus, nics, topology, spines, fidelity, leaves)
    if not cxl and d.p(0.1):
        sc["fault_generator"] = fault_generator_of(d)
    if "faults" in sc and not jobs and not bench and not chakra and d.p(0.3):
        sc["slo"] = {"fraction": d.real(0.5, 0.95)}
        d.features.add("slo")
    if not jobs and not chakra and d.p(0.08, "validation"):
        # A published figure to compare with (validation.md): any value is valid, but the metric
        # must be one the run reports (a benchmark's busbw at one of its sizes; Megatron-LM's FLOP
        # count for a transformer under training.parallel).
        w = sc["workload"]
        if w.get("kind") == "collective":
            sc["validation"] = {"metric": "busbw_GBps", "published": d.real(1, 400), "bytes": w.get("bytes", w.get("min_bytes"))}
        else:
            sc["validation"] = {"metric": d.pick(["iteration_s", "iterations_per_min"] + (["tflops_per_gpu", "mfu"] if hybrid else [])),
                                "published": d.real(0.001, 100)}
        sc["validation"]["source"] = "fuzz-runs"
    bound_chunks(sc)
    out = {"trace": d.p(0.1)}
    if out["trace"]:
        d.features.add("trace")
        if d.p(0.3):
            out["trace_max_events"] = d.int(1, 200)
    if d.p(0.1):
        out["collectives"] = False
        d.features.add("collectives:false")
    sc["output"] = out
    three_tier(seed, index, sc, d.features)
    return sc, d.features


def three_tier(seed, index, sc, features):
    """Some leaf-spine scenarios become a three-tier Clos (docs/fabric.md#three-tier-clos): pods of
    leaves and spines under cores, some oversubscribed above the pods. Drawn from a stream of its
    own, after everything else, so every other draw of every scenario stays what it was."""
    fabric = sc["cluster"].get("fabric", {})
    if fabric.get("topology") != "leaf-spine":
        return
    r = random.Random(f"trainvp-fuzz-runs-three-tier:{seed}:{index}")
    if r.random() >= 0.25:
        return
    features.add("three-tier")
    fabric["topology"] = "three-tier"
    fabric.pop("spines", None)  # the leaf-spine's; a pod's are pod_spines
    pod_spines = r.choice([1, 2, 2, 3])
    fabric["pod_spines"] = pod_spines
    if not fabric.get("rail_optimized") and r.random() < 0.5:
        fabric["pod_leaves"] = r.choice([1, 2, 4])
    if r.random() < 0.5:
        fabric["cores"] = pod_spines * r.choice([1, 2])
    if r.random() < 0.3:
        fabric["core_oversubscription"] = r.choice([2, 4, 7])
    # A spine's link-down fault names a pod's spine now (the other spines route around it).
    for f in sc.get("faults", []):
        if f.get("kind") == "link_down" and f.get("target", "").startswith("spine"):
            if pod_spines > 1:
                f["target"] = f"pod0.spine{r.randrange(pod_spines)}"
            else:
                f["kind"] = "link_degrade"
                f["target"] = "pod0.spine0"
                f["bandwidth_factor"] = 0.5


def benchmark_of(d, ranks, cxl, aggregators, nodes, gpus, nvls=False):
    """A collective benchmark (nccl-tests' manner): an op, an algorithm, one size or a range."""
    w = {"kind": "collective"}
    op = "all_reduce" if cxl else d.pick(["all_reduce"] * 3 + ["reduce_scatter", "all_gather", "broadcast", "sendrecv"])
    w["op"] = op
    d.features.add("bench:" + op)
    algos = ["ring"]
    if op == "all_reduce":
        algos += ["ring", "tree", "hierarchical"]
        if cxl:
            algos = ["cxl_hierarchical"] + (["cxl_allreduce"] if nodes == 1 and gpus <= 8 else [])
        elif aggregators:
            algos += ["ps"]
        if nvls and not cxl:
            algos += ["nvls"]
    w["algorithm"] = d.pick(algos)
    if d.p(0.5):
        w["bytes"] = d.pick(["4KiB", "64KiB", "1MiB", "8MiB"])
    else:
        w["min_bytes"] = d.pick(["1KiB", "64KiB"])
        w["max_bytes"] = d.pick(["256KiB", "4MiB"])
        w["factor"] = d.pick([2, 4, 8])
    w["iterations"] = d.int(1, 3)
    w["warmup"] = d.int(0, 1)
    # A communicator of some ranks, in some order (rings, trees and sendrecv only: hierarchical and
    # the CXL and PS algorithms need whole nodes).
    if w["algorithm"] in ("ring", "tree") and d.p(0.3):
        comm = d.r.sample(range(ranks), d.int(2, ranks))
        w["communicator"] = comm
        if op == "broadcast":
            w["root"] = d.int(0, len(comm) - 1)
    elif op == "broadcast" and d.p(0.5):
        w["root"] = d.int(0, ranks - 1)
    return w


def size_of(v):
    return {"4KiB": 4096, "64KiB": 65536, "256KiB": 262144, "1MiB": 1 << 20, "4MiB": 4 << 20, "8MiB": 8 << 20}[v]


ZOO_PARAMS = {"gpt2-small": 124e6, "bert-base": 110e6, "gpt2-medium": 355e6, "resnet50": 25.6e6, "vit-b16": 86e6}
CHUNKS = [("64KiB", 65536), ("256KiB", 262144), ("1MiB", 1 << 20), ("4MiB", 4 << 20), ("16MiB", 16 << 20), ("64MiB", 64 << 20)]


def bound_chunks(sc):
    """Raises fabric.chunk until a packet-fidelity run moves at most a few thousand chunks per
    iteration: the run then takes milliseconds (uncongested transfers take the same time at any
    chunk size, docs/fabric.md#chunk-size-speed-against-fidelity)."""
    cl = sc["cluster"]
    ranks = cl["nodes"] * cl["node"]["gpus"]
    works = [j["workload"] for j in sc.get("jobs", []) if "workload" in j] or [sc["workload"]]
    grads = 0.0
    for w in works:
        if "layers" in w:
            grads = max(grads, 4.0 * sum(l.get("params", 0) for l in w["layers"]))
        elif "model" in w:
            grads = max(grads, 4.0 * ZOO_PARAMS[w["model"]])
        elif "hf_config" in w:
            grads = max(grads, 4.0 * HF_CONFIGS[os.path.basename(os.path.dirname(w["hf_config"]))])
        elif "chakra" in w:
            grads = max(grads, 4.0 * 1.56e9)  # GPT-2 XL's gradients
        elif w.get("kind") == "collective":
            grads = max(grads, 8 << 20)  # the largest size drawn
    fabric = cl.setdefault("fabric", {})
    chunk = dict(CHUNKS)[fabric.get("chunk", "1MiB")]
    for name, size in CHUNKS:
        if size >= chunk and grads * 2 * ranks / size <= 3000:
            break
    if size != chunk:
        fabric["chunk"] = name
        pfc = fabric.get("pfc", {})
        if pfc.get("mode") == "ingress":  # xoff, the buffer by default, counts whole chunks
            fabric["switch_buffer"] = name


def parallel_of(d, nodes, gpus, w):
    """TP within a node, PP over 1-2 stages, DP the rest; ZeRO and schedules."""
    d.features.add("parallel")
    tps = [t for t in (1, 2, 4, 8) if gpus % t == 0]
    tp = d.pick(tps)
    total = nodes * gpus
    pps = [p for p in (1, 2) if (total // tp) % p == 0]
    pp = d.pick(pps)
    dp = total // (tp * pp)
    p = {"tp": tp, "pp": pp, "dp": dp}
    if tp > 1:
        d.features.add("parallel:tp")
    if pp > 1:
        d.features.add("parallel:pp")
        p["micro_batches"] = d.pick([pp, 2 * pp])
        p["schedule"] = d.pick(["1f1b", "gpipe", "interleaved"])
        if p["schedule"] == "interleaved":
            p["virtual_stages"] = d.pick([2, 3])  # 12 layers: 2 stages x 2 or 3 chunks
            d.features.add("parallel:interleaved")
    if dp > 1 and d.p(0.3):
        p["zero"] = d.int(1, 3)
        d.features.add("parallel:zero")
    if tp > 1 and d.p(0.3):
        p["sequence_parallel"] = True
    if d.p(0.2):
        p["recompute"] = d.pick(["selective", "full"])
    if d.p(0.15, "parallel:order"):
        p["order"] = d.pick(["tp-dp-pp", "tp-pp-dp", "dp-tp-pp", "pp-tp-dp"])
    if d.p(0.15, "parallel:rank_map"):  # every GPU's [tp, pp, dp], each coordinate once, shuffled
        coords = [[t, s, r] for s in range(pp) for r in range(dp) for t in range(tp)]
        d.r.shuffle(coords)
        p["rank_map"] = coords
    layers = 26 if "bert" in w.get("model", w.get("hf_config", "")) else 27  # the zoo's and HF's Layer entries
    chunks = pp * p.get("virtual_stages", 1)
    if pp > 1 and d.p(0.3, "parallel:stage_layers"):  # a random composition of the layers into chunks
        cuts = sorted(d.r.sample(range(1, layers), chunks - 1))
        p["stage_layers"] = [b - a for a, b in zip([0] + cuts, cuts + [layers])]
    for key in ("overlap_grad_reduce", "overlap_param_gather", "tp_comm_overlap", "overlap_p2p"):
        if d.p(0.2):
            p[key] = d.p(0.5)
            d.features.add("parallel:" + key)
    if pp > 1 and d.p(0.2, "parallel:global_batch"):  # B = b m d, in place of m
        p["global_batch"] = w["batch"] * p.pop("micro_batches", 1) * dp
    return p
