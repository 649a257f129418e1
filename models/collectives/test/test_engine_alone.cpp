// The collective engine alone, as ns-3 tests a device: p stub endpoints in a ring, each joined to
// the next by one link direction (a LinkDir), a RouteProvider stub, and a protocol checker on
// every socket pair. A ring all-reduce of B bytes in one chunk per transfer is 2(p - 1) steps, each
// starting when the previous step's chunk has arrived: the last rank is done at
// 2(p - 1) x (wire time of B/p bytes with their framing + the link's latency), to the picosecond.
#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <tlm_utils/simple_target_socket.h>

#include "models/collectives/engine.hpp"
#include "models/collectives/program.hpp"
#include "models/link/chunk.hpp"
#include "models/link/endpoint.hpp"
#include "models/link/link_dir.hpp"
#include "models/link/test/stub_endpoint.hpp"
#include "models/link/route_provider.hpp"
#include "platform/core/run_context.hpp"
#include "platform/core/sim_time.hpp"
#include "platform/core/test/at_modules.hpp"
#include "platform/core/test/checked_wiring.hpp"
#include "platform/core/test/own_process.hpp"

namespace trainvp {
namespace test_engine_alone {  // named for the file: unity builds join test files (cmake/unit_tests.cmake)

using test::StubEndpoint;

// Every rank reaches only the next one, by its port 0.
struct RingRoutes : RouteProvider {
  int p;
  Route to_next{{0}, {}};
  explicit RingRoutes(int ranks) : p(ranks) {}
  const Route& route(int src, int dst, std::uint32_t) override {
    EXPECT_EQ(dst, (src + 1) % p) << "a ring step to a rank that is not the next";
    return to_next;
  }
};

// 100 Gbit/s is 80 ps a byte: every wire time below is exact. 0.5 us of latency; packets of 4096
// bytes with 82 of framing (LinkDirParams' defaults); a buffer that never pushes back.
LinkDirParams link() {
  LinkDirParams l;
  l.bandwidth_bps = 100e9, l.latency_ps = 500000, l.buffer = 64 << 20;
  return l;
}

struct Ring {
  RunContext ctx{1, false};
  std::vector<std::unique_ptr<StubEndpoint>> eps;
  std::vector<std::unique_ptr<LinkDir>> links;
  RingRoutes routes;
  test::CheckedWiring wiring;
  std::unique_ptr<CollectiveEngine> engine;

  Ring(int p, std::uint32_t chunk) : routes(p) {
    for (int i = 0; i < p; ++i) {
      eps.push_back(std::make_unique<StubEndpoint>(("ep" + std::to_string(i)).c_str()));
      links.push_back(std::make_unique<LinkDir>(("l" + std::to_string(i)).c_str(), "ep" + std::to_string(i) + "->next",
                                                link(), chunk, ctx));
    }
    for (int i = 0; i < p; ++i) {
      wiring.bind(eps[static_cast<std::size_t>(i)]->out, links[static_cast<std::size_t>(i)]->in);
      wiring.bind(links[static_cast<std::size_t>(i)]->out, eps[static_cast<std::size_t>((i + 1) % p)]->in);
    }
    std::vector<ChunkEndpoint*> ranks;
    for (auto& e : eps) ranks.push_back(e.get());
    engine = std::make_unique<CollectiveEngine>("engine", ranks, routes, chunk, ctx);
  }
};

// Runs an all-reduce of `bytes` over the ring's p ranks and returns each rank's done time.
std::vector<std::int64_t> all_reduce(Ring& ring, int p, std::uint64_t bytes, std::uint32_t chunk) {
  std::vector<int> comm, nodes;
  for (int i = 0; i < p; ++i) comm.push_back(i), nodes.push_back(i);
  const RingLayout one_channel{1, RingOrder::Rank, {}};
  std::vector<std::int64_t> done(static_cast<std::size_t>(p), -1);
  const int id = ring.engine->launch(
      build_program(CollectiveOp::AllReduce, CollectiveAlgo::Ring, comm, bytes, chunk, nodes, 0, nullptr, &one_channel),
      CollectiveOp::AllReduce, CollectiveAlgo::Ring, bytes, "ar",
      [&done](int rank) { done[static_cast<std::size_t>(rank)] = now_ps(); });
  for (int r = 0; r < p; ++r) ring.engine->join(id, r);
  sc_core::sc_start();
  return done;
}

std::int64_t step_ps(std::uint64_t bytes) {  // one chunk of `bytes`: its wire time, then the latency
  const LinkDirParams l = link();
  return static_cast<std::int64_t>(framed_bytes(bytes, l.mtu, l.overhead, false)) * 80 + l.latency_ps;
}

TEST(EngineAlone, RingAllReduceIsTwoPMinusOneStepsOfItsChunk) {
  for (int p : {2, 4}) {
    test::in_own_process([p] {
      const std::uint64_t bytes = 4u << 20;  // B/p: 2 MiB or 1 MiB, one chunk each
      const std::uint32_t chunk = 4u << 20;
      Ring ring(p, chunk);
      const std::vector<std::int64_t> done = all_reduce(ring, p, bytes, chunk);
      const std::int64_t expected = 2 * (p - 1) * step_ps(bytes / static_cast<std::uint64_t>(p));
      for (int r = 0; r < p; ++r) EXPECT_EQ(done[static_cast<std::size_t>(r)], expected) << "p " << p << " rank " << r;
      // Each link carried its rank's 2(p - 1) transfers of B/p, one chunk each.
      for (const auto& l : ring.links) {
        EXPECT_EQ(l->stats().chunks, static_cast<std::uint64_t>(2 * (p - 1)));
        EXPECT_EQ(l->stats().payload_bytes,
                  2 * static_cast<std::uint64_t>(p - 1) * (bytes / static_cast<std::uint64_t>(p)));
      }
      const CollectiveRecord& rec = ring.engine->records().back();
      EXPECT_EQ(rec.start_ps, 0);
      EXPECT_EQ(rec.end_ps, expected);
      EXPECT_EQ(rec.transfers, static_cast<std::uint64_t>(2 * (p - 1) * p));
      ring.wiring.expect_no_violations();
      ring.wiring.expect_all_completed();
    });
  }
}

// Records when the engine's quiet event fires (RunEnd's wake-up under background traffic).
struct QuietProbe : sc_core::sc_module {
  std::vector<std::int64_t> fired;
  QuietProbe(sc_core::sc_module_name name, const CollectiveEngine& e) : sc_module(name) {
    SC_HAS_PROCESS(QuietProbe);
    SC_METHOD(on_quiet);
    sensitive << e.quiet_event();
    dont_initialize();
  }
  void on_quiet() { fired.push_back(now_ps()); }
};

// moving() counts the transfers under way: the p first-step transfers right after the joins, none
// once the last has arrived, and the quiet event fires then, once (#45: a run with congestion
// ends only when nothing moves). A background collective counts for nothing.
TEST(EngineAlone, MovingCountsTransfersUnderWayAndQuietFiresWhenTheLastArrives) {
  for (bool background : {false, true}) {
    test::in_own_process([background] {
      const int p = 4;
      const std::uint64_t bytes = 4u << 20;
      const std::uint32_t chunk = 4u << 20;
      Ring ring(p, chunk);
      QuietProbe probe("probe", *ring.engine);
      std::vector<int> comm{0, 1, 2, 3};
      const RingLayout one_channel{1, RingOrder::Rank, {}};
      const int id = ring.engine->launch(build_program(CollectiveOp::AllReduce, CollectiveAlgo::Ring, comm, bytes,
                                                       chunk, comm, 0, nullptr, &one_channel),
                                         CollectiveOp::AllReduce, CollectiveAlgo::Ring, bytes, "ar", [](int) {});
      if (background) ring.engine->set_background(id);
      for (int r = 0; r < p; ++r) ring.engine->join(id, r);
      EXPECT_EQ(ring.engine->moving(), background ? 0u : static_cast<std::size_t>(p));
      sc_core::sc_start(sc_core::sc_time(step_ps(bytes / p) / 2, sc_core::SC_PS));
      EXPECT_EQ(ring.engine->moving(), background ? 0u : static_cast<std::size_t>(p)) << "mid first step";
      sc_core::sc_start();
      EXPECT_EQ(ring.engine->moving(), 0u);
      EXPECT_EQ(ring.engine->in_flight(), 0u);
      if (background) {
        EXPECT_TRUE(probe.fired.empty());
      } else {
        ASSERT_EQ(probe.fired.size(), 1u);
        EXPECT_EQ(probe.fired[0], 2 * (p - 1) * step_ps(bytes / p));
      }
    });
  }
}

// Each GPU rank's call and its return are announced by the engine's trace sources, named as its
// ModelInfo names them: p calls at time 0, p returns at the closed-form end.
TEST(EngineAlone, CallsAndReturnsAreAnnouncedByItsNamedTraceSources) {
  test::in_own_process([] {
    const int p = 4;
    Ring ring(p, 4u << 20);
    const std::vector<TraceSourceBase*>& sources = ring.engine->trace_sources().all();
    ASSERT_EQ(sources.size(), CollectiveEngine::info().trace_sources.size());
    for (std::size_t i = 0; i < sources.size(); ++i)
      EXPECT_EQ(sources[i]->name(), CollectiveEngine::info().trace_sources[i].name);
    std::vector<CollectiveCall> started, ended;
    using Heard = std::function<void(const CollectiveCall&)>;
    ring.engine->trace_sources().connect("call_started", Heard([&](const CollectiveCall& c) { started.push_back(c); }));
    ring.engine->trace_sources().connect("call_ended", Heard([&](const CollectiveCall& c) { ended.push_back(c); }));
    all_reduce(ring, p, 4u << 20, 4u << 20);
    ASSERT_EQ(started.size(), static_cast<std::size_t>(p));
    ASSERT_EQ(ended.size(), static_cast<std::size_t>(p));
    for (int r = 0; r < p; ++r) {
      EXPECT_EQ(started[static_cast<std::size_t>(r)].rank, r);  // joined in rank order
      EXPECT_EQ(started[static_cast<std::size_t>(r)].start_ps, 0);
      EXPECT_EQ(started[static_cast<std::size_t>(r)].comm_size, p);
      EXPECT_EQ(ended[static_cast<std::size_t>(r)].end_ps, 2 * (p - 1) * step_ps((4u << 20) / p));
    }
  });
}

// The position of a rank as the hash gives it, without the hash for small communicators: the last
// of a repeated rank (a device endpoint listed twice), an error for a rank not in it.
TEST(EngineAlone, APositionIsTheHashsAnswerForSmallAndLargeCommunicators) {
  for (const std::vector<int>& ranks :
       {std::vector<int>{7, 3, 9, 3}, std::vector<int>{5},
        std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 3}}) {
    Program pr;
    pr.ranks = ranks;
    const CompiledProgram cp(pr);
    for (int r : ranks) EXPECT_EQ(cp.position_of(r), cp.pos.at(r)) << "rank " << r;
    EXPECT_THROW(cp.position_of(99), std::out_of_range);
  }
}

}  // namespace test_engine_alone
}  // namespace trainvp
