#include "models/parallel/plan.hpp"

#include "models/gpu/roofline.hpp"
#include "models/parallel/pipeline.hpp"
#include "models/workload/dtype.hpp"

namespace trainvp {

void add_recompute(Workload& w, const ParallelConfig& cfg) {
  if (cfg.recompute == RecomputeKind::None) return;
  const double b = w.shape.batch, s = w.shape.seq, h = w.dims.hidden;
  for (Layer& l : w.layers) {
    if (cfg.recompute == RecomputeKind::Full) {
      l.bwd_input_flops += l.fwd_flops;
      l.bwd_input_bytes += l.fwd_bytes;
      l.bwd_input_kernels += l.fwd_kernels;
      l.kernels.bwd_input.insert(l.kernels.bwd_input.begin(), l.kernels.fwd.begin(), l.kernels.fwd.end());
      l.tp_replicated.bwd_input_flops += l.tp_replicated.fwd_flops;
      l.tp_replicated.bwd_input_bytes += l.tp_replicated.fwd_bytes;
      if (l.fwd_time_ps >= 0 && l.bwd_input_time_ps >= 0) l.bwd_input_time_ps += l.fwd_time_ps;
    } else if (l.part == Layer::Part::Attention && w.dims.valid()) {
      l.bwd_input_flops += 4 * b * s * s * h / cfg.tp;
      l.bwd_input_kernels += 1;
      // The core attention's forward kernels (split by heads: the fused kernel, or the unfused
      // GEMMs, softmax and dropout) run again before its backward.
      std::vector<Kernel> again;
      for (const Kernel& k : l.kernels.fwd)
        if (k.kind == Kernel::Kind::Attention || k.split == Kernel::Split::Heads) again.push_back(k);
      l.kernels.bwd_input.insert(l.kernels.bwd_input.begin(), again.begin(), again.end());
    }
  }
}

std::vector<double> layer_times_ps(const Workload& full, const ParallelConfig& cfg, const GpuParams& gpu) {
  Workload sharded = full;
  for (Layer& l : sharded.layers) l = tp_shard(l, cfg.tp, cfg.sequence_parallel, full.shape.grad_dtype);
  add_recompute(sharded, cfg);
  std::vector<double> time;
  for (int l = 0; l < static_cast<int>(sharded.layers.size()); ++l) {
    double t = 0;
    for (PhaseKind k : {PhaseKind::Forward, PhaseKind::BackwardInput, PhaseKind::BackwardWeight})
      t += static_cast<double>(phase_time_ps(gpu, sharded.shape.dtype, phase_work(sharded, {k, l, 0}), 1.0));
    time.push_back(t);
  }
  return time;
}

std::unique_ptr<ParallelPlan> make_parallel_plan(const Workload& full, const ParallelConfig& cfg, int gpus,
                                                 const GpuParams& gpu, const std::vector<int>& ranks) {
  ParallelLayout layout(cfg, gpus);
  if (!ranks.empty()) layout.place_on(ranks);
  if (cfg.pp > 1 && !full.dims.valid())
    throw LayoutError("pp",
                      "pipeline parallelism needs a transformer zoo model: the tensor crossing a stage "
                      "boundary is b·s·h, and " +
                          full.model + " states no hidden size");
  const int chunks = cfg.chunks();
  StagePartition part;
  if (!cfg.stage_layers.empty()) {
    part = explicit_partition(cfg.stage_layers, chunks, static_cast<int>(full.layers.size()));
  } else {
    part = balanced_partition(layer_times_ps(full, cfg, gpu), chunks);
  }
  auto plan = std::make_unique<ParallelPlan>(ParallelPlan{std::move(layout), std::move(part), {}, {}, {}, 0});
  const int v = cfg.virtual_stages;
  for (int s = 0; s < cfg.pp; ++s) {
    ParallelStage st;
    st.workload = stage_workload(full, cfg, plan->partition, s, &st.chunk_of);
    add_recompute(st.workload, cfg);
    if (cfg.zero >= 1) st.workload.optimizer_shards = cfg.dp;
    std::vector<ScheduleBlock> blocks = pipeline_blocks(cfg.schedule, cfg.pp, cfg.micro_batches, v, s);
    plan->in_flight.push_back(peak_in_flight(blocks, v));
    st.schedule = PhaseSchedule(std::move(blocks), chunk_patterns(st.workload, st.chunk_of, v),
                                {{PhaseKind::Optimizer, -1, cfg.micro_batches - 1}});
    plan->memory.push_back(stage_memory(st.workload, cfg, st.chunk_of, plan->in_flight.back()));
    plan->stages.push_back(std::move(st));
  }
  if (full.dims.valid()) {
    std::uint64_t bsh = static_cast<std::uint64_t>(full.shape.batch) * static_cast<std::uint64_t>(full.shape.seq) *
                        static_cast<std::uint64_t>(full.dims.hidden) * dtype_bytes(full.shape.dtype);
    // With sequence parallelism each TP rank holds, and sends, its 1/t of the sequence.
    plan->boundary_bytes = cfg.sequence_parallel ? (bsh + static_cast<std::uint64_t>(cfg.tp) - 1) / cfg.tp : bsh;
  }
  return plan;
}

std::vector<double> stage_work_ps(const ParallelPlan& plan, const Workload& full, const ParallelConfig& cfg,
                                  const GpuParams& gpu) {
  const std::vector<double> layer = layer_times_ps(full, cfg, gpu);
  std::vector<double> work(static_cast<std::size_t>(cfg.pp), 0.0);
  for (int c = 0; c < plan.partition.chunks(); ++c)
    for (int l = plan.partition.begin(c); l < plan.partition.end(c); ++l)
      work[static_cast<std::size_t>(c % cfg.pp)] += layer[static_cast<std::size_t>(l)];
  return work;
}

}  // namespace trainvp
