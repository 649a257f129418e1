#include "models/collectives/strategies/compression.hpp"

#include <algorithm>
#include <cmath>

namespace trainvp {

const NameTable<CompressionKind>& compression_kind_names() {
  static const NameTable<CompressionKind> t = {
      {"none", CompressionKind::None}, {"topk", CompressionKind::TopK}, {"powersgd", CompressionKind::PowerSgd}};
  return t;
}

const char* compression_name(CompressionKind k) { return name_in(compression_kind_names(), k); }

std::vector<Layer::Matrix> compression_matrices(const Layer& layer) {
  if (!layer.matrices.empty() || layer.params == 0) return layer.matrices;
  std::uint64_t m = static_cast<std::uint64_t>(std::floor(std::sqrt(static_cast<double>(layer.params))));
  while (m > 1 && m * m > layer.params) --m;  // guard against rounding up
  m = std::max<std::uint64_t>(m, 1);
  return {{m, (layer.params + m - 1) / m}};
}

LayerTraffic layer_traffic(const Layer& layer, std::uint32_t value_bytes, const CompressionConfig& c, int world) {
  LayerTraffic t;
  t.elements = layer.params;
  const double v = value_bytes;
  const std::uint64_t dense = layer.params * value_bytes;
  t.plain_bytes = dense;
  if (c.kind == CompressionKind::None || dense == 0 || dense < c.min_bytes) {
    t.dense_bytes = dense;
    return t;
  }
  t.compressed = true;
  if (c.kind == CompressionKind::TopK) {
    const double n = static_cast<double>(layer.params);
    t.topk_k = std::max<std::uint64_t>(1, static_cast<std::uint64_t>(std::ceil(c.ratio * n - 1e-9)));
    t.topk_k = std::min(t.topk_k, layer.params);
    const double k = static_cast<double>(t.topk_k);
    t.sparse_bytes = t.topk_k * (value_bytes + kTopKIndexBytes);
    // Selection reads the values twice (magnitudes, then the gather) and writes the k pairs;
    // decompression zero-fills the dense buffer, reads the p selections and scatter-adds them.
    t.work.bytes = 3 * n * v + k * (v + kTopKIndexBytes) + world * k * (2 * v + kTopKIndexBytes);
    t.work.kernels = 3;
    return t;
  }
  // PowerSGD.
  std::uint64_t in_matrices = 0, dense_elems = 0;
  bool any = false;
  for (const Layer::Matrix& mx : compression_matrices(layer)) {
    const std::uint64_t m = mx.rows, n = mx.cols;
    in_matrices += m * n;
    const std::uint64_t r = std::min<std::uint64_t>({static_cast<std::uint64_t>(c.rank), m, n});
    if ((m + n) * r >= m * n) {
      dense_elems += m * n;
      continue;
    }
    any = true;
    t.p_bytes += m * r * value_bytes;
    t.q_bytes += n * r * value_bytes;
    const double md = static_cast<double>(m), nd = static_cast<double>(n), rd = static_cast<double>(r);
    // P = M Q, Q = M^T P and the decompression P Q^T: 2mnr FLOPs each; Gram-Schmidt on P: 2mr^2.
    t.work.flops += 6 * md * nd * rd + 2 * md * rd * rd;
    // Each of the three reads or writes M once; P and Q are small.
    t.work.bytes += 3 * md * nd * v + 4 * (md + nd) * rd * v;
    t.work.kernels += 4;
  }
  // Parameters outside the matrices (vectors) travel dense; so may a square view's padding not.
  if (in_matrices < layer.params) dense_elems += layer.params - in_matrices;
  t.dense_bytes = dense_elems * value_bytes;
  if (!any) {  // nothing shrank: an ordinary all-reduce, no extra work
    LayerTraffic plain;
    plain.elements = layer.params;
    plain.plain_bytes = plain.dense_bytes = dense;
    return plain;
  }
  // A square view may hold a few padding elements more than the layer: do not send them twice.
  if (in_matrices > layer.params) t.dense_bytes = 0;
  return t;
}

std::vector<SyncStep> sync_steps(const std::vector<LayerTraffic>& layers, int world) {
  std::uint64_t dense = 0, sparse = 0, p = 0, q = 0;
  for (const LayerTraffic& t : layers) dense += t.dense_bytes, sparse += t.sparse_bytes, p += t.p_bytes, q += t.q_bytes;
  std::vector<SyncStep> steps;
  if (q > 0) {
    steps.push_back({CollectiveOp::AllReduce, dense + p});
    steps.push_back({CollectiveOp::AllReduce, q});
    if (sparse > 0) steps.push_back({CollectiveOp::AllGather, sparse * static_cast<std::uint64_t>(world)});
    return steps;
  }
  if (dense + p > 0) steps.push_back({CollectiveOp::AllReduce, dense + p});
  if (sparse > 0) steps.push_back({CollectiveOp::AllGather, sparse * static_cast<std::uint64_t>(world)});
  return steps;
}

std::uint64_t steps_bytes(const std::vector<SyncStep>& steps) {
  std::uint64_t b = 0;
  for (const SyncStep& s : steps) b += s.bytes;
  return b;
}

}  // namespace trainvp
