#pragma once
// Megatron-style hybrid parallelism as `training.parallel` states it (platform/config/parallel.cpp
// reads it; docs/parallelism.md). Notation as in DOMAIN.md section 7: t (tp), p (pp), d (dp),
// m (micro_batches), v (virtual_stages).
#include <array>
#include <vector>

namespace trainvp {

enum class PipelineScheduleKind { GPipe, OneFOneB, Interleaved };
enum class RecomputeKind { None, Selective, Full };
enum class ParallelDim { Tp, Dp, Pp };

struct ParallelCoord {
  int tp = 0, pp = 0, dp = 0;
  bool operator==(const ParallelCoord& o) const { return tp == o.tp && pp == o.pp && dp == o.dp; }
};

struct ParallelConfig {
  bool enabled = false;  // the scenario has a training.parallel object
  int tp = 1, pp = 1, dp = 1;
  int micro_batches = 1;  // m: micro-batches per iteration through each pipeline
  PipelineScheduleKind schedule = PipelineScheduleKind::OneFOneB;
  int virtual_stages = 1;  // v: model chunks per GPU (interleaved only; 1 otherwise)
  bool sequence_parallel = false;
  int zero = 0;  // 0: DDP all-reduce; 1: optimizer state sharded; 2: + gradients; 3: + parameters
  // ZeRO-3: phases ahead whose layer all-gathers are joined at each phase end (1: just in time,
  // 2: each gather overlaps the phase before its own). Also how many gathered copies are held.
  int zero3_prefetch = 2;
  RecomputeKind recompute = RecomputeKind::None;
  // Megatron-LM's communication overlaps, each with Megatron's default (its arguments.py):
  bool overlap_grad_reduce = false;   // --overlap-grad-reduce: DP gradient buckets reduced during the last backward
  bool overlap_param_gather = false;  // --overlap-param-gather: ZeRO's parameter all-gather behind the next forward
  bool tp_comm_overlap = false;       // --tp-comm-overlap: TP collectives behind the GEMMs that follow them
  bool overlap_p2p = true;            // overlap_p2p_comm: a stage computes on while its pipeline sends travel
  // Fastest-varying dimension first. Megatron's default: TP inside a node, then DP, then PP.
  std::array<ParallelDim, 3> order{ParallelDim::Tp, ParallelDim::Dp, ParallelDim::Pp};
  // Explicit partition: layers per model chunk, p x v entries in model order (chunk c runs on
  // stage c mod p). Empty: balanced by time.
  std::vector<int> stage_layers;
  // Explicit placement: the coordinate of each GPU, in global rank order. Empty: from `order`.
  std::vector<ParallelCoord> rank_map;

  int chunks() const { return pp * virtual_stages; }
};

}  // namespace trainvp
