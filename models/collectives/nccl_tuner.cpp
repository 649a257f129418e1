#include "models/collectives/nccl_tuner.hpp"

#include <algorithm>
#include <cmath>
#include <iterator>

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

// NVLS: baseLat (Simple) 23 us and no NVLink hop latency; the graph search's speeds for sm90 with
// NICs present (sm90SpeedArrayInter, search.cc) and NCCL's NVLink rate per link (SM90_NVLINK_BW,
// topo.h); busBw to algBw 5/6 (tuning.cc).
constexpr double kNvlsBaseLat = 23.0;
constexpr double kSm90Speeds[] = {48.0, 45.0, 42.0, 40.0, 30.0, 24.0, 20.0, 17.5,
                                  15.0, 12.0, 6.0,  3.0,  2.4,  1.2,  0.24, 0.12};
constexpr double kSm90NvlinkBw = 20.0;
constexpr double kNvlsRatio = 5.0 / 6.0;
// NVLink 4 runs 25 GB/s per direction per link (H100 SXM5: 18 links, 900 GB/s both ways: NVIDIA
// H100 data sheet), so a GPU's link count is its NVLink rate over 25 GB/s.
constexpr double kNvlink4PerLink = 25e9;

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

// NCCL's NVLS graph on one node (search.cc, ncclTopoSearchTryNvls and ncclTopoCompareGraphs): one
// channel per GPU, each loading its head's ports twice and every other GPU's once, so a GPU's
// NVLinks carry (p + 1) x bwIntra; bwIntra is the fastest speed that fits. The tuner's bus
// bandwidth is channels x bwIntra, its algorithm bandwidth 5/6 of that. The fabric's bound for the
// same pattern is the GPU's NVLink rate over (1 + 1/p); the factor is NCCL's algorithm bandwidth
// over that bound at NCCL's own link rate.
NcclChoice nccl_nvls(int gpus, double nvlink_Bps, double bytes) {
  const int p = std::max(2, gpus);
  const double links = std::max(1.0, std::round(nvlink_Bps / kNvlink4PerLink));
  const double gpu_bw = links * kSm90NvlinkBw;  // GB/s, NCCL's
  double speed = kSm90Speeds[std::size(kSm90Speeds) - 1];
  for (double s : kSm90Speeds)
    if (s * (p + 1) <= gpu_bw) {
      speed = s;
      break;
    }
  const double alg_bw = p * speed * kNvlsRatio;  // GB/s
  NcclChoice c;
  c.protocol = NcclProtocol::Simple;
  c.base_latency_s = kNvlsBaseLat * 1e-6;
  c.bandwidth_factor = std::min(1.0, alg_bw / (gpu_bw * p / (p + 1)));
  c.predicted_s = c.base_latency_s + bytes / (alg_bw * 1e9);
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
