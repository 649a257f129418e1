#pragma once
// A hybrid-parallel job, planned before anything is elaborated: the placement, the layers of each
// pipeline stage (TP-sharded, with recomputation's extra work), each stage's schedule, the bytes
// crossing a stage boundary, and each stage's memory. The config layer plans to check the layout
// (it fits, it is consistent); the platform plans again to build the GPUs from it.
#include <cstdint>
#include <memory>
#include <vector>

#include "models/gpu/gpu_params.hpp"
#include "models/parallel/layout.hpp"
#include "models/parallel/memory.hpp"
#include "models/parallel/parallel_sync.hpp"

namespace trainvp {

struct ParallelPlan {
  ParallelLayout layout;
  StagePartition partition;
  std::vector<ParallelStage> stages;        // per pipeline stage
  std::vector<std::vector<int>> in_flight;  // per stage, per virtual chunk: peak micro-batches held
  std::vector<StageMemory> memory;          // per stage: one GPU's HBM use
  std::uint64_t boundary_bytes = 0;         // PP: per micro-batch, boundary and TP rank
};

// `gpu`: the GPU model that times layers for the balanced partition (rank 0's). Throws
// LayoutError for a layout that cannot be (pipeline parallelism without a transformer's b·s·h,
// fewer layers than chunks, and ParallelLayout's own checks).
// `ranks` (a job on part of a cluster): the cluster rank of each of its ranks; empty: 0 .. gpus-1.
std::unique_ptr<ParallelPlan> make_parallel_plan(const Workload& full, const ParallelConfig& cfg, int gpus,
                                                 const GpuParams& gpu, const std::vector<int>& ranks = {});

// What the balanced partition balances: per layer, a TP rank's forward + backward time of one
// micro-batch on `gpu` (recomputation included).
std::vector<double> layer_times_ps(const Workload& full, const ParallelConfig& cfg, const GpuParams& gpu);

// Per pipeline stage, the sum of layer_times_ps over its layers (every virtual chunk it holds):
// a micro-batch's healthy time there, as the partition balanced it (S3 weighs stages by it).
std::vector<double> stage_work_ps(const ParallelPlan& plan, const Workload& full, const ParallelConfig& cfg,
                                  const GpuParams& gpu);

// Recomputation's extra backward work on one TP rank: full recomputation reruns each layer's
// forward before its dX; selective reruns the attention core of Attention halves
// (4·b·s²·h/t FLOPs, Korthikanti et al.).
void add_recompute(Workload& stage, const ParallelConfig& cfg);

}  // namespace trainvp
