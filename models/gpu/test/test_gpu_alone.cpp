// One GPU wired alone: a small explicit workload with no synchronization runs its phases back to
// back at their roofline times (worked out by hand here), and its AT sockets move data at the
// closed-form times against a memory target (dma) and from an initiator (mem, its HBM), each
// through a base-protocol checker.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

#include "models/gpu/gpu.hpp"
#include "platform/core/test/at_modules.hpp"
#include "platform/core/test/own_process.hpp"
#include "platform/core/sim_time.hpp"
#include "platform/core/tlm/protocol_checker.hpp"

namespace trainvp {
namespace test_gpu_alone {  // named for the file: unity builds join test files (cmake/unit_tests.cmake)

using test::in_own_process;

std::int64_t ps(double seconds) { return std::llround(seconds * 1e12); }

// Effective rates: bf16 100 TFLOP/s x 0.5, fp32 50 x 0.5; HBM 1 TB/s x 0.8; 5 ns per launch.
GpuParams small_gpu() {
  GpuParams g;
  g.model = "test";
  g.peak_bf16 = 100e12;
  g.peak_fp32 = 50e12;
  g.efficiency = 0.5;
  g.mem_bw = 8e12;
  g.mem_efficiency = 0.8;
  g.mem_latency_ps = 100000;
  g.kernel_launch_ps = 5000;
  return g;
}

Workload two_layers() {
  Workload w;
  w.model = "custom";
  w.optimizer = OptimizerKind::Sgd;
  Layer a;  // compute-bound, no dX (its input is data)
  a.name = "a", a.params = 1000, a.fwd_flops = 1e9, a.fwd_bytes = 1e6, a.bwd_weight_flops = 2e9,
  a.bwd_weight_bytes = 1e6;
  a.bwd_input_kernels = 0;
  Layer b;  // memory-bound forward, a measured dW
  b.name = "b", b.params = 1000, b.fwd_flops = 1e6, b.fwd_bytes = 8e7, b.fwd_kernels = 2, b.bwd_input_flops = 1e9;
  b.bwd_weight_time_ps = 3000000;
  w.layers = {a, b};
  return w;
}

TEST(GpuAlone, PhasesRunBackToBackAtTheirRooflineTimes) {
  in_own_process([] {
    RunContext ctx(1, false);
    const Workload w = two_layers();
    Gpu gpu("gpu", small_gpu(), 0, w, 2, ctx);
    std::vector<std::int64_t> ends;
    gpu.phase_end.connect([&](int, int, const Phase&) { ends.push_back(now_ps()); });
    sc_core::sc_start();
    const double bf16 = 50e12, hbm = 0.8e12, launch = 5e-9;
    // Sgd over 2000 parameters in fp32: 4 FLOPs and 16 B of fp32 state + 2 B gradient + 2 B bf16
    // weight copy per parameter, one kernel per layer.
    const std::vector<std::int64_t> phases = {
        ps(1e9 / bf16 + launch),                                       // fwd a: compute-bound
        ps(8e7 / hbm + 2 * launch),                                    // fwd b: memory-bound, two kernels
        ps(1e9 / bf16 + launch),                                       // dX b
        3000000,                                                       // dW b: measured
        ps(2e9 / bf16 + launch),                                       // dW a (no dX: the first layer)
        ps(std::max(2000 * 4 / 25e12, 2000 * 20 / hbm) + 2 * launch),  // optimizer
    };
    ASSERT_EQ(ends.size(), 2 * phases.size());
    std::int64_t t = 0;
    for (std::size_t i = 0; i < ends.size(); ++i) {
      t += phases[i % phases.size()];
      EXPECT_EQ(ends[i], t) << "phase " << i;
    }
    ASSERT_EQ(gpu.iterations().size(), 2u);
    for (const RankIteration& it : gpu.iterations()) {
      EXPECT_EQ(it.end_ps - it.start_ps, t / 2);
      EXPECT_EQ(it.compute_ps, t / 2);
      EXPECT_EQ(it.blocked_ps, 0);
    }
    EXPECT_TRUE(gpu.finished());
  });
}

TEST(GpuAlone, DmaAndHbmSocketsMoveDataAtTheClosedFormThroughTheChecker) {
  in_own_process([] {
    RunContext ctx(1, false);
    const Workload w = two_layers();
    const GpuParams g = small_gpu();
    Gpu gpu("gpu", g, 0, w, 0, ctx);
    ProtocolChecker dma_chk("dma_chk"), mem_chk("mem_chk");
    test::MemoryModule peer("peer", 50e9, 200000);  // 50 GB/s, 200 ns
    test::InitiatorModule nic("nic");
    gpu.dma.bind(dma_chk.in), dma_chk.out.bind(peer.in);
    nic.out.bind(mem_chk.in), mem_chk.out.bind(gpu.mem);
    const std::uint32_t bytes = 1 << 20;
    const int n = 3;
    std::vector<std::int64_t> dma_done, hbm_done;
    sc_core::sc_start(sc_core::SC_ZERO_TIME);  // multi-sockets are bound at the end of elaboration
    for (int k = 0; k < n; ++k) {
      gpu.dma_transfer(0, tlm::TLM_WRITE_COMMAND, 0x10000u * k, bytes, [&] { dma_done.push_back(now_ps()); });
      nic.at.transfer(0, tlm::TLM_READ_COMMAND, 0x10000u * k, bytes, nullptr,
                      [&](tlm::tlm_generic_payload&) { hbm_done.push_back(now_ps()); });
    }
    sc_core::sc_start();
    ASSERT_EQ(dma_done.size(), static_cast<std::size_t>(n));
    ASSERT_EQ(hbm_done.size(), static_cast<std::size_t>(n));
    for (int k = 0; k < n; ++k) {
      EXPECT_EQ(dma_done[static_cast<std::size_t>(k)], (k + 1) * ps(bytes / 50e9) + 200000) << k;
      EXPECT_EQ(hbm_done[static_cast<std::size_t>(k)], (k + 1) * ps(bytes / 0.8e12) + g.mem_latency_ps) << k;
    }
    EXPECT_EQ(gpu.hbm_bytes_served(), std::uint64_t{bytes} * n);
    for (const ProtocolChecker* c : {&dma_chk, &mem_chk}) {
      EXPECT_TRUE(c->violations().empty()) << c->violations().front();
      EXPECT_EQ(c->completed(), static_cast<std::uint64_t>(n)) << c->name();
    }
  });
}

// Its trace sources are the ones its ModelInfo names, and reachable by name: a layer's gradient is
// ready once per iteration, after its dW (b's before a's: backward runs in reverse), and every
// phase's end is announced, six per iteration.
TEST(GpuAlone, TraceSourcesByNameAreThoseItsModelInfoNames) {
  in_own_process([] {
    RunContext ctx(1, false);
    const Workload w = two_layers();
    Gpu gpu("gpu", small_gpu(), 0, w, 2, ctx);
    const std::vector<TraceSourceBase*>& sources = gpu.trace_sources().all();
    ASSERT_EQ(sources.size(), Gpu::info().trace_sources.size());
    for (std::size_t i = 0; i < sources.size(); ++i) EXPECT_EQ(sources[i]->name(), Gpu::info().trace_sources[i].name);
    std::vector<std::pair<int, int>> ready;  // (iteration, layer)
    int phases = 0;
    gpu.trace_sources().connect("gradient_ready",
                                std::function<void(const GradientReady&)>([&](const GradientReady& g) {
                                  ready.push_back({g.iteration, g.layer});
                                }));
    gpu.trace_sources().connect("phase_end",
                                std::function<void(int, int, const Phase&)>([&](int, int, const Phase&) { ++phases; }));
    sc_core::sc_start();
    EXPECT_EQ(ready, (std::vector<std::pair<int, int>>{{0, 1}, {0, 0}, {1, 1}, {1, 0}}));
    EXPECT_EQ(phases, 12);
  });
}

}  // namespace test_gpu_alone
}  // namespace trainvp
