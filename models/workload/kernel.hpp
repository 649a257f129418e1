#pragma once
// One GPU kernel of a layer's phase, with the shape the kernel model times it by
// (models/gpu/kernel_time.hpp; docs/models.md#kernels): a GEMM of (m x k) x (k x n), a fused
// attention, or a kernel bound by HBM bandwidth. The zoo and the Hugging Face generator list them;
// a layer without them is timed by the roofline of its summed FLOPs and bytes.
#include <cstdint>
#include <vector>

namespace trainvp {

struct Kernel {
  enum class Kind : std::uint8_t {
    Gemm,       // count GEMMs of (m x k) x (k x n), on tensor cores
    Attention,  // fused (FlashAttention-2 style) attention: count heads, m queries over n keys each, head width k
    Memory,     // HBM-bound: `bytes` read and written, no tensor-core work
  };
  // How Megatron's tensor parallelism over t GPUs divides it: a column-parallel GEMM its n, a
  // row-parallel GEMM its k (and their backward GEMMs the dimension that follows: a row-parallel
  // weight's gradient its m), attention its heads, a kernel on the split width its bytes; a
  // replicated one (a norm, a residual add on the full width) stays whole unless sequence
  // parallelism divides its tokens.
  enum class Split : std::uint8_t { Replicated, M, N, K, Heads, Bytes };

  Kind kind = Kind::Memory;
  Split split = Split::Replicated;
  double m = 0, n = 0, k = 0;
  double count = 1;       // GEMMs of this shape (a mixture's experts, batched attention GEMMs); attention: heads
  double bytes = 0;       // Memory: HBM traffic; GEMM and attention: their operands' (for reports)
  bool causal = false;    // attention: each query attends to the keys before it (half the work)
  bool backward = false;  // attention: the backward kernel (dQ, dK, dV: 2.5x the forward's matmul work)

  // The tensor-core FLOPs the kernel executes: 2mnk per GEMM; a flash forward 4·m·n·k per head,
  // halved when causal, its backward 2.5 times that (FlashAttention-2's own count).
  double flops() const;
};

// The kernels of a layer's three phases, per micro-batch on one GPU.
struct PhaseKernels {
  std::vector<Kernel> fwd, bwd_input, bwd_weight;
  bool empty() const { return fwd.empty() && bwd_input.empty() && bwd_weight.empty(); }
};

// `k` on one of t tensor-parallel ranks (`sequence_parallel`: replicated kernels split too).
Kernel tp_shard(const Kernel& k, int t, bool sequence_parallel);

}  // namespace trainvp
