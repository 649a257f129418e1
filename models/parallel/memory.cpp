// What one GPU of a layout holds in HBM (memory.hpp; DOMAIN.md section 7).
#include "models/parallel/memory.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace trainvp {
namespace {

std::uint64_t ceil_div(std::uint64_t a, int d) {
  const auto dd = static_cast<std::uint64_t>(d < 1 ? 1 : d);
  return (a + dd - 1) / dd;
}

// Bytes per parameter of the optimizer's fp32 state: Adam keeps master weights, momentum and
// variance (4 + 4 + 4), SGD master weights and momentum (4 + 4), none nothing. The master copy is
// counted whatever the compute dtype, as mixed-precision frameworks keep it.
std::uint64_t optimizer_state_bytes(OptimizerKind k) {
  return k == OptimizerKind::Adam ? 12 : k == OptimizerKind::Sgd ? 8 : 0;
}

}  // namespace

std::uint64_t layer_activation_bytes(const Workload& stage, const Layer& l, const ParallelConfig& cfg) {
  const TransformerDims& dims = stage.dims;
  if (l.part == Layer::Part::Other || !dims.valid()) return l.activation_bytes;
  // Korthikanti et al. 2022, Table 2, in units of s·b·h bytes for 16-bit activations; the halves:
  //   Attention: 5 left whole by TP (LayerNorm input 2, QKV input 2, dropout mask 1)
  //              + 8/t (Q, K 4; V 2; projection input 2) + 5·a·s/(h·t) (softmax, its dropout)
  //   Mlp:       5 left whole (LayerNorm input 2, fc input 2, dropout mask 1) + 16/t (fc output
  //              and GELU output, 8 each)
  // so a layer is 10 + 24/t + 5as/(ht) (34 + 5as/h at t = 1). Sequence parallelism splits the
  // whole part by t too; selective recomputation drops the 5as/(ht) term, and so does fused
  // (flash) attention, which keeps no probabilities (workload.attention); full recomputation
  // keeps only the layer's input, 2 s·b·h (/t with sequence parallelism), on the Attention half.
  // The constants count 2-byte elements (and 1-byte masks); other dtypes scale them all by
  // dtype_bytes / 2 (fp32 doubles them, masks included, a small overestimate).
  const double s = stage.shape.seq, b = stage.shape.batch, h = dims.hidden, a = dims.heads;
  const double t = cfg.tp;
  const double sbh = s * b * h;
  const double whole = cfg.sequence_parallel ? 1.0 / t : 1.0;
  double units = 0;
  if (cfg.recompute == RecomputeKind::Full) {
    units = l.part == Layer::Part::Attention ? 2.0 * whole : 0.0;
  } else if (l.part == Layer::Part::Attention) {
    const bool scores_kept = cfg.recompute != RecomputeKind::Selective && !stage.shape.flash_attention;
    units = 5.0 * whole + 8.0 / t + (scores_kept ? 5.0 * a * s / (h * t) : 0.0);
  } else {
    units = 5.0 * whole + 16.0 / t;
  }
  const double scale = dtype_bytes(stage.shape.dtype) / 2.0;
  return static_cast<std::uint64_t>(std::llround(units * sbh * scale));
}

StageMemory stage_memory(const Workload& stage, const ParallelConfig& cfg, const std::vector<int>& chunk_of,
                         const std::vector<int>& in_flight) {
  StageMemory m;
  const std::uint64_t params = stage.total_params();
  m.weights = params * dtype_bytes(stage.shape.dtype);
  m.gradients = params * dtype_bytes(stage.shape.grad_dtype);
  m.optimizer = params * optimizer_state_bytes(stage.optimizer);
  // ZeRO shards over the stage's DP group: stage 1 the optimizer state, 2 also the gradients,
  // 3 also the weights.
  if (cfg.zero >= 1) m.optimizer = ceil_div(m.optimizer, cfg.dp);
  if (cfg.zero >= 2) m.gradients = ceil_div(m.gradients, cfg.dp);
  if (cfg.zero >= 3) m.weights = ceil_div(m.weights, cfg.dp);
  // A ZeRO-3 GPU computes on whole layers: it gathers the running phase's and prefetches the next
  // ones' (training.parallel.zero3_prefetch), which its HBM must hold beside its shards.
  if (cfg.zero >= 3 && cfg.dp > 1) m.gathered = zero3_gathered_bytes(stage, cfg.zero3_prefetch);
  if (chunk_of.size() != stage.layers.size())
    throw std::invalid_argument("stage_memory: chunk_of has " + std::to_string(chunk_of.size()) + " entries for " +
                                std::to_string(stage.layers.size()) + " layers");
  for (std::size_t i = 0; i < stage.layers.size(); ++i) {
    const auto k = static_cast<std::size_t>(chunk_of[i]);
    if (k >= in_flight.size())
      throw std::invalid_argument("stage_memory: no in-flight count for chunk " + std::to_string(k));
    const int held = in_flight[k];
    m.activations += layer_activation_bytes(stage, stage.layers[i], cfg) * static_cast<std::uint64_t>(held);
  }
  return m;
}

std::uint64_t zero3_gathered_bytes(const Workload& stage, int prefetch) {
  std::uint64_t largest = 0;
  for (const Layer& l : stage.layers) largest = std::max<std::uint64_t>(largest, l.params);
  return static_cast<std::uint64_t>(prefetch) * largest * dtype_bytes(stage.shape.dtype);
}

}  // namespace trainvp
