#pragma once
// What a GPU of a hybrid-parallel job holds in HBM (DOMAIN.md section 7): mixed-precision Adam's
// 16 bytes per parameter held (2 weights + 2 gradients + 12 fp32 master weights, momentum and
// variance), sharded by ZeRO over d (stage 1: the 12; 2: the 14; 3: all 16), plus, under ZeRO-3,
// the whole layers gathered for the running phase and its prefetch, plus the
// activations of the micro-batches in flight (Korthikanti et al.: s·b·h·(34 + 5·a·s/h) bytes
// per transformer layer, /t with sequence parallelism, 2·s·b·h with full recomputation).
#include <cstdint>
#include <string>
#include <vector>

#include "models/parallel/parallel_config.hpp"
#include "models/workload/workload.hpp"

namespace trainvp {

struct StageMemory {
  std::uint64_t weights = 0;  // bytes of compute-dtype weights held
  std::uint64_t gradients = 0;
  std::uint64_t optimizer = 0;    // fp32 master weights + Adam moments (SGD: momentum; none: 0)
  std::uint64_t activations = 0;  // at the peak of micro-batches in flight
  std::uint64_t gathered = 0;     // ZeRO-3: unsharded layer parameters held at once (zero3_gathered_bytes)
  std::uint64_t total() const { return weights + gradients + optimizer + activations + gathered; }
};

// One GPU of a stage. `stage` is the stage's workload (stage_workload: TP-sharded layers);
// `in_flight[k]` the peak number of micro-batches whose activations virtual chunk k holds at
// once (from the pipeline schedule); `chunk_of` as stage_workload fills it.
StageMemory stage_memory(const Workload& stage, const ParallelConfig& cfg, const std::vector<int>& chunk_of,
                         const std::vector<int>& in_flight);

// Activation bytes one micro-batch leaves on one TP rank for layer `l` of `stage` (the
// Korthikanti formula for transformer layers, the layer's own activation_bytes otherwise).
std::uint64_t layer_activation_bytes(const Workload& stage, const Layer& l, const ParallelConfig& cfg);

// ZeRO-3: the gathered (whole, unsharded) layer parameters one GPU holds at once with prefetch
// depth D: at most D layers (the running phase's and D - 1 ahead), bounded by D x the largest
// layer's compute-dtype parameter bytes of `stage`.
std::uint64_t zero3_gathered_bytes(const Workload& stage, int prefetch);

}  // namespace trainvp
