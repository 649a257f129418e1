#pragma once
// The order in which one pipeline stage runs its micro-batches' forward and backward blocks
// (Narayanan et al., SC'21): GPipe (every forward, then every backward), 1F1B (p - k - 1
// warm-up forwards on stage k, then one forward one backward, then the remaining backwards) and
// Megatron's interleaved 1F1B over v model chunks per GPU (micro-batches in groups of p per
// chunk, 2(p - k - 1) + (v - 1)p warm-up forwards).
#include <vector>

#include "models/gpu/phase.hpp"
#include "models/parallel/parallel_config.hpp"

namespace trainvp {

// Stage `stage`'s blocks for one iteration; chunk is the GPU's virtual chunk (global chunk
// chunk x p + stage). Every (micro-batch, chunk) appears once forward and once backward, the
// backward after the forward, and each chunk's backwards in micro-batch order.
std::vector<ScheduleBlock> pipeline_blocks(PipelineScheduleKind kind, int p, int m, int v, int stage);

// The most micro-batches whose activations each virtual chunk holds at once (forwards done whose
// backward has not run), walking the blocks in order.
std::vector<int> peak_in_flight(const std::vector<ScheduleBlock>& blocks, int v);

}  // namespace trainvp
