// Peak micro-batches in flight per model chunk of a stage (in_flight.hpp).
#include "models/parallel/in_flight.hpp"

#include <algorithm>

namespace trainvp {
namespace {

// Walks a 1F1B-style order: `warmup` forwards, then forward/backward pairs, then the remaining
// backwards. Pass i of m x v runs chunk chunk_of(i) (Megatron's get_model_chunk_id).
std::vector<int> walk(int p, int v, int m, int warmup) {
  const int total = m * v;
  auto chunk = [&](int i, bool forward) {
    const int k = (i % (p * v)) / p;
    return forward ? k : v - 1 - k;
  };
  std::vector<int> held(static_cast<std::size_t>(v), 0), peak(static_cast<std::size_t>(v), 0);
  auto fwd = [&](int i) {
    const auto k = static_cast<std::size_t>(chunk(i, true));
    peak[k] = std::max(peak[k], ++held[k]);
  };
  auto bwd = [&](int i) { --held[static_cast<std::size_t>(chunk(i, false))]; };
  warmup = std::min(warmup, total);
  for (int i = 0; i < warmup; ++i) fwd(i);
  for (int j = 0; j + warmup < total; ++j) fwd(warmup + j), bwd(j);
  return peak;
}

}  // namespace

std::vector<int> peak_in_flight(const ParallelConfig& cfg, int stage) {
  const int p = cfg.pp, m = cfg.micro_batches;
  switch (cfg.schedule) {
    case PipelineScheduleKind::GPipe:
      return std::vector<int>(static_cast<std::size_t>(cfg.virtual_stages), m);
    case PipelineScheduleKind::OneFOneB:
      return walk(p, 1, m, p - stage - 1);
    case PipelineScheduleKind::Interleaved:
      return walk(p, cfg.virtual_stages, m, (p - stage - 1) * 2 + (cfg.virtual_stages - 1) * p);
  }
  return {};
}

}  // namespace trainvp
