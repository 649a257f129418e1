// A CPU aggregator wired alone, with no GPU: reductions handed to it directly take the roofline
// closed form of docs/aggregators.md, computed here from the presets' published figures:
//   T(k, n) = job_latency + max((k - 1) n / e / (cores x simd_bits / (8 e) x adds/cycle x clock),
//                               (k + 1) n / (mem_bw x mem_efficiency))
// and jobs handed over together run one after the other. A chunk pushed into a port is delivered
// to its collective and counted.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "models/aggregator/aggregator.hpp"
#include "platform/core/sim_time.hpp"
#include "platform/core/test/at_modules.hpp"
#include "platform/core/test/own_process.hpp"
#include "platform/core/tlm/protocol_checker.hpp"

namespace trainvp {
namespace test_aggregator {  // named for the file: unity builds join test files (cmake/unit_tests.cmake)

using test::in_own_process;

AggregatorParams preset(const char* name) {
  AggregatorParams a;
  a.count = 1;
  load_cpu(a.cpu, name, "/cpu");
  return a;
}

// Runs reductions of (bytes, contributors) handed over at t = 0; returns when each finished (ps).
std::vector<std::int64_t> run_jobs(Aggregator& agg, const std::vector<std::pair<std::uint64_t, int>>& jobs) {
  std::vector<std::int64_t> done(jobs.size(), -1);
  sc_core::sc_start(sc_core::SC_ZERO_TIME);
  for (std::size_t i = 0; i < jobs.size(); ++i)
    agg.reduce(jobs[i].first, jobs[i].second, [&done, i] { done[i] = now_ps(); });
  sc_core::sc_start();
  return done;
}

TEST(Aggregator, Xeon8380SumIsMemoryBoundAtTheRooflineClosedForm) {
  in_own_process([] {
    RunContext ctx(1, false);
    Aggregator agg("agg0", preset("xeon-8380"), 4, ctx);
    const double n = 4.0 * 1048576;  // 4 MiB of fp32 from each of 16 GPUs
    const int k = 16;
    // 40 cores x 16 fp32 lanes x 2 adds x 2.3 GHz; 204.8 GB/s x 0.8.
    const double compute = (k - 1) * n / 4 / (40.0 * 16 * 2 * 2.3e9), memory = (k + 1) * n / (204.8e9 * 0.8);
    ASSERT_GT(memory, 10 * compute);  // memory-bound by far
    auto done = run_jobs(agg, {{static_cast<std::uint64_t>(n), k}});
    EXPECT_NEAR(static_cast<double>(done[0]), 2e6 + memory * 1e12, 1.0);
    EXPECT_EQ(agg.stats().jobs, 1u);
    EXPECT_EQ(agg.stats().bytes_in, static_cast<std::uint64_t>(n) * k);
    EXPECT_EQ(agg.stats().bytes_out, static_cast<std::uint64_t>(n));
    EXPECT_EQ(agg.stats().busy_ps, done[0]);
  });
}

TEST(Aggregator, NarrowSlowCpuIsComputeBoundAndBf16HasTwiceTheLanes) {
  in_own_process([] {
    RunContext ctx(1, false);
    AggregatorParams a;
    a.cpu.cores = 2, a.cpu.simd_bits = 128, a.cpu.simd_adds_per_cycle = 1, a.cpu.clock_hz = 1e9;
    a.cpu.mem_bw = 8e12, a.cpu.mem_efficiency = 1, a.cpu.job_latency_ps = 0;
    Aggregator f32("f32", a, 4, ctx), b16("b16", a, 2, ctx);
    const double n = 1048576;
    const int k = 8;
    // fp32: 2 cores x 4 lanes x 1 GHz = 8e9 adds/s; bf16: 8 lanes, 16e9, on twice the elements.
    const double f32_s = (k - 1) * n / 4 / 8e9, b16_s = (k - 1) * n / 2 / 16e9;
    ASSERT_GT(f32_s, 10 * (k + 1) * n / 1e12);  // compute-bound by far
    sc_core::sc_start(sc_core::SC_ZERO_TIME);
    std::int64_t t_f32 = -1, t_b16 = -1;
    f32.reduce(static_cast<std::uint64_t>(n), k, [&] { t_f32 = now_ps(); });
    b16.reduce(static_cast<std::uint64_t>(n), k, [&] { t_b16 = now_ps(); });
    sc_core::sc_start();
    EXPECT_NEAR(static_cast<double>(t_f32), f32_s * 1e12, 1.0);
    EXPECT_NEAR(static_cast<double>(t_b16), b16_s * 1e12, 1.0);
  });
}

TEST(Aggregator, JobsHandedOverTogetherRunOneAfterTheOther) {
  in_own_process([] {
    RunContext ctx(1, false);
    Aggregator agg("agg0", preset("epyc-7763"), 4, ctx);
    // EPYC 7763: memory-bound as well; 204.8 GB/s x 0.8, 2 us per job.
    auto t = [](double n, int k) { return 2e6 + (k + 1) * n / (204.8e9 * 0.8) * 1e12; };
    auto done = run_jobs(agg, {{1 << 20, 4}, {1 << 22, 8}, {1 << 10, 2}});
    EXPECT_NEAR(static_cast<double>(done[0]), t(1 << 20, 4), 1.0);
    EXPECT_NEAR(static_cast<double>(done[1]), t(1 << 20, 4) + t(1 << 22, 8), 2.0);
    EXPECT_NEAR(static_cast<double>(done[2]), t(1 << 20, 4) + t(1 << 22, 8) + t(1 << 10, 2), 3.0);
  });
}

struct Sink : ChunkSink {
  int delivered = 0;
  void chunk_delivered(tlm::tlm_generic_payload& p) override {
    ++delivered;
    p.release();
  }
};

TEST(Aggregator, PortDeliversPushedChunksToTheirCollective) {
  in_own_process([] {
    RunContext ctx(1, false);
    AggregatorParams a = preset("xeon-8380");
    a.nics = 2;
    Aggregator agg("agg0", a, 4, ctx);
    ASSERT_EQ(agg.ports.size(), 2u);
    test::InitiatorModule nic("nic");
    ProtocolChecker chk("chk");
    nic.out.bind(chk.in), chk.out.bind(agg.ports[1]->mem);
    sc_core::sc_start(sc_core::SC_ZERO_TIME);
    Sink sink;
    const Route route{{0}, {}};
    std::vector<unsigned char> buffer(4096);
    for (int i = 0; i < 3; ++i) {
      tlm::tlm_generic_payload* p = nic.pool.acquire();
      ChunkExt* c = chunk_of(*p);
      if (!c) p->set_extension(c = new ChunkExt);
      c->route = &route, c->payload_bytes = 4096, c->sink = &sink;
      p->set_command(tlm::TLM_WRITE_COMMAND), p->set_address(0), p->set_data_ptr(buffer.data());
      p->set_data_length(4096), p->set_streaming_width(4096), p->set_byte_enable_ptr(nullptr);
      p->set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
      nic.at.send(0, p, nullptr);
    }
    sc_core::sc_start();
    EXPECT_EQ(sink.delivered, 3);
    EXPECT_EQ(agg.ports[1]->bytes_in(), 3u * 4096);
    EXPECT_EQ(agg.ports[0]->bytes_in(), 0u);
    EXPECT_TRUE(chk.violations().empty());
  });
}

}  // namespace test_aggregator
}  // namespace trainvp
