#include "models/collectives/nccl_tuner.hpp"

#include <algorithm>
#include <cmath>

namespace trainvp {

namespace {

// NCCL 2.18.3, src/graph/tuning.cc (NVIDIA/nccl ea383122): microseconds, GB/s. Index: protocol
// LL, LL128, Simple.
constexpr double kBaseLat[2][3] = {{6.6, 14.0, 8.4},   // ring
                                   {6.8, 14.0, 0.0}};  // tree
constexpr double kNvlinkLat[2][3] = {{0.6, 1.9, 3.4}, {0.6, 1.25, 4.0}};
constexpr double kNetLat[2][3] = {{2.7, 4.0, 14.0}, {5.0, 8.5, 14.0}};
// llMaxBws (the same row for Ampere and Hopper in 2.18.3), by 1, 2, more nodes.
constexpr double kLlMaxBw[3] = {87.7, 22.5, 19.0};
// Per-channel caps: perChMaxRingLL128Bws, perChMaxTreeLL128Bws, perChMaxTreeBws; Ampere, Hopper.
constexpr double kRingLl128PerCh[2] = {20.0, 36.7};
constexpr double kTreeLl128PerCh[2][3] = {{20.0, 20.0, 20.0}, {36.7, 36.7, 29.0}};
constexpr double kTreePerCh[2][3] = {{24.0, 23.6, 17.8}, {38.7, 41.4, 36.0}};

int node_index(int nodes) { return nodes <= 1 ? 0 : nodes == 2 ? 1 : 2; }

// Bus bandwidth (GB/s) of protocol p.
double bus_bandwidth(const NcclTunerInput& in, NcclProtocol p) {
  const double bw = in.bus_bw / 1e9;
  const int arch = in.hopper ? 1 : 0, ni = node_index(in.nodes);
  const double ch = in.channels;
  const int ppn = std::max(1, in.ranks / std::max(1, in.nodes));
  if (!in.tree) {
    switch (p) {
      case NcclProtocol::LL: return std::min(kLlMaxBw[ni], bw * (in.all_reduce || in.nodes > 1 ? 1.0 / 4 : 1.0 / 3));
      case NcclProtocol::LL128: return std::min(bw * (ppn >= 2 ? 0.92 : 0.7), ch * kRingLl128PerCh[arch]);
      case NcclProtocol::Simple: return bw;
    }
  }
  switch (p) {
    case NcclProtocol::LL: return std::min(kLlMaxBw[ni], bw / 3.8);
    case NcclProtocol::LL128:
      return std::min(bw * (in.nodes == 1 ? 7.0 / 9 : 120.0 / 128), ch * kTreeLl128PerCh[arch][ni]);
    case NcclProtocol::Simple: return std::min(bw * 0.92, ch * kTreePerCh[arch][ni]);
  }
  return bw;
}

}  // namespace

const char* nccl_protocol_name(NcclProtocol p) {
  switch (p) {
    case NcclProtocol::LL: return "LL";
    case NcclProtocol::LL128: return "LL128";
    case NcclProtocol::Simple: return "Simple";
  }
  return "?";
}

NcclChoice nccl_cost(const NcclTunerInput& in, NcclProtocol p) {
  const int algo = in.tree ? 1 : 0, proto = static_cast<int>(p);
  NcclChoice c;
  c.protocol = p;
  c.base_latency_s = kBaseLat[algo][proto] * 1e-6;
  c.intra_hop_s = kNvlinkLat[algo][proto] * 1e-6;
  c.inter_hop_s = kNetLat[algo][proto] * 1e-6;
  const double simple = bus_bandwidth(in, in.tree ? NcclProtocol::Simple : NcclProtocol::Simple);
  const double bus = bus_bandwidth(in, p);
  c.bandwidth_factor = simple > 0 ? std::min(1.0, bus / (in.tree ? in.bus_bw / 1e9 : simple)) : 1.0;
  const int p_ranks = std::max(1, in.ranks), nodes = std::max(1, in.nodes);
  double lat, alg_bw;
  if (!in.tree) {
    const int steps = (in.all_reduce ? 2 : 1) * (p_ranks - 1);
    const int inter = (in.all_reduce ? 2 : 1) * (nodes - 1);
    lat = c.base_latency_s + (steps - inter) * c.intra_hop_s + inter * c.inter_hop_s;
    alg_bw = bus * 1e9 * p_ranks / std::max(1, steps);
  } else {
    const int ppn = std::max(1, p_ranks / nodes);
    lat = c.base_latency_s + 2 * ((ppn - 1) * c.intra_hop_s + std::log2(static_cast<double>(nodes)) * c.inter_hop_s);
    alg_bw = bus * 1e9 * 0.5;
  }
  c.predicted_s = lat + (alg_bw > 0 ? in.bytes / alg_bw : 0);
  return c;
}

NcclChoice nccl_tune(const NcclTunerInput& in) {
  NcclChoice best;
  bool first = true;
  for (NcclProtocol p : {NcclProtocol::LL, NcclProtocol::LL128, NcclProtocol::Simple}) {
    const NcclChoice c = nccl_cost(in, p);
    if (first || c.predicted_s < best.predicted_s) best = c, first = false;
  }
  return best;
}

}  // namespace trainvp
