#pragma once
// NCCL's own performance model (src/graph/tuning.cc of NCCL 2.18.3, the version of the A100 and
// H100 nccl-tests curves docs/validation.md checks against): for a ring or tree collective, the
// time each protocol would take, latency + bytes / bandwidth, and the protocol NCCL's tuner picks,
// the fastest (docs/fabric.md#nccls-protocols). The collective engine then runs the collective
// with that protocol's costs: its base latency before the first step, its per-hop latency on
// every step, and its bandwidth below the fabric's as extra bytes on the wire (LL: a flag per
// 8-byte word; LL128: 8 bytes of each 128-byte line; their per-channel caps).
#include <cstdint>

namespace trainvp {

enum class NcclProtocol { LL, LL128, Simple };
const char* nccl_protocol_name(NcclProtocol p);

struct NcclTunerInput {
  bool tree = false;       // the double binary tree (else a ring)
  bool all_reduce = true;  // all_reduce (two passes: 2(p-1) ring steps) or a single pass (p-1)
  int ranks = 2;
  int nodes = 1;        // nodes the ranks span
  double bytes = 0;     // per rank, as nccl-tests counts them
  double bus_bw = 0;    // bytes/s: the fabric's bound for the collective's bus bandwidth (Simple's)
  int channels = 24;    // NCCL's channels (per-channel caps)
  bool hopper = false;  // sm90 caps (else Ampere's)
};

struct NcclChoice {
  NcclProtocol protocol = NcclProtocol::Simple;
  double base_latency_s = 0;    // once, before the first step
  double intra_hop_s = 0;       // per step between GPUs of a node (NVLink)
  double inter_hop_s = 0;       // per step between nodes (the network)
  double bandwidth_factor = 1;  // the protocol's bandwidth over Simple's (<= 1)
  double predicted_s = 0;       // NCCL's own estimate of the collective's time
};

// NVLS (NVLink SHARP) inside one node of `gpus` GPUs whose NVLinks run at `nvlink_Bps` per
// direction (line rate): Simple only, its base latency, and its bandwidth as a factor of the
// fabric's bound for the pattern (each GPU's NVLink carrying (1 + 1/p) of the buffer each way).
NcclChoice nccl_nvls(int gpus, double nvlink_Bps, double bytes);

// The fastest protocol by NCCL's model, with its costs.
NcclChoice nccl_tune(const NcclTunerInput& in);
// One protocol's costs (the tuner's estimate of it included).
NcclChoice nccl_cost(const NcclTunerInput& in, NcclProtocol p);

}  // namespace trainvp
