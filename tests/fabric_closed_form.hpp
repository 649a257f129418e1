#pragma once
// The fabric's defaults and the closed forms the whole-scenario fabric tests check against
// (docs/fabric.md): the alpha of one GPU-to-GPU transfer between nodes and the RoCE beta.
namespace trainvp::test {

// Defaults of the fabric, nodes and PCIe as declared (docs/scenario-format.md).
constexpr double kEthBps = 400e9, kPcieBps = 32e9 * 16 * 128.0 / 130.0;
constexpr double kEthLat = 1e-6, kSwitchLat = 500e-9, kNicLat = 500e-9, kPcieLat = 300e-9, kPcieSwLat = 150e-9;
constexpr double kMtu = 4096, kFraming = 82, kPcieMtu = 256, kPcieFraming = 24;

// Effective RoCE bandwidth: payload bytes per second after per-packet framing.
inline double eth_beta() { return kEthBps / 8 * kMtu / (kMtu + kFraming); }

// Alpha of one GPU-to-GPU transfer between nodes: GPU -> PCIe switch -> NIC -> switch -> NIC ->
// PCIe switch -> GPU. Every link's latency plus its sending device's forwarding latency; with
// cut-through forwarding, each hop but the RoCE bottleneck adds one packet time (the PCIe hops
// before it the first packet, the ones after it the last; the second RoCE hop one packet).
// The links' and devices' latencies alone along that path (what a message of a few bytes pays).
inline double latency_between_nodes() {
  return kPcieLat + (kPcieLat + kPcieSwLat) + (kEthLat + kNicLat) + (kEthLat + kSwitchLat) + (kPcieLat + kNicLat) +
         (kPcieLat + kPcieSwLat);
}

inline double alpha_between_nodes() {
  double latency = latency_between_nodes();
  double pcie_packet = (kPcieMtu + kPcieFraming) * 8 / kPcieBps;
  double eth_packet = (kMtu + kFraming) * 8 / kEthBps;
  return latency + 4 * pcie_packet + eth_packet;
}

}  // namespace trainvp::test
