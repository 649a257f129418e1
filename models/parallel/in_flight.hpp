#pragma once
// How many micro-batches' activations each model chunk of a pipeline stage holds at its peak, as
// the schedule's order of forward and backward passes dictates (memory.hpp uses it). The
// pipeline executor owns the schedules; this is their closed form for the memory check.
#include <vector>

#include "models/parallel/parallel_config.hpp"

namespace trainvp {

// Per virtual chunk k (0 .. v-1) of `stage`: GPipe runs every forward first, so m; 1F1B runs
// p - stage - 1 warm-up forwards, then one forward and one backward at a time, so min(p - stage, m);
// interleaved 1F1B (Megatron's order: groups of p micro-batches per chunk, (p - stage - 1) x 2
// + (v - 1) x p warm-up forwards) gives each chunk's peak along the way.
std::vector<int> peak_in_flight(const ParallelConfig& cfg, int stage);

}  // namespace trainvp
