#pragma once
// The kernel model (docs/models.md#kernels): one kernel's time on a GPU from its shape.
//   GEMM: its output cut into tiles of one of the shapes cuBLAS uses, one tile per SM in waves, so
//     a last partial wave and a dimension that does not fill its tile (wave and tile quantization)
//     cost as whole ones; each tile runs at the GPU's achievable GEMM rate (gemm_efficiency x peak
//     / SMs) times the tile shape's own efficiency, plus a fixed K of pipeline fill and drain; the
//     fastest tile shape wins, as cuBLAS's heuristic picks one.
//   Attention (fused, FlashAttention-2 style): its FLOPs at attention_efficiency x peak, scaled by
//     how FlashAttention-2's measured rate depends on the sequence, the head width and the causal
//     mask, over whole waves of 128-query blocks.
//   Memory-bound: its bytes at the achievable HBM bandwidth (mem_bw x mem_efficiency).
// Each kernel adds the GPU's kernel_tail (the gap between back-to-back kernels).
#include "models/gpu/gpu_params.hpp"
#include "models/workload/kernel.hpp"

namespace trainvp {

// Seconds, at speed 1. `dtype` picks the tensor peak.
double kernel_seconds(const GpuParams& gpu, DType dtype, const Kernel& k);

// The kernel's FLOPs over its time as a fraction of the dtype's dense peak (0 for memory-bound
// kernels): what `trainvp describe model` shows.
double kernel_efficiency(const GpuParams& gpu, DType dtype, const Kernel& k);

// FlashAttention-2's measured rate at `keys` keys per query, head width `head_dim` and mask,
// relative to its rate at 16k keys, head width 128, no mask (Dao 2023, Fig. 4: A100 80GB SXM4,
// forward and backward, 16k tokens per batch); clamped outside 512-16k keys and widths 64-128.
double flash_attention_shape_factor(double keys, double head_dim, bool causal);

// The GEMM model's tile shapes: rows x columns of the output, and the rate each reaches relative
// to the largest (fitted with kGemmKOverhead and a kernel_tail of 2 us to cuBLASLt's measured
// rates on A100-SXM4-80GB, docs/models.md#kernels).
struct GemmTile {
  double rows, cols, efficiency;
};
const std::vector<GemmTile>& gemm_tiles();
constexpr double kGemmKOverhead = 128;  // K elements' worth of prologue and epilogue per tile

}  // namespace trainvp
