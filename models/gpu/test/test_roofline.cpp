// Roofline phase times against hand computation, and the data-parallel schedule's shape.
#include <gtest/gtest.h>

#include "models/gpu/gpu_params.hpp"
#include "models/gpu/phase.hpp"
#include "models/gpu/roofline.hpp"

namespace trainvp {
namespace test_roofline {  // named for the file: unity builds join test files (cmake/unit_tests.cmake)

GpuParams h100() {
  GpuParams g;
  load_gpu(g, "H100-SXM5-80GB", "/gpu");
  return g;
}

TEST(Roofline, ComputeBoundPhaseIsFlopsOverEffectivePeakPlusLaunches) {
  GpuParams g = h100();  // 989 TFLOPS bf16 x 0.5; 4 us per launch
  PhaseWork w{1e12, 1e6, 3, -1};
  double expected = 1e12 / (989e12 * 0.5) + 3 * 4e-6;
  EXPECT_EQ(phase_time_ps(g, DType::BF16, w, 1.0), std::llround(expected * 1e12));
}

TEST(Roofline, MemoryBoundPhaseIsBytesOverEffectiveBandwidthPlusLaunches) {
  GpuParams g = h100();  // 3.35 TB/s x 0.887 (STREAM Triad's 2.97 TB/s)
  PhaseWork w{1e6, 1e9, 1, -1};
  double expected = 1e9 / (3.35e12 * 0.887) + 4e-6;
  EXPECT_EQ(phase_time_ps(g, DType::BF16, w, 1.0), std::llround(expected * 1e12));
}

TEST(Roofline, DtypeSelectsThePeak) {
  GpuParams g = h100();
  PhaseWork w{1e12, 0, 0, -1};
  EXPECT_EQ(phase_time_ps(g, DType::FP32, w, 1.0), std::llround(1e12 / (67e12 * 0.5) * 1e12));
  EXPECT_EQ(phase_time_ps(g, DType::FP8, w, 1.0), std::llround(1e12 / (1979e12 * 0.5) * 1e12));
}

TEST(Roofline, SpeedFactorDividesAndLaunchScaleMultipliesOnlyLaunches) {
  GpuParams g = h100();
  PhaseWork w{1e12, 0, 10, -1};
  double base = 1e12 / (989e12 * 0.5);
  EXPECT_EQ(phase_time_ps(g, DType::BF16, w, 0.8), std::llround((base + 10 * 4e-6) / 0.8 * 1e12));
  EXPECT_EQ(phase_time_ps(g, DType::BF16, w, 1.0, 5.0), std::llround((base + 50 * 4e-6) * 1e12));
}

TEST(Roofline, MeasuredTimeReplacesRooflineButStillScalesWithSpeed) {
  GpuParams g = h100();
  PhaseWork w{1e15, 1e12, 100, 2000000};  // 2 us measured
  EXPECT_EQ(phase_time_ps(g, DType::BF16, w, 1.0), 2000000);
  EXPECT_EQ(phase_time_ps(g, DType::BF16, w, 0.5), 4000000);
}

TEST(Roofline, OptimizerTrafficPerParameter) {
  EXPECT_EQ(optimizer_bytes_per_param(OptimizerKind::Adam, DType::BF16, DType::BF16), 24 + 2 + 2);
  EXPECT_EQ(optimizer_bytes_per_param(OptimizerKind::Adam, DType::FP32, DType::FP32), 24 + 4);
  EXPECT_EQ(optimizer_bytes_per_param(OptimizerKind::Sgd, DType::BF16, DType::FP32), 16 + 4 + 2);
  EXPECT_EQ(optimizer_bytes_per_param(OptimizerKind::None, DType::BF16, DType::BF16), 0);
}

TEST(PhaseSchedule, ForwardThenReverseBackwardSkippingLayersWithoutInputGradientWork) {
  auto s = data_parallel_schedule({false, true, true}, 1, true);
  std::string got;
  for (std::uint64_t i = 0; i < s.size(); ++i)
    got += std::string(phase_label(s.at(i).kind)) + (s.at(i).layer >= 0 ? std::to_string(s.at(i).layer) : "") + " ";
  EXPECT_EQ(got, "fwd0 fwd1 fwd2 bwd_in2 bwd_w2 bwd_in1 bwd_w1 bwd_w0 optimizer ");
}

TEST(PhaseSchedule, MicroBatchesRepeatForwardBackwardAndStepOnce) {
  auto s = data_parallel_schedule({false, true, true, true}, 3, true);
  EXPECT_EQ(s.size(), 3u * (4 + 3 + 4) + 1);
  EXPECT_EQ(s.at(s.size() - 1).kind, PhaseKind::Optimizer);
  // The micro-batch index runs 0..2 over the repeats; the pattern is stored once.
  EXPECT_EQ(s.at(11).micro_batch, 1);
  EXPECT_EQ(s.at(11).kind, PhaseKind::Forward);
  EXPECT_EQ(s.at(21).micro_batch, 1);
  EXPECT_EQ(s.at(22).micro_batch, 2);
  EXPECT_EQ(s.slots(), 4u + 3 + 4 + 1);
  EXPECT_EQ(s.slot(22), 0u);
  EXPECT_EQ(data_parallel_schedule({true, true, true, true}, 1, false).size(), 12u);
}

TEST(PhaseSchedule, FirstLayerInputGradientRunsOnlyWhenItHasWork) {
  Workload w;
  w.layers.resize(2);
  w.layers[0].bwd_input_kernels = 0;  // an embedding lookup: nothing to do for dX
  EXPECT_EQ(data_parallel_schedule(w).size(), 2u + 1 + 2 + 1);
  w.layers[0].bwd_input_kernels = 1;  // e.g. backward through a stem's BN/ReLU before its conv's dW
  EXPECT_EQ(data_parallel_schedule(w).size(), 2u + 2 + 2 + 1);
}

TEST(GpuPresets, EveryPresetLoadsAndMatchesDataSheetPeaks) {
  for (auto& p : gpu_presets()) {
    GpuParams g;
    EXPECT_NO_THROW(load_gpu(g, p.name, "/gpu")) << p.name;
    EXPECT_GT(g.peak_bf16, 0) << p.name;
  }
  GpuParams a100, h800, h200;
  load_gpu(a100, "A100-SXM4-80GB", "/g");
  load_gpu(h800, "H800-SXM", "/g");
  load_gpu(h200, "H200", "/g");
  EXPECT_DOUBLE_EQ(a100.peak_bf16, 312e12);
  EXPECT_DOUBLE_EQ(a100.mem_bw, 2.039e12 * 8);
  EXPECT_DOUBLE_EQ(h800.nvlink_bw, 200e9 * 8);
  EXPECT_DOUBLE_EQ(h200.mem_bw, 4.8e12 * 8);
  EXPECT_DOUBLE_EQ(h200.peak_bf16, 989e12);
}

TEST(GpuPresets, ObjectWithPresetOverridesOnlyTheGivenKeys) {
  GpuParams g;
  json r = load_gpu(g, json{{"preset", "H100-SXM5-80GB"}, {"efficiency", 0.35}, {"model", "H100-slow"}}, "/g");
  EXPECT_DOUBLE_EQ(g.efficiency, 0.35);
  EXPECT_DOUBLE_EQ(g.peak_bf16, 989e12);
  EXPECT_EQ(g.model, "H100-slow");
  EXPECT_EQ(r["preset"], "H100-SXM5-80GB");
  EXPECT_EQ(r["mem_bw"], "3.35TB/s");
}

}  // namespace test_roofline
}  // namespace trainvp
