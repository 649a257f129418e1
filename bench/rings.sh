#!/usr/bin/env bash
# Rank-order rings against NCCL's channels and topology-aware rings (docs/fabric.md#channels-and-ring-order):
# the 1 GiB ring all-reduce over 64 nodes x 8 H100 (8 x 400 Gbit/s NICs each) on a rail-optimized
# leaf-spine, scenarios/fabric/rail-64node-{rank,nccl}-rings.json, plus the NCCL rings with one
# channel. Prints a markdown table: time, bus bandwidth, what it is of the per-NIC bound
# (channels x one NIC's payload rate, 400 Gbit/s x 4096/4178), bytes per link tier, sim wall.
# usage: bench/rings.sh [BUILD_DIR]   FIDELITY=flow runs both in flow fidelity.
source "$(dirname "$0")/common.sh"
beta=$(awk 'BEGIN{print 400e9 / 8 * 4096 / 4178 / 1e9}')
echo "| rings | channels | time | busbw | of C x beta | NVLink bytes | PCIe bytes | NIC-leaf bytes | spine bytes | sim wall |"
echo "|---|---|---|---|---|---|---|---|---|---|"
run() {  # run LABEL SCENARIO CHANNELS(0: as shipped)
  local sets=()
  [ "$3" != 0 ] && sets+=(--set /cluster/fabric/nccl/channels="$3")
  [ -n "${FIDELITY:-}" ] && sets+=(--set /cluster/fabric/fidelity="$FIDELITY")
  "$build/trainvp" run "$2" -q -o "$out/$1" "${sets[@]}" >/dev/null
  local r="$out/$1/results.json" c
  c=$([ "$3" != 0 ] && echo "$3" || { grep -q '"order": "topology"' "$2" && echo 8 || echo 1; })
  awk -v l="$1" -v c="$c" -v b="$beta" -v t="$(field time_s "$r")" -v bw="$(field busbw_GBps "$r")" \
    -v nv="$(field nvlink_bytes "$r")" -v pc="$(field pcie_bytes "$r")" -v ni="$(field nic_bytes "$r")" \
    -v sp="$(field spine_bytes "$r")" -v w="$(field wall_s "$r")" \
    'BEGIN{printf "| %s | %d | %.3f ms | %.1f GB/s | %.1f%% | %.3g | %.3g | %.3g | %.3g | %.1f s |\n",
           l, c, t * 1e3, bw, 100 * bw / (c * b), nv, pc, ni, sp, w}'
}
run rank scenarios/fabric/rail-64node-rank-rings.json 0
run topology scenarios/fabric/rail-64node-nccl-rings.json 1
run topology scenarios/fabric/rail-64node-nccl-rings.json 0
