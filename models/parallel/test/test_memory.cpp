// Per-GPU memory against DOMAIN.md section 7's closed forms (Korthikanti et al. 2022, Table 2;
// mixed-precision Adam's 16 bytes per parameter and ZeRO's sharding), and the in-flight counts.
#include <gtest/gtest.h>

#include <cmath>

#include "models/parallel/in_flight.hpp"
#include "models/parallel/layout.hpp"
#include "models/parallel/memory.hpp"

namespace trainvp {
namespace test_memory {  // named for the file: unity builds join test files (cmake/unit_tests.cmake)

// GPT-3 175B's dimensions: h 12288, a 96.
const double kH = 12288, kA = 96;

// Korthikanti et al.'s Table 2 is of Megatron-LM's unfused attention, which keeps the softmax and
// its dropout (the 5as/h term); the default fused attention keeps neither.
Workload gpt3(int b, int s, bool flash_attention = false) {
  Workload w;
  w.model = "gpt3-175b";
  w.shape.batch = b;
  w.shape.seq = s;
  w.shape.flash_attention = flash_attention;
  w.layers = build_zoo_model(w.model, w.shape);
  w.dims = zoo_transformer_dims(w.model);
  return w;
}

// One transformer layer's activations on one TP rank: its Attention and Mlp halves.
double transformer_layer_bytes(const Workload& full, const ParallelConfig& c) {
  const Workload st = stage_workload(
      full, c, explicit_partition({static_cast<int>(full.layers.size())}, 1, static_cast<int>(full.layers.size())), 0);
  double sum = 0;
  int halves = 0;
  for (const Layer& l : st.layers)
    if (l.name == "h5.attn" || l.name == "h5.mlp")
      sum += static_cast<double>(layer_activation_bytes(st, l, c)), ++halves;
  EXPECT_EQ(halves, 2);
  return sum;
}

struct Case {
  int t;
  bool sp;
  RecomputeKind rc;
};

TEST(ActivationMemory, Gpt3LayerMatchesKorthikantiTable2) {
  const int b = 1, s = 2048;
  const Workload w = gpt3(b, s);
  ASSERT_EQ(w.dims.hidden, 12288);
  ASSERT_EQ(w.dims.heads, 96);
  const double sbh = s * b * kH, as_h = kA * s / kH;
  for (Case k :
       {Case{1, false, RecomputeKind::None}, Case{8, false, RecomputeKind::None}, Case{8, true, RecomputeKind::None},
        Case{8, false, RecomputeKind::Selective}, Case{8, true, RecomputeKind::Selective},
        Case{8, false, RecomputeKind::Full}, Case{8, true, RecomputeKind::Full}}) {
    ParallelConfig c;
    c.tp = k.t, c.dp = 1, c.pp = 1, c.sequence_parallel = k.sp, c.recompute = k.rc;
    const double t = k.t;
    double expected = 0;
    if (k.rc == RecomputeKind::Full) expected = 2 * sbh / (k.sp ? t : 1);
    else if (k.rc == RecomputeKind::Selective) expected = sbh * (k.sp ? 34 / t : 10 + 24 / t);
    else if (k.sp) expected = sbh * (34 / t + 5 * as_h / t);
    else expected = sbh * (10 + 24 / t + 5 * as_h / t);
    if (k.t == 1) {
      EXPECT_DOUBLE_EQ(expected, sbh * (34 + 5 * as_h));
    }
    EXPECT_NEAR(transformer_layer_bytes(w, c), expected, 2.0) << "t " << k.t << " sp " << k.sp;
  }
}

TEST(ActivationMemory, FusedAttentionKeepsNoScoresAsSelectiveRecomputationDoesNot) {
  const Workload flash = gpt3(1, 2048, true);
  const double sbh = 2048.0 * kH;
  ParallelConfig c;
  c.tp = 8, c.dp = 1, c.pp = 1;
  EXPECT_NEAR(transformer_layer_bytes(flash, c), sbh * (10 + 24.0 / 8), 2.0);
  c.recompute = RecomputeKind::Selective;
  EXPECT_NEAR(transformer_layer_bytes(flash, c), sbh * (10 + 24.0 / 8), 2.0);
}

TEST(ActivationMemory, Fp32ActivationsDoubleTheFormula) {
  Workload w = gpt3(2, 1024);
  ParallelConfig c;
  const double bf16 = transformer_layer_bytes(w, c);
  w.shape.dtype = DType::FP32;
  EXPECT_NEAR(transformer_layer_bytes(w, c), 2 * bf16, 2.0);
}

Workload flat(std::uint64_t params_per_layer, int layers) {
  Workload w;
  w.model = "custom";
  for (int i = 0; i < layers; ++i) {
    Layer l;
    l.name = "l" + std::to_string(i);
    l.params = params_per_layer;
    l.activation_bytes = 1000;
    w.layers.push_back(l);
  }
  return w;
}

TEST(StageMemory, OptimizerAndGradientsShardPerZeroStage) {
  const std::uint64_t P = 4800;  // per layer, 2 layers: 9600 params, divisible by d = 8
  const Workload w = flat(P, 2);
  const std::uint64_t n = 2 * P;
  const std::vector<int> chunk_of{0, 0};
  for (int z = 0; z <= 3; ++z) {
    ParallelConfig c;
    c.dp = 8, c.zero = z;
    const StageMemory m = stage_memory(w, c, chunk_of, {1});
    EXPECT_EQ(m.weights, z >= 3 ? 2 * n / 8 : 2 * n) << z;
    EXPECT_EQ(m.gradients, z >= 2 ? 2 * n / 8 : 2 * n) << z;
    EXPECT_EQ(m.optimizer, z >= 1 ? 12 * n / 8 : 12 * n) << z;
    EXPECT_EQ(m.activations, 2000u);
    if (z == 0) {
      EXPECT_EQ(m.weights + m.gradients + m.optimizer, 16 * n);
    }
    // ZeRO-3 also holds the whole layers it computes on: prefetch 2 x one layer of P bf16 params.
    EXPECT_EQ(m.gathered, z >= 3 ? 2 * 2 * P : 0u) << z;
    if (z == 3) {
      EXPECT_EQ(m.weights + m.gradients + m.optimizer, 16 * n / 8);
      EXPECT_EQ(m.total(), 16 * n / 8 + 4 * P + 2000);
    }
  }
  // With d = 1 nothing is sharded, so nothing is gathered either.
  ParallelConfig alone;
  alone.zero = 3;
  EXPECT_EQ(stage_memory(w, alone, chunk_of, {1}).gathered, 0u);
  Workload sgd = w;
  sgd.optimizer = OptimizerKind::Sgd;
  EXPECT_EQ(stage_memory(sgd, ParallelConfig{}, chunk_of, {1}).optimizer, 8 * n);
  sgd.optimizer = OptimizerKind::None;
  EXPECT_EQ(stage_memory(sgd, ParallelConfig{}, chunk_of, {1}).optimizer, 0u);
}

TEST(StageMemory, ActivationsScaleWithEachChunksInFlightCount) {
  const Workload w = flat(10, 3);
  const StageMemory m = stage_memory(w, ParallelConfig{}, {0, 1, 1}, {4, 3});
  EXPECT_EQ(m.activations, 1000u * 4 + 2 * 1000u * 3);
  EXPECT_THROW(stage_memory(w, ParallelConfig{}, {0, 1, 2}, {4, 3}), std::invalid_argument);
}

TEST(StageMemory, Gpt3WeightsOnAStageAreItsShardedParams) {
  const Workload w = gpt3(1, 2048);
  ParallelConfig c;
  c.tp = 8, c.pp = 16, c.dp = 1;
  const StagePartition part = balanced_partition(std::vector<double>(w.layers.size(), 1.0), 16);
  std::vector<int> chunk_of;
  const Workload st = stage_workload(w, c, part, 5, &chunk_of);
  // An interior stage holds only transformer halves: 12h^2 + 13h per layer, matrices (12h^2
  // weights, QKV and fc biases 3h + 4h... ) split by t, vectors whole.
  std::uint64_t expected = 0;
  for (const Layer& l : st.layers) {
    ASSERT_NE(l.part, Layer::Part::Other);
    const std::uint64_t h = 12288;
    expected +=
        l.part == Layer::Part::Attention ? 4 * h * h / 8 + (2 * h + 3 * h + h) : 8 * h * h / 8 + (2 * h + 4 * h + h);
  }
  EXPECT_EQ(st.total_params(), expected);
  EXPECT_EQ(stage_memory(st, c, chunk_of, {1}).weights, 2 * expected);
}

TEST(InFlight, GPipeHoldsEveryMicroBatchAnd1F1BAtMostTheStagesAhead) {
  ParallelConfig c;
  c.pp = 4, c.micro_batches = 8;
  c.schedule = PipelineScheduleKind::GPipe;
  EXPECT_EQ(peak_in_flight(c, 0), std::vector<int>{8});
  c.schedule = PipelineScheduleKind::OneFOneB;
  for (int k = 0; k < 4; ++k) EXPECT_EQ(peak_in_flight(c, k), std::vector<int>{4 - k});
  c.micro_batches = 2;
  EXPECT_EQ(peak_in_flight(c, 0), std::vector<int>{2});  // min(p - k, m)
}

TEST(InFlight, InterleavedFollowsMegatronsOrder) {
  ParallelConfig c;
  c.pp = 4, c.virtual_stages = 2, c.micro_batches = 4;
  c.schedule = PipelineScheduleKind::Interleaved;
  // Stage 0's warm-up, (p - 1) x 2 + (v - 1) x p = 10 forwards, covers all m v = 8: every chunk
  // holds all m micro-batches.
  EXPECT_EQ(peak_in_flight(c, 0), (std::vector<int>{4, 4}));
  // The last stage warms up with (v - 1) p = 4 forwards (micro-batches 0-3 on chunk 0). Then each
  // forward is followed by a backward: forwards 4-7 (chunk 1) pair with backwards 0-3 (chunk 1,
  // backwards start from the last chunk), so chunk 1 never holds more than 1; forwards 8-11
  // (chunk 0) pair with backwards 4-7 (chunk 0): chunk 0 peaks at 4 + 1.
  c.micro_batches = 8;
  EXPECT_EQ(peak_in_flight(c, 3), (std::vector<int>{5, 1}));
}

}  // namespace test_memory
}  // namespace trainvp

namespace trainvp {
namespace test_memory {

// ZeRO-3 holds at most `prefetch` gathered layers at once: D x the largest layer's parameters.
TEST(StageMemory, ZeroThreeGatheredParametersArePrefetchTimesTheLargestLayer) {
  Workload w;
  w.shape.dtype = DType::BF16;
  for (std::uint64_t params : {1000ull, 0ull, 5000ull, 3000ull}) {
    Layer l;
    l.params = params;
    w.layers.push_back(l);
  }
  for (int d : {1, 2, 3}) EXPECT_EQ(zero3_gathered_bytes(w, d), static_cast<std::uint64_t>(d) * 5000 * 2) << d;
  w.shape.dtype = DType::FP32;
  EXPECT_EQ(zero3_gathered_bytes(w, 2), 2u * 5000 * 4);
}

}  // namespace test_memory
}  // namespace trainvp
