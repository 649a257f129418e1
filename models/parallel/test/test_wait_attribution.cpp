// ParallelSync's wait attribution on two GPUs whose every wait is worked out by hand: layers with
// measured times, and a transport of two stub endpoints joined by one 100 Gbit/s link direction
// each way (as test_engine_alone wires the engine), where a chunk of B bytes arrives
// step(B) = (B + 82 framing bytes) x 80 ps + 0.5 us after it leaves. Each case has waits of one
// kind only, and each must land in its own bucket (TP, PP or DP) with the others left at 0.
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <tlm_utils/simple_target_socket.h>

#include "models/collectives/ddp.hpp"
#include "models/collectives/engine.hpp"
#include "models/gpu/gpu.hpp"
#include "models/link/chunk.hpp"
#include "models/link/link_dir.hpp"
#include "models/link/test/stub_endpoint.hpp"
#include "models/parallel/parallel_sync.hpp"
#include "models/parallel/pipeline.hpp"
#include "platform/core/test/at_modules.hpp"
#include "platform/core/test/checked_wiring.hpp"
#include "platform/core/test/own_process.hpp"

namespace trainvp {
namespace test_wait_attribution {  // named for the file: unity builds join test files (cmake/unit_tests.cmake)

using test::in_own_process;

constexpr std::int64_t kUs = 1000000;  // ps

using test::StubEndpoint;

// Two ranks: each reaches the other by its one link.
struct OtherRank : RouteProvider {
  Route route_{{0}, {}};
  const Route& route(int src, int dst, std::uint32_t) override {
    EXPECT_NE(src, dst);
    return route_;
  }
};

LinkDirParams link() {
  LinkDirParams l;
  l.bandwidth_bps = 100e9, l.latency_ps = kUs / 2, l.buffer = 64 << 20;  // 80 ps a byte
  return l;
}

// One chunk of `bytes` (at most the 1 MiB chunk): its framed wire time, then the latency.
std::int64_t step(std::uint64_t bytes) { return static_cast<std::int64_t>(bytes + 82) * 80 + kUs / 2; }

Layer timed(const char* name, std::int64_t fwd, std::int64_t dx, std::int64_t dw) {
  Layer l;
  l.name = name, l.params = 1000, l.grad_bytes = 2000;
  l.fwd_time_ps = fwd, l.bwd_input_time_ps = dx, l.bwd_weight_time_ps = dw;
  return l;
}

Workload of(std::vector<Layer> layers) {
  Workload w;
  w.model = "custom";
  w.layers = std::move(layers);
  w.optimizer_time_ps = kUs;
  return w;
}

// Two GPUs under one ParallelSync (its layout, one stage per pipeline stage, its DP strategy),
// the engine over the stubs; run to the end.
struct TwoGpus {
  RunContext ctx{1, false};
  ParallelLayout layout;
  std::vector<ParallelStage> stages;
  OtherRank routes;
  test::CheckedWiring wiring;
  std::vector<std::unique_ptr<StubEndpoint>> eps;
  std::vector<std::unique_ptr<LinkDir>> links;
  std::vector<std::unique_ptr<Gpu>> gpus;
  std::unique_ptr<CollectiveEngine> engine;
  std::unique_ptr<ParallelSync> sync;

  TwoGpus(const ParallelConfig& cfg, const std::vector<Workload>& stage_workloads) : layout(cfg, 2) {
    for (int s = 0; s < cfg.pp; ++s) {
      ParallelStage st;
      st.workload = stage_workloads[static_cast<std::size_t>(s)];
      st.chunk_of.assign(st.workload.layers.size(), 0);
      st.schedule = PhaseSchedule(pipeline_blocks(cfg.schedule, cfg.pp, cfg.micro_batches, 1, s),
                                  chunk_patterns(st.workload, st.chunk_of, 1),
                                  {{PhaseKind::Optimizer, -1, cfg.micro_batches - 1}});
      stages.push_back(std::move(st));
    }
    GpuParams g;
    g.model = "test";
    for (int r = 0; r < 2; ++r) {
      const ParallelStage& st = stages[static_cast<std::size_t>(layout.coord(r).pp)];
      gpus.push_back(
          std::make_unique<Gpu>(("gpu" + std::to_string(r)).c_str(), g, r, st.workload, 1, ctx, -1, st.schedule));
      eps.push_back(std::make_unique<StubEndpoint>(("ep" + std::to_string(r)).c_str()));
      links.push_back(std::make_unique<LinkDir>(("l" + std::to_string(r)).c_str(), "ep" + std::to_string(r) + "->other",
                                                link(), 1u << 20, ctx));
    }
    for (int r = 0; r < 2; ++r) {
      wiring.bind(eps[static_cast<std::size_t>(r)]->out, links[static_cast<std::size_t>(r)]->in);
      wiring.bind(links[static_cast<std::size_t>(r)]->out, eps[static_cast<std::size_t>(1 - r)]->in);
    }
    engine = std::make_unique<CollectiveEngine>("engine", std::vector<ChunkEndpoint*>{eps[0].get(), eps[1].get()},
                                                routes, 1u << 20, ctx);
    engine->set_ring_layout({1, RingOrder::Rank, {}});
    ParallelSync::Parts p;
    p.layout = &layout;
    p.stages = &stages;
    p.gpus = {gpus[0].get(), gpus[1].get()};
    p.engine = engine.get();
    p.nodes_of = {0, 0};
    p.boundary_bytes = 4000;
    if (cfg.dp > 1)
      p.make_dp = [this](const Workload& w, std::vector<Gpu*> group) -> std::unique_ptr<SyncStrategy> {
        return std::make_unique<DdpSync>("ddp", DdpConfig{}, w, std::move(group), *engine, std::vector<int>{0, 0}, 1,
                                         ctx);
      };
    sync = std::make_unique<ParallelSync>("parallel", std::move(p), ctx);
  }
  void run() {
    sc_core::sc_start();
    wiring.expect_no_violations();
    for (auto& g : gpus) EXPECT_EQ(g->iterations().size(), 1u) << g->name() << " did not finish its iteration";
  }
  std::int64_t blocked(int rank, WaitKind k) const {
    return sync->rank_iteration(rank, 0).blocked[static_cast<int>(k)];
  }
  std::int64_t comm(int rank, WaitKind k) const { return sync->rank_iteration(rank, 0).comm[static_cast<int>(k)]; }
};

// Pipeline: stage 0 holds layer a (forward 10 us, no dX as the first layer, dW 20 us), stage 1
// layer b (forward 10 us, dX 15 us, dW 5 us); GPipe over 2 micro-batches; the 4000-byte
// activations and gradients take S = step(4000) = 0.82656 us; sends overlap compute (overlap_p2p).
//   stage 0: F0 0-10, F1 10-20 (sending at 10 and 20), B0 once mb0's gradient is in at 50 + 2S.
//   stage 1: F0 once mb0's activation is in at 10 + S, to 20 + S; F1's is in at 20 + S: no wait;
//            B0 (dX, dW) 30 + S to 50 + S, sent then; B1 50 + S to 70 + S, sent then.
//   stage 0: B0 50 + 2S to 70 + 2S, when mb1's gradient is in: no wait.
// So stage 0 waits 30 + 2S and stage 1 10 + S, both PP; each has four sends of S in flight, apart.
TEST(ParallelWaits, PipelineWaitsAreThePipelineBubbleByHand) {
  in_own_process([] {
    ParallelConfig cfg;
    cfg.pp = 2, cfg.micro_batches = 2, cfg.schedule = PipelineScheduleKind::GPipe;
    TwoGpus t(cfg, {of({timed("a", 10 * kUs, 0, 20 * kUs)}), of({timed("b", 10 * kUs, 15 * kUs, 5 * kUs)})});
    t.run();
    const std::int64_t s = step(4000);
    EXPECT_EQ(s, 826560);
    EXPECT_EQ(t.blocked(0, WaitKind::Pp), 30 * kUs + 2 * s);
    EXPECT_EQ(t.blocked(1, WaitKind::Pp), 10 * kUs + s);
    for (int r : {0, 1}) {
      EXPECT_EQ(t.blocked(r, WaitKind::Tp), 0) << r;
      EXPECT_EQ(t.blocked(r, WaitKind::Dp), 0) << r;
      EXPECT_EQ(t.comm(r, WaitKind::Pp), 4 * s) << r;
    }
    // The iteration: stage 0's last backward ends at 90 + 2S, then its 1 us optimizer step.
    EXPECT_EQ(t.gpus[0]->iterations()[0].end_ps, 91 * kUs + 2 * s);
  });
}

// Tensor parallelism over both GPUs: layer c (forward 10 us, dX 15 us, dW 1 us) all-reduces 8000
// bytes after its forward and after its dX: a ring of two, 2 x step(4000) = 2S each. The dX waits
// for the first (10 to 10 + 2S); the dW does not wait for the second (Megatron overlaps it with
// the dX all-reduce): it runs 25 + 2S to 26 + 2S, and the optimizer step waits for the all-reduce
// to end at 25 + 4S: 2S - 1 us more. TP: 4S - 1 us on each GPU, nothing else.
TEST(ParallelWaits, TensorParallelWaitsAreTheAllReducesNotHiddenByHand) {
  in_own_process([] {
    ParallelConfig cfg;
    cfg.tp = 2;
    Layer c = timed("c", 10 * kUs, 15 * kUs, kUs);
    c.tp_fwd_bytes = c.tp_bwd_bytes = 8000;
    TwoGpus t(cfg, {of({c})});
    t.run();
    const std::int64_t s = step(4000);
    for (int r : {0, 1}) {
      EXPECT_EQ(t.blocked(r, WaitKind::Tp), 4 * s - kUs) << r;
      EXPECT_EQ(t.blocked(r, WaitKind::Pp), 0) << r;
      EXPECT_EQ(t.blocked(r, WaitKind::Dp), 0) << r;
      EXPECT_EQ(t.comm(r, WaitKind::Tp), 4 * s) << r;  // two all-reduces of 2S, apart
    }
  });
}

// Data parallelism over both GPUs with DDP: layer d's 2000 gradient bytes are one bucket, whose
// all-reduce starts when its dW ends (the backward's last phase) and takes 2 x step(1000); the
// optimizer step waits for all of it: DP, nothing else.
TEST(ParallelWaits, DataParallelWaitIsTheBucketAllReduceByHand) {
  in_own_process([] {
    ParallelConfig cfg;
    cfg.dp = 2;
    TwoGpus t(cfg, {of({timed("d", 10 * kUs, 15 * kUs, 5 * kUs)})});
    t.run();
    for (int r : {0, 1}) {
      EXPECT_EQ(t.blocked(r, WaitKind::Dp), 2 * step(1000)) << r;
      EXPECT_EQ(t.blocked(r, WaitKind::Tp), 0) << r;
      EXPECT_EQ(t.blocked(r, WaitKind::Pp), 0) << r;
    }
  });
}

// ZeRO-3 over both GPUs: layer e's parameters are gathered before each phase that uses them, the
// first at time 0; 1 ps in, rank 0's first forward waits for that gather, and a GPU's stall report
// names it (layer, direction, micro-batch, iteration), not ZeRO-1/2's per-iteration gather.
TEST(ParallelWaits, AZeroThreeWaitNamesItsLayersGather) {
  in_own_process([] {
    ParallelConfig cfg;
    cfg.dp = 2, cfg.zero = 3;
    TwoGpus t(cfg, {of({timed("e", 10 * kUs, 15 * kUs, 5 * kUs)})});
    sc_core::sc_start(sc_core::sc_time(1, sc_core::SC_PS));
    EXPECT_EQ(t.sync->waiting_for(0, 0, Phase{PhaseKind::Forward, 0, 0}),
              "the ZeRO-3 all-gather of layer 0's parameters for the forward of micro-batch 0 of iteration 0");
    t.run();
  });
}

}  // namespace test_wait_attribution
}  // namespace trainvp
