#pragma once
// /training/parallel: Megatron-style tensor, pipeline and data parallelism (docs/parallelism.md).
// Its presence turns the layout on; the checks that need the cluster and the workload (the grid
// against the GPU count, the partition against the layers, the memory against each GPU's HBM)
// run when the scenario loads, so a layout that cannot run is exit 2 before anything runs.
#include <string>

#include "models/parallel/layout.hpp"
#include "models/parallel/parallel_config.hpp"
#include "platform/config/cluster.hpp"
#include "platform/core/name_table.hpp"
#include "platform/core/params.hpp"

namespace trainvp {

struct Scenario;

// The scalar keys of /training/parallel as given (stage_layers and rank_map are arrays read apart).
struct ParallelRaw {
  int tp = 1, pp = 1, dp = 0;  // dp 0: omitted, the GPUs left over by tp x pp
  int micro_batches = 1;
  int global_batch = 0;  // 0: omitted; else micro_batches = global_batch / (workload.batch x dp)
  PipelineScheduleKind schedule = PipelineScheduleKind::OneFOneB;
  int virtual_stages = 1;
  bool sequence_parallel = false;
  int zero = 0;
  int zero3_prefetch = 2;
  RecomputeKind recompute = RecomputeKind::None;
  std::string order = "tp-dp-pp";
  bool overlap_grad_reduce = false, overlap_param_gather = false, tp_comm_overlap = false, overlap_p2p = true;
};
const ParamSet<ParallelRaw>& parallel_schema();
// The names /training/parallel/schedule and /recompute take, and results.json reports.
const NameTable<PipelineScheduleKind>& pipeline_schedule_names();
const NameTable<RecomputeKind>& recompute_names();

// Reads /training/parallel (`value`, null when absent: `p` stays disabled) and checks the grid
// against the cluster's GPU count; `batch` is workload.batch, the samples of one micro-batch
// (global_batch derives micro_batches from it). Returns the resolved object (null when absent).
json load_parallel(ParallelConfig& p, const json& value, const ClusterConfig& c, int batch);

// The checks that need the workload: one micro-batch at /workload (the pipeline's micro-batches
// are /training/parallel/micro_batches), the partition (explicit or balanced by roofline time on
// rank 0's GPU, stored in s.training.partition) and every GPU's memory against its HBM.
// `job_gpus` (a job of /jobs): the GPUs it runs on, whose cluster ranks its layout takes.
void check_parallel_workload(Scenario& s, const std::vector<GpuInstance>* job_gpus = nullptr);

// Which GPU holds which (tp, pp, dp) coordinate and which layers each stage runs, for
// `trainvp describe topology` (and results): null without training.parallel.
json parallel_placement(const Scenario& s);

}  // namespace trainvp
