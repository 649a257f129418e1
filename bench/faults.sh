#!/usr/bin/env bash
# How each synchronization strategy tolerates each kind of fault: the docs/faults.md table
# "Tolerance by fault kind". 8 nodes x 8 H100, GPT-2 small (batch 8, seq 1024), one 400 Gbit/s
# switch (scenarios/faults/slow-gpu-64gpu-<strategy>.json with its fault replaced), 20 iterations;
# each fault is active for the whole run, so the mean iteration time against the fault-free run's
# is the slowdown the strategy suffers. Rings run in rank order, so a node's traffic to the next
# node leaves through its nic7 (gpu7 -> the next node's gpu0): the link faults hit node5's nic7
# uplink. Strategies: ddp, layerwise, localsgd (H = 5), dreamddp (H = 5).
# usage: bench/faults.sh [BUILD_DIR]
source "$(dirname "$0")/common.sh"

declare -A fault=(
  [none]='[]'
  [slow-gpu]='[{"kind":"gpu_slowdown","target":"node5.gpu3","factor":0.7}]'
  [cpu]='[{"kind":"cpu_contention","target":"node5.*","launch_factor":4}]'
  [degrade]='[{"kind":"link_degrade","target":"link:node5.nic7-switch","bandwidth_factor":0.25}]'
  [loss]='[{"kind":"packet_loss","target":"link:node5.nic7-switch","rate":1e-4}]'
  [flap]='[{"kind":"link_down","target":"link:node5.nic7-switch","start":"20ms","duration":"20ms"}]'
)
# Cross-traffic from a NIC the rings do not use into node6.nic0, the downlink of node5's uplink
# (links are full duplex: traffic from node6.nic0 to node5.nic7 would share nothing with the ring).
fault[congestion]='[{"kind":"congestion","source":"node2.nic3","destination":"node6.nic0","rate":"200Gbps"}]'
kinds=(none slow-gpu cpu degrade loss flap congestion)
strategies=(ddp layerwise localsgd dreamddp)

for st in "${strategies[@]}"; do
  base=scenarios/faults/slow-gpu-64gpu-ddp.json
  [ -f "scenarios/faults/slow-gpu-64gpu-$st.json" ] && base=scenarios/faults/slow-gpu-64gpu-$st.json
  for k in "${kinds[@]}"; do
    "$build/trainvp" run "$base" -q -o "$out/$st-$k" --set /training/iterations=20 \
      --set /training/sync/strategy="$st" --set /faults="${fault[$k]}" --set /output/trace=false >/dev/null
  done
done

python3 - "$out" "${kinds[*]}" "${strategies[*]}" <<'PY'
import json, os, sys
out, kinds, strategies = sys.argv[1], sys.argv[2].split(), sys.argv[3].split()
label = {"none": "none (ms/iteration)", "slow-gpu": "one GPU at 0.7", "cpu": "node5 launch x4",
         "degrade": "one NIC uplink at 0.25", "loss": "one NIC uplink loses 1e-4",
         "flap": "one NIC uplink down 20 ms", "congestion": "200 Gbit/s cross-traffic into one NIC"}
t = {(s, k): json.load(open(os.path.join(out, "%s-%s" % (s, k), "results.json")))["iteration_time_s"]
     for s in strategies for k in kinds}
print("| fault | " + " | ".join(strategies) + " |")
print("|---|" + "---|" * len(strategies))
for k in kinds:
    if k == "none":
        cells = ["%.2f" % (t[(s, k)] * 1e3) for s in strategies]
    else:
        cells = ["%.2fx (%.2f)" % (t[(s, k)] / t[(s, "none")], t[(s, k)] * 1e3) for s in strategies]
    print("| %s | %s |" % (label[k], " | ".join(cells)))
PY
