#include "models/parallel/pipeline.hpp"

#include <algorithm>

namespace trainvp {

namespace {

// Megatron's interleaved order: the k-th forward (or backward) of a stage visits micro-batches
// in groups of p, chunk by chunk: group g = k / (p v), chunk (k / p) mod v, micro-batch g p + k mod p.
ScheduleBlock interleaved_block(int k, int p, int v, bool backward) {
  const int group = k / (p * v);
  int chunk = (k / p) % v;
  if (backward) chunk = v - 1 - chunk;
  return {backward, chunk, group * p + k % p};
}

}  // namespace

std::vector<ScheduleBlock> pipeline_blocks(PipelineScheduleKind kind, int p, int m, int v, int stage) {
  std::vector<ScheduleBlock> out;
  if (kind == PipelineScheduleKind::GPipe) {
    for (int c = 0; c < v; ++c)
      for (int j = 0; j < m; ++j) out.push_back({false, c, j});
    for (int c = v - 1; c >= 0; --c)
      for (int j = 0; j < m; ++j) out.push_back({true, c, j});
    return out;
  }
  if (kind == PipelineScheduleKind::OneFOneB || v == 1) {
    const int warm = std::min(p - stage - 1, m);
    for (int j = 0; j < warm; ++j) out.push_back({false, 0, j});
    for (int j = 0; j < m - warm; ++j) {
      out.push_back({false, 0, warm + j});
      out.push_back({true, 0, j});
    }
    for (int j = m - warm; j < m; ++j) out.push_back({true, 0, j});
    return out;
  }
  // Interleaved: m is a multiple of p (the config checks). With m == p Megatron runs every
  // forward first.
  const int total = m * v;
  const int warm = m == p ? total : std::min(total, (p - stage - 1) * 2 + (v - 1) * p);
  for (int k = 0; k < warm; ++k) out.push_back(interleaved_block(k, p, v, false));
  for (int k = 0; k < total - warm; ++k) {
    out.push_back(interleaved_block(warm + k, p, v, false));
    out.push_back(interleaved_block(k, p, v, true));
  }
  for (int k = total - warm; k < total; ++k) out.push_back(interleaved_block(k, p, v, true));
  return out;
}

std::vector<int> peak_in_flight(const std::vector<ScheduleBlock>& blocks, int v) {
  std::vector<int> now(static_cast<std::size_t>(v), 0), peak(static_cast<std::size_t>(v), 0);
  for (const ScheduleBlock& b : blocks) {
    int& n = now[static_cast<std::size_t>(b.chunk)];
    n += b.backward ? -1 : 1;
    peak[static_cast<std::size_t>(b.chunk)] = std::max(peak[static_cast<std::size_t>(b.chunk)], n);
  }
  return peak;
}

}  // namespace trainvp
