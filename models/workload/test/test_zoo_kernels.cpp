// The kernels a zoo transformer layer lists (docs/models.md#kernels): their GEMM shapes are the
// layer's matmuls, their FLOPs add up to the layer's, and attention is one fused kernel or
// Megatron's unfused batched GEMMs.
#include <gtest/gtest.h>

#include "models/workload/kernel.hpp"
#include "models/workload/workload.hpp"

namespace trainvp {
namespace test_zoo_kernels {  // named for the file: unity builds join test files (cmake/unit_tests.cmake)

double gemm_flops(const std::vector<Kernel>& list) {
  double f = 0;
  for (const Kernel& k : list)
    if (k.kind == Kernel::Kind::Gemm) f += k.flops();
  return f;
}

TEST(ZooKernels, Gpt2AttentionLayerListsItsGemmsFusedAttentionAndMemoryKernels) {
  WorkloadShape shape;
  shape.batch = 4, shape.seq = 1024;
  const std::vector<Layer> layers = build_zoo_model("gpt2-medium", shape);  // d 1024, 16 heads
  const Layer& attn = layers[1];
  ASSERT_EQ(attn.name, "h0.attn");
  const double n = 4 * 1024, d = 1024;
  // LayerNorm, the fused QKV GEMM (column-parallel), attention, the projection (row-parallel), the add.
  ASSERT_EQ(attn.kernels.fwd.size(), 5u);
  const Kernel& qkv = attn.kernels.fwd[1];
  EXPECT_EQ(qkv.kind, Kernel::Kind::Gemm);
  EXPECT_EQ(qkv.m, n);
  EXPECT_EQ(qkv.n, 3 * d);
  EXPECT_EQ(qkv.k, d);
  EXPECT_EQ(qkv.split, Kernel::Split::N);
  const Kernel& a = attn.kernels.fwd[2];
  EXPECT_EQ(a.kind, Kernel::Kind::Attention);
  EXPECT_EQ(a.count, 16);
  EXPECT_EQ(a.m, n);
  EXPECT_EQ(a.n, 1024);
  EXPECT_EQ(a.k, 64);
  EXPECT_TRUE(a.causal);
  EXPECT_EQ(attn.kernels.fwd[3].split, Kernel::Split::K);
  EXPECT_EQ(attn.kernels.fwd[0].split, Kernel::Split::Replicated);  // LayerNorm
  // The forward's GEMMs and attention (counted without the causal half, as model FLOPs are) are the
  // layer's forward FLOPs: 2n(3d^2 + d^2) + 4n x 1024 x d.
  EXPECT_DOUBLE_EQ(gemm_flops(attn.kernels.fwd) + 2 * a.flops(), attn.fwd_flops);
  EXPECT_DOUBLE_EQ(gemm_flops(attn.kernels.fwd), 2 * n * (3 * d * d + d * d));
  // dX and dW: one GEMM each per forward GEMM, of the same FLOPs; dX's shapes transposed.
  EXPECT_DOUBLE_EQ(gemm_flops(attn.kernels.bwd_weight), gemm_flops(attn.kernels.fwd));
  EXPECT_DOUBLE_EQ(gemm_flops(attn.kernels.bwd_input), gemm_flops(attn.kernels.fwd));
  const Kernel& dx = attn.kernels.bwd_input[1];
  EXPECT_EQ(dx.m, n);
  EXPECT_EQ(dx.n, d);
  EXPECT_EQ(dx.k, 3 * d);
  EXPECT_EQ(dx.split, Kernel::Split::K);          // the column-parallel weight's dX sums over its split n
  const Kernel& dw = attn.kernels.bwd_weight[1];  // [0] is the LayerNorm's
  EXPECT_EQ(dw.m, d);
  EXPECT_EQ(dw.n, 3 * d);
  EXPECT_EQ(dw.k, n);
}

TEST(ZooKernels, UnfusedAttentionIsMegatronsBatchedGemmsAroundSoftmaxAndDropout) {
  WorkloadShape shape;
  shape.batch = 2, shape.seq = 512, shape.flash_attention = false;
  const Layer attn = build_zoo_model("gpt2-small", shape)[1];  // d 768, 12 heads of 64
  // LayerNorm, QKV, QK^T, softmax, dropout, AV, projection, add.
  ASSERT_EQ(attn.kernels.fwd.size(), 8u);
  const Kernel& scores = attn.kernels.fwd[2];
  EXPECT_EQ(scores.kind, Kernel::Kind::Gemm);
  EXPECT_EQ(scores.count, 2 * 12);
  EXPECT_EQ(scores.m, 512);
  EXPECT_EQ(scores.n, 512);
  EXPECT_EQ(scores.k, 64);
  EXPECT_EQ(scores.split, Kernel::Split::Heads);
  // The softmax reads and writes the 2 x 12 x 512 x 512 bf16 scores.
  EXPECT_DOUBLE_EQ(attn.kernels.fwd[3].bytes, 2.0 * 12 * 512 * 512 * 2 * 2);
  const Kernel& context = attn.kernels.fwd[5];
  EXPECT_EQ(context.m, 512);
  EXPECT_EQ(context.n, 64);
  EXPECT_EQ(context.k, 512);
  // QK^T and AV are the layer's attention FLOPs, 4 x tokens x keys x width.
  EXPECT_DOUBLE_EQ(scores.flops() + context.flops(), 4.0 * 2 * 512 * 512 * 768);
}

}  // namespace test_zoo_kernels
}  // namespace trainvp
