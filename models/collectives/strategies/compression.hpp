#pragma once
// Gradient (or parameter-change) compression per layer: what a layer's synchronization moves
// once compressed, which collectives move it, and the extra GPU work the compression costs.
//
// - topk: each rank keeps ceil(ratio x n) of a layer's n values and sends them with their
//   4-byte indices; sparse sets from different ranks do not add element-wise, so they are
//   exchanged by an all-gather (p x k x (value + index) bytes in all), then scattered locally.
// - powersgd: each weight matrix M (m x n) is approximated as P Q^T with rank r: P = M Q is
//   all-reduced (m x r values), then Q = M^T P (n x r values) is: (m + n) x r values in two
//   all-reduces instead of m x n in one. Vectors (biases, norms) and matrices the rank would not
//   shrink ((m + n) r >= m n) travel uncompressed with P.
// Layers whose uncompressed synchronization is smaller than `min_bytes` stay uncompressed.
#include <cstdint>
#include <vector>

#include "models/collectives/program.hpp"
#include "models/gpu/roofline.hpp"
#include "models/workload/layer.hpp"
#include "platform/core/name_table.hpp"

namespace trainvp {

enum class CompressionKind { None, TopK, PowerSgd };
const NameTable<CompressionKind>& compression_kind_names();  // "none", "topk", "powersgd"
const char* compression_name(CompressionKind k);

struct CompressionConfig {
  CompressionKind kind = CompressionKind::None;
  double ratio = 0.01;                // topk: kept fraction, (0, 1]
  int rank = 4;                       // powersgd: rank of the approximation, >= 1
  std::uint64_t min_bytes = 1000000;  // layers synchronizing fewer bytes stay uncompressed
};

constexpr std::uint32_t kTopKIndexBytes = 4;

// One layer's synchronization, compressed or not. Byte counts are per rank's contribution.
struct LayerTraffic {
  std::uint64_t elements = 0;     // values of the layer (its parameters)
  std::uint64_t plain_bytes = 0;  // elements x value bytes: what an uncompressed sync moves
  bool compressed = false;
  std::uint64_t dense_bytes = 0;   // all-reduced as they are
  std::uint64_t topk_k = 0;        // topk: values kept
  std::uint64_t sparse_bytes = 0;  // topk: k x (value + index), all-gathered
  std::uint64_t p_bytes = 0;       // powersgd: sum of m x r, all-reduced with the dense bytes
  std::uint64_t q_bytes = 0;       // powersgd: sum of n x r, all-reduced after P
  PhaseWork work;                  // compression and decompression on the GPU (roofline)
};

// `value_bytes`: bytes per synchronized value (gradient dtype, or the weights' dtype when
// parameters are averaged). `world`: ranks taking part (top-k decompression reads p selections).
LayerTraffic layer_traffic(const Layer& layer, std::uint32_t value_bytes, const CompressionConfig& c, int world);

// PowerSGD's view of a layer: its weight matrices, or, for layers that do not list them
// (explicit layers), one matrix of floor(sqrt(params)) rows holding every parameter.
std::vector<Layer::Matrix> compression_matrices(const Layer& layer);

// One collective of a synchronization; `bytes` is the collective's size n (an all-gather's whole
// output buffer, p x each rank's part).
struct SyncStep {
  CollectiveOp op = CollectiveOp::AllReduce;
  std::uint64_t bytes = 0;
};

// The collectives that synchronize a group of layers, run one after another: uncompressed, one
// all-reduce; topk, an all-reduce of the uncompressed layers (if any) then one all-gather;
// powersgd, an all-reduce of P with the uncompressed values, then one of Q.
std::vector<SyncStep> sync_steps(const std::vector<LayerTraffic>& layers, int world);

// The bytes of those collectives together.
std::uint64_t steps_bytes(const std::vector<SyncStep>& steps);

}  // namespace trainvp
