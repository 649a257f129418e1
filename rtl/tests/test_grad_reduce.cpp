// Verilator test bench of rtl/grad_reduce.sv, driven from GoogleTest (docs/rtl.md, "Tests").
//  - GradReduce/<variant>.*: directed tests (CSRs, every special case, FTZ, order independence,
//    error flags, counters, full-buffer back-pressure, abort, throughput/latency, interrupt)
//    and a shorter random run per dtype, for every compiled variant;
//  - GradReduceLong.*: at least 1,000,000 random reduced lines per dtype on the LANES=8 variant.
// Every output line is compared bit for bit with models/cxl/reduce_ref.hpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <deque>
#include <map>
#include <string>

#include "Vgrad_reduce_l16.h"
#include "Vgrad_reduce_l32.h"
#include "Vgrad_reduce_l8.h"
#include "Vgrad_reduce_l8_odd.h"
#include "rtl/tests/grad_reduce_bench.hpp"

namespace trainvp::rtl {
namespace test_grad_reduce {  // named for the file: unity builds join test files (cmake/unit_tests.cmake)

template <class M, int L>
struct Variant {
  using Model = M;
  static constexpr int kLanes = L;
};

using Variants = ::testing::Types<Variant<Vgrad_reduce_l8, 8>, Variant<Vgrad_reduce_l16, 16>,
                                  Variant<Vgrad_reduce_l32, 32>, Variant<Vgrad_reduce_l8_odd, 8>>;

struct VariantNames {
  template <class T>
  static std::string GetName(int i) {
    static const char* names[] = {"L8", "L16", "L32", "L8odd"};
    return names[i];
  }
};

// Expected parameters of each variant (rtl/CMakeLists.txt).
struct Params {
  int lanes, max_c, depth, slots, idx_w;
  const char* name;
};
template <class M>
Params expected_params();
template <>
Params expected_params<Vgrad_reduce_l8>() {
  return {8, 8, 8, 4, 24, "L8"};
}
template <>
Params expected_params<Vgrad_reduce_l16>() {
  return {16, 8, 8, 4, 24, "L16"};
}
template <>
Params expected_params<Vgrad_reduce_l32>() {
  return {32, 8, 8, 4, 24, "L32"};
}
template <>
Params expected_params<Vgrad_reduce_l8_odd>() {
  return {8, 5, 3, 3, 10, "L8odd"};
}

template <class V>
class GradReduce : public ::testing::Test {
 protected:
  using D = Driver<typename V::Model, V::kLanes>;
};
TYPED_TEST_SUITE(GradReduce, Variants, VariantNames);

// ------------------------------------------------------------------------------------ helpers

template <class D>
JobConfig simple_job(D& d, std::uint32_t n, bool bf16, bool ftz, std::uint32_t len0) {
  JobConfig j;
  j.n = n;
  j.bf16 = bf16;
  j.ftz = ftz;
  j.len.assign(static_cast<std::size_t>(d.slots), 0);
  j.base.assign(static_cast<std::size_t>(d.slots), 0);
  j.len[0] = len0;
  for (int s = 0; s < d.slots; ++s) j.base[static_cast<std::size_t>(s)] = 0x1000'0000ull * (s + 1);
  return j;
}

// Sends `items` in this order (respecting the caller's window), collects `expect_out` lines.
template <class D>
std::map<std::uint64_t, OutLine> run_items(D& d, const JobConfig& j, const std::vector<Contribution>& items,
                                           std::size_t expect_out, std::uint64_t max_cycles = 200000) {
  std::deque<Contribution> q(items.begin(), items.end());
  std::map<std::uint64_t, OutLine> out;
  std::size_t dups = 0;
  d.source = [&](Contribution& c) {
    if (q.empty()) return false;
    c = q.front();
    q.pop_front();
    return true;
  };
  d.sink = [&](const OutLine& o) {
    if (!out.emplace(line_key(o.slot, o.idx), o).second) ++dups;
  };
  d.configure(j);
  d.start();
  bool ok = d.run_until([&] { return q.empty() && !d.offering() && out.size() >= expect_out; }, max_cycles);
  d.ticks(20);  // nothing more may come out
  EXPECT_TRUE(ok) << "timeout: " << out.size() << " of " << expect_out << " lines";
  EXPECT_EQ(out.size(), expect_out);
  EXPECT_EQ(dups, 0u);
  d.source = nullptr;
  d.sink = nullptr;
  return out;
}

// Contributions of one line, data[cid][lane].
inline std::vector<Contribution> line_items(std::uint32_t slot, std::uint32_t idx,
                                            const std::vector<std::vector<std::uint32_t>>& data,
                                            const std::vector<std::uint32_t>& order) {
  std::vector<Contribution> v;
  for (std::uint32_t cid : order) {
    Contribution c;
    c.slot = slot;
    c.idx = idx;
    c.cid = cid;
    c.data = data[cid];
    v.push_back(c);
  }
  return v;
}

inline std::vector<std::uint32_t> iota_order(std::uint32_t n) {
  std::vector<std::uint32_t> o(n);
  for (std::uint32_t i = 0; i < n; ++i) o[i] = i;
  return o;
}

struct RunStats {
  std::uint64_t lines = 0, contributions = 0, cycles = 0, jobs = 0, lanes_checked = 0;
  double wall_s = 0;
};

// Random jobs until `min_lines` reduced lines have been checked. Each job draws N, FTZ, slot
// lengths and bases, the window (lines open at once), valid and ready probabilities, the special
// value rate and (if `errors`) an error-injection rate; every job ends with exact checks of
// STATUS, ERROR, the per-slot counts and the performance counters against what the bench saw.
template <class D>
RunStats run_random(D& d, bool bf16, std::uint64_t min_lines, std::uint64_t seed, std::uint32_t max_job_lines,
                    bool errors) {
  Rng& r = d.rng;
  r = Rng(seed);
  RunStats st;
  const auto t0 = std::chrono::steady_clock::now();
  const std::uint64_t c0 = d.cycle;
  static const double kValid[] = {1.0, 1.0, 0.9, 0.6, 0.25};
  static const double kReady[] = {1.0, 1.0, 0.9, 0.5, 0.15};
  static const double kSpecial[] = {0.0, 0.002, 0.02, 0.2};
  while (st.lines < min_lines) {
    JobConfig j;
    j.n = 1 + r.below(static_cast<std::uint32_t>(d.max_contributors));
    j.bf16 = bf16;
    j.ftz = r.chance(0.5);
    j.len.assign(static_cast<std::size_t>(d.slots), 0);
    j.base.assign(static_cast<std::size_t>(d.slots), 0);
    std::uint32_t max_len = std::min<std::uint32_t>(max_job_lines, 1u << d.idx_w);
    for (int s = 0; s < d.slots; ++s) {
      if (s == 0 || r.chance(0.6)) j.len[static_cast<std::size_t>(s)] = 1 + r.below(max_len);
      j.base[static_cast<std::size_t>(s)] = r.next() & ~std::uint64_t{3};
    }
    TrafficConfig tc;
    tc.window = 1 + r.below(static_cast<std::uint32_t>(d.depth));
    tc.special_rate = kSpecial[r.below(4)];
    tc.error_rate = (errors && r.chance(0.25)) ? 0.003 : 0.0;
    d.valid_prob = kValid[r.below(5)];
    d.ready_prob = kReady[r.below(5)];

    Scoreboard sb;
    RandomTraffic t(r, j, tc, D::kL, d.max_contributors, d.idx_w, sb);
    d.source = [&](Contribution& c) { return t.next(c); };
    d.sink = [&](const OutLine& o) { sb.check(o); };
    d.write(csr::kError, 0x3F);
    d.configure(j);
    d.start();
    std::uint64_t total = 0;
    for (auto l : j.len) total += l;
    bool ok =
        d.run_until([&] { return t.all_sent() && !d.offering() && sb.pending() == 0; }, (total * j.n + 1000) * 60);
    d.ready_prob = 1.0;
    d.source = nullptr;
    d.sink = nullptr;
    const std::string what = "job " + std::to_string(st.jobs) + " n=" + std::to_string(j.n) +
                             " ftz=" + std::to_string(j.ftz) + " window=" + std::to_string(tc.window);
    EXPECT_TRUE(ok) << what << ": stalled with " << sb.pending() << " lines pending";
    EXPECT_EQ(sb.errors(), 0u) << what;
    for (auto& m : sb.messages()) ADD_FAILURE() << what << ": " << m;
    if (!ok || sb.errors()) return st;
    // End-of-job checks.
    EXPECT_EQ(d.read(csr::kStatus), csr::kDone | csr::kIdle) << what;
    EXPECT_EQ(d.read(csr::kError), t.error_bits()) << what;
    if (t.has_first_error()) {
      EXPECT_EQ(d.read(csr::kErrLine), t.first_err_line) << what;
      EXPECT_EQ(d.read(csr::kErrSrc), t.first_err_src) << what;
    }
    EXPECT_EQ(d.read(csr::kLinesIn), d.in_fires) << what;
    EXPECT_EQ(d.read(csr::kLinesOut), d.out_fires) << what;
    EXPECT_EQ(d.out_fires, total) << what;
    EXPECT_EQ(d.in_fires, t.contributions_sent() + t.errors_injected()) << what;
    EXPECT_EQ(d.read(csr::kInStall), d.in_stalls) << what;
    EXPECT_EQ(d.read(csr::kOutStall), d.out_stalls) << what;
    EXPECT_EQ(d.read(csr::kDropped), t.errors_injected()) << what;
    EXPECT_EQ(d.read(csr::kActiveCycles), d.last_out_fire_cycle + 1 - d.start_cycle) << what;
    for (int s = 0; s < d.slots; ++s)
      EXPECT_EQ(d.read(csr::slot_done(static_cast<std::uint32_t>(s))), j.len[static_cast<std::size_t>(s)]) << what;
    st.lines += sb.lines_checked();
    st.lanes_checked += sb.lanes_checked();
    st.contributions += t.contributions_sent();
    ++st.jobs;
    if (::testing::Test::HasFailure()) return st;
  }
  st.cycles = d.cycle - c0;
  st.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return st;
}

void report(const char* what, const RunStats& st) {
  std::printf(
      "[ rtl perf ] %s: %llu jobs, %llu reduced lines (%llu lanes), %llu contributions, "
      "%llu cycles in %.2f s = %.0f cycles/s, %.0f lines/s\n",
      what, static_cast<unsigned long long>(st.jobs), static_cast<unsigned long long>(st.lines),
      static_cast<unsigned long long>(st.lanes_checked), static_cast<unsigned long long>(st.contributions),
      static_cast<unsigned long long>(st.cycles), st.wall_s,
      st.wall_s > 0 ? static_cast<double>(st.cycles) / st.wall_s : 0.0,
      st.wall_s > 0 ? static_cast<double>(st.lines) / st.wall_s : 0.0);
  ::testing::Test::RecordProperty("cycles_per_s", std::to_string(st.wall_s > 0 ? st.cycles / st.wall_s : 0));
}

// ------------------------------------------------------------------------------------ CSRs

TYPED_TEST(GradReduce, CsrResetValues) {
  typename TestFixture::D d;
  const Params p = expected_params<typename TypeParam::Model>();
  EXPECT_EQ(d.lanes, p.lanes);
  EXPECT_EQ(d.max_contributors, p.max_c);
  EXPECT_EQ(d.depth, p.depth);
  EXPECT_EQ(d.slots, p.slots);
  EXPECT_EQ(d.idx_w, p.idx_w);
  bool err = true;
  EXPECT_EQ(d.read(csr::kId, &err), csr::kIdValue);
  EXPECT_FALSE(err);
  EXPECT_EQ(d.read(csr::kParams), static_cast<std::uint32_t>(p.lanes | p.max_c << 8 | p.depth << 16 | p.slots << 24));
  EXPECT_EQ(d.read(csr::kParams2), static_cast<std::uint32_t>(p.idx_w | 1 << 16));  // version 1
  EXPECT_EQ(d.read(csr::kCtrl), 0u);
  EXPECT_EQ(d.read(csr::kConfig), static_cast<std::uint32_t>(p.max_c));  // N = max, fp32, no FTZ
  EXPECT_EQ(d.read(csr::kStatus), csr::kIdle);
  for (std::uint32_t a : {csr::kError, csr::kErrLine, csr::kErrSrc, csr::kIrqEn, csr::kLinesIn, csr::kLinesOut,
                          csr::kInStall, csr::kOutStall, csr::kDropped, csr::kFullCycles, csr::kActiveCycles})
    EXPECT_EQ(d.read(a, &err), 0u) << std::hex << a;
  for (std::uint32_t s = 0; s < static_cast<std::uint32_t>(p.slots); ++s)
    for (std::uint32_t a : {csr::slot_len(s), csr::slot_base_lo(s), csr::slot_base_hi(s), csr::slot_done(s)})
      EXPECT_EQ(d.read(a), 0u) << std::hex << a;
  EXPECT_EQ(d.m().in_ready, 0);  // not started: back-pressure, never loss
  EXPECT_EQ(d.m().out_valid, 0);
  EXPECT_EQ(d.m().irq, 0);
  EXPECT_EQ(d.m().pready, 1);
}

TYPED_TEST(GradReduce, CsrReadWriteMasksAndDecode) {
  typename TestFixture::D d;
  const Params p = expected_params<typename TypeParam::Model>();
  bool err = false;
  // CONFIG: N [7:0], DTYPE [8], FTZ [9]
  d.write(csr::kConfig, 0xFFFFFFFFu, &err);
  EXPECT_FALSE(err);
  EXPECT_EQ(d.read(csr::kConfig), 0x3FFu);
  d.write(csr::kConfig, 0x305u);
  EXPECT_EQ(d.read(csr::kConfig), 0x305u);
  d.write(csr::kConfig, 0);
  EXPECT_EQ(d.read(csr::kConfig), 0u);
  d.write(csr::kIrqEn, 0xFFFFFFFFu);
  EXPECT_EQ(d.read(csr::kIrqEn), 3u);
  d.write(csr::kIrqEn, 0);
  // Per-slot registers are distinct; LEN holds IDX_W + 1 bits; the done count is read-only.
  const std::uint32_t len_mask = static_cast<std::uint32_t>((2ull << p.idx_w) - 1);
  for (std::uint32_t s = 0; s < static_cast<std::uint32_t>(p.slots); ++s) {
    d.write(csr::slot_len(s), 0xFFFFFFF0u + s);
    d.write(csr::slot_base_lo(s), 0xA5A50000u + s);
    d.write(csr::slot_base_hi(s), 0x5A5A0000u + s);
    d.write(csr::slot_done(s), 0xFFFFFFFFu, &err);
    EXPECT_FALSE(err);
  }
  for (std::uint32_t s = 0; s < static_cast<std::uint32_t>(p.slots); ++s) {
    EXPECT_EQ(d.read(csr::slot_len(s)), (0xFFFFFFF0u + s) & len_mask);
    EXPECT_EQ(d.read(csr::slot_base_lo(s)), 0xA5A50000u + s);
    EXPECT_EQ(d.read(csr::slot_base_hi(s)), 0x5A5A0000u + s);
    EXPECT_EQ(d.read(csr::slot_done(s)), 0u);
  }
  // Read-only registers ignore writes (without an error response).
  const std::uint32_t params = d.read(csr::kParams), params2 = d.read(csr::kParams2);
  for (std::uint32_t a :
       {csr::kId, csr::kParams, csr::kParams2, csr::kStatus, csr::kErrLine, csr::kErrSrc, csr::kLinesIn, csr::kLinesOut,
        csr::kInStall, csr::kOutStall, csr::kDropped, csr::kFullCycles, csr::kActiveCycles}) {
    d.write(a, 0xFFFFFFFFu, &err);
    EXPECT_FALSE(err) << std::hex << a;
  }
  EXPECT_EQ(d.read(csr::kId), csr::kIdValue);
  EXPECT_EQ(d.read(csr::kParams), params);
  EXPECT_EQ(d.read(csr::kParams2), params2);
  EXPECT_EQ(d.read(csr::kStatus), csr::kIdle);
  for (std::uint32_t a : {csr::kErrLine, csr::kErrSrc, csr::kLinesIn, csr::kLinesOut, csr::kInStall, csr::kOutStall,
                          csr::kDropped, csr::kFullCycles, csr::kActiveCycles})
    EXPECT_EQ(d.read(a), 0u) << std::hex << a;
  // CTRL reads as zero; DONE_CLR alone starts nothing.
  d.write(csr::kCtrl, csr::kDoneClr);
  EXPECT_EQ(d.read(csr::kCtrl), 0u);
  EXPECT_EQ(d.read(csr::kStatus), csr::kIdle);
  // Unmapped and unaligned offsets answer PSLVERR; reads return 0.
  const std::uint32_t past_slots = 0x100 + 16 * static_cast<std::uint32_t>(p.slots);
  for (std::uint32_t a : {0x00Cu, 0x02Cu, 0x03Cu, 0x05Cu, 0x0FCu, past_slots, 0xFFCu, 0x001u, 0x016u, 0x102u, 0x10Fu}) {
    EXPECT_EQ(d.read(a, &err), 0u) << std::hex << a;
    EXPECT_TRUE(err) << std::hex << a;
    d.write(a, 0xFFFFFFFFu, &err);
    EXPECT_TRUE(err) << std::hex << a;
  }
  // ...and the unaligned writes changed nothing.
  EXPECT_EQ(d.read(csr::slot_len(0)), 0xFFFFFFF0u & len_mask);
  EXPECT_EQ(d.read(csr::kConfig), 0u);
  // ERROR is write-1-to-clear: raise CFG (START with N = 0).
  d.write(csr::kCtrl, csr::kStart);
  EXPECT_EQ(d.read(csr::kError), csr::kErrCfg);
  EXPECT_EQ(d.read(csr::kStatus) & csr::kRunning, 0u);
  d.write(csr::kError, 0);
  EXPECT_EQ(d.read(csr::kError), csr::kErrCfg);
  d.write(csr::kError, ~csr::kErrCfg);
  EXPECT_EQ(d.read(csr::kError), csr::kErrCfg);
  d.write(csr::kError, csr::kErrCfg);
  EXPECT_EQ(d.read(csr::kError), 0u);
  // A reset restores every reset value.
  d.reset();
  EXPECT_EQ(d.read(csr::kConfig), static_cast<std::uint32_t>(p.max_c));
  EXPECT_EQ(d.read(csr::slot_len(0)), 0u);
  EXPECT_EQ(d.read(csr::slot_base_hi(0)), 0u);
}

TYPED_TEST(GradReduce, StartChecksConfigAndRunningLocksConfig) {
  typename TestFixture::D d;
  JobConfig j = simple_job(d, 2, false, false, 1);
  // N = 0, N > MAX_CONTRIBUTORS, all lengths zero: START refused with ERROR.CFG.
  j.n = 0;
  d.configure(j);
  d.write(csr::kCtrl, csr::kStart);
  EXPECT_EQ(d.read(csr::kStatus) & csr::kRunning, 0u);
  EXPECT_EQ(d.read(csr::kError), csr::kErrCfg);
  d.write(csr::kError, 0x3F);
  j.n = static_cast<std::uint32_t>(d.max_contributors) + 1;
  d.configure(j);
  d.write(csr::kCtrl, csr::kStart);
  EXPECT_EQ(d.read(csr::kStatus) & csr::kRunning, 0u);
  EXPECT_EQ(d.read(csr::kError), csr::kErrCfg);
  d.write(csr::kError, 0x3F);
  j.n = 2;
  j.len[0] = 0;
  d.configure(j);
  d.write(csr::kCtrl, csr::kStart);
  EXPECT_EQ(d.read(csr::kStatus) & csr::kRunning, 0u);
  EXPECT_EQ(d.read(csr::kError), csr::kErrCfg);
  d.write(csr::kError, 0x3F);
  // A good configuration starts; while running, configuration writes and START are ignored
  // and raise ERROR.BUSY; IRQ_EN stays writable.
  j.len[0] = 1;
  d.configure(j);
  d.write(csr::kCtrl, csr::kStart);
  EXPECT_EQ(d.read(csr::kStatus), csr::kRunning | csr::kIdle);
  EXPECT_EQ(d.m().in_ready, 1);
  EXPECT_EQ(d.read(csr::kError), 0u);
  d.write(csr::kConfig, 0x305);
  EXPECT_EQ(d.read(csr::kConfig), 2u);
  EXPECT_EQ(d.read(csr::kError), csr::kErrBusy);
  d.write(csr::kError, 0x3F);
  d.write(csr::slot_len(1), 7);
  d.write(csr::slot_base_lo(0), 7);
  EXPECT_EQ(d.read(csr::slot_len(1)), 0u);
  EXPECT_EQ(d.read(csr::slot_base_lo(0)), static_cast<std::uint32_t>(j.base[0]));
  EXPECT_EQ(d.read(csr::kError), csr::kErrBusy);
  d.write(csr::kError, 0x3F);
  d.write(csr::kCtrl, csr::kStart);
  EXPECT_EQ(d.read(csr::kError), csr::kErrBusy);
  d.write(csr::kIrqEn, 1);
  EXPECT_EQ(d.read(csr::kIrqEn), 1u);
  d.write(csr::kError, 0x3F);
  EXPECT_EQ(d.read(csr::kError), 0u);
  EXPECT_EQ(d.read(csr::kStatus) & csr::kRunning, csr::kRunning);
}

// ------------------------------------------------------------------------------------ numerics

struct Case {
  std::uint32_t a, b, sum, sum_ftz;  // sum = (-0 + a) + b, with FTZ off / on
  const char* what;
};

// binary32
const Case kFp32Cases[] = {
    {0x00000000, 0x80000000, 0x00000000, 0x00000000, "+0 + -0 = +0"},
    {0x80000000, 0x00000000, 0x00000000, 0x00000000, "-0 + +0 = +0"},
    {0x80000000, 0x80000000, 0x80000000, 0x80000000, "-0 + -0 = -0"},
    {0x00000000, 0x00000000, 0x00000000, 0x00000000, "+0 + +0 = +0"},
    {0x3F800000, 0xBF800000, 0x00000000, 0x00000000, "1 - 1 = +0"},
    {0xC0400000, 0x40400000, 0x00000000, 0x00000000, "-3 + 3 = +0"},
    {0x7F800000, 0xFF800000, 0x7FC00000, 0x7FC00000, "inf - inf = canonical NaN"},
    {0x7F800000, 0x7F800000, 0x7F800000, 0x7F800000, "inf + inf"},
    {0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, "-inf + -inf"},
    {0x7F800000, 0xFF7FFFFF, 0x7F800000, 0x7F800000, "inf - max"},
    {0xFF800000, 0x3F800000, 0xFF800000, 0xFF800000, "-inf + 1"},
    {0x00000001, 0xFF800000, 0xFF800000, 0xFF800000, "subnormal + -inf"},
    {0x7FC00001, 0x3F800000, 0x7FC00000, 0x7FC00000, "qNaN payload -> canonical"},
    {0xFFC12345, 0x3F800000, 0x7FC00000, 0x7FC00000, "negative qNaN -> canonical"},
    {0x7F800001, 0x3F800000, 0x7FC00000, 0x7FC00000, "sNaN -> canonical quiet"},
    {0x3F800000, 0xFFA00000, 0x7FC00000, 0x7FC00000, "1 + negative sNaN"},
    {0x7FC00000, 0x7F800000, 0x7FC00000, 0x7FC00000, "NaN + inf"},
    {0xFF800001, 0xFFFFFFFF, 0x7FC00000, 0x7FC00000, "NaN + NaN"},
    {0x7F7FFFFF, 0x7F7FFFFF, 0x7F800000, 0x7F800000, "max + max overflows to inf"},
    {0xFF7FFFFF, 0xFF7FFFFF, 0xFF800000, 0xFF800000, "-max + -max = -inf"},
    {0x7F7FFFFF, 0x73000000, 0x7F800000, 0x7F800000, "max + half ulp: tie to even = inf"},
    {0x7F7FFFFF, 0x72FFFFFF, 0x7F7FFFFF, 0x7F7FFFFF, "max + just under half ulp = max"},
    {0x7F7FFFFF, 0xF3000000, 0x7F7FFFFE, 0x7F7FFFFE, "max - half ulp: tie to even (down)"},
    {0x3F800000, 0x33800000, 0x3F800000, 0x3F800000, "1 + 2^-24: tie, even stays"},
    {0x3F800001, 0x33800000, 0x3F800002, 0x3F800002, "odd + half ulp: tie rounds up"},
    {0x3F800000, 0x33800001, 0x3F800001, 0x3F800001, "just above the tie"},
    {0x3F800000, 0xB3000000, 0x3F800000, 0x3F800000, "1 - 2^-25: tie below 1 goes to even 1"},
    {0x3F800000, 0xB3800001, 0x3F7FFFFF, 0x3F7FFFFF, "1 - (2^-24 + 2^-47)"},
    {0x3F800001, 0xBF800000, 0x34000000, 0x34000000, "cancellation: exact 2^-23"},
    {0x3F800000, 0x0D800000, 0x3F800000, 0x3F800000, "1 + 2^-100"},
    {0x3F800000, 0x8D800000, 0x3F800000, 0x3F800000, "1 - 2^-100"},
    {0x4B7FFFFF, 0x3F000000, 0x4B800000, 0x4B800000, "carry to the next binade"},
    {0x00000001, 0x00000001, 0x00000002, 0x00000000, "min subnormal * 2"},
    {0x007FFFFF, 0x00000001, 0x00800000, 0x00000000, "max subnormal + min subnormal = min normal"},
    {0x00800000, 0x80000001, 0x007FFFFF, 0x00800000, "min normal - min subnormal"},
    {0x00800001, 0x80800000, 0x00000001, 0x00000000, "normals -> subnormal result (FTZ: +0)"},
    {0x80800001, 0x00800000, 0x80000001, 0x80000000, "normals -> negative subnormal (FTZ: -0)"},
    {0x80000001, 0x00000000, 0x80000001, 0x00000000, "-subnormal + +0 (FTZ: -0 + +0 = +0)"},
    {0x80000001, 0x80000000, 0x80000001, 0x80000000, "-subnormal + -0 (FTZ: -0)"},
    {0x00400000, 0x00400000, 0x00800000, 0x00000000, "two subnormals make a normal"},
    {0x00000003, 0x3F800000, 0x3F800000, 0x3F800000, "1 + subnormal"},
    {0x80FFFFFF, 0x00FFFFFE, 0x80000001, 0x80000000, "cancellation into subnormals"},
};

// bfloat16 (in the low half; the high half of the lane carries junk that must be ignored)
const Case kBf16Cases[] = {
    {0x0000, 0x8000, 0x0000, 0x0000, "+0 + -0 = +0"},
    {0x8000, 0x8000, 0x8000, 0x8000, "-0 + -0 = -0"},
    {0x3F80, 0xBF80, 0x0000, 0x0000, "1 - 1 = +0"},
    {0x7F80, 0xFF80, 0x7FC0, 0x7FC0, "inf - inf = canonical NaN"},
    {0xFF80, 0xFF80, 0xFF80, 0xFF80, "-inf + -inf"},
    {0x7F80, 0x3F80, 0x7F80, 0x7F80, "inf + 1"},
    {0x7FC1, 0x3F80, 0x7FC0, 0x7FC0, "qNaN payload -> canonical"},
    {0xFF81, 0x3F80, 0x7FC0, 0x7FC0, "negative sNaN -> canonical"},
    {0x7F7F, 0x7F7F, 0x7F80, 0x7F80, "max + max = inf"},
    {0x7F7F, 0x7B00, 0x7F80, 0x7F80, "max + half ulp: tie to even = inf"},
    {0x7F7F, 0x7AFF, 0x7F7F, 0x7F7F, "max + just under half ulp"},
    {0x3F80, 0x3B80, 0x3F80, 0x3F80, "1 + 2^-8: tie, even stays"},
    {0x3F81, 0x3B80, 0x3F82, 0x3F82, "odd + half ulp rounds up"},
    {0x3F80, 0x3B81, 0x3F81, 0x3F81, "just above the tie"},
    {0x3F80, 0xBB00, 0x3F80, 0x3F80, "1 - 2^-9: tie below 1 to even"},
    {0x3F80, 0x3380, 0x3F80, 0x3F80, "1 + 2^-24 (fp32 would keep it)"},
    {0x3F81, 0xBF80, 0x3C00, 0x3C00, "cancellation: exact 2^-7"},
    {0x0001, 0x0001, 0x0002, 0x0000, "min subnormal * 2"},
    {0x007F, 0x0001, 0x0080, 0x0000, "max subnormal + min subnormal"},
    {0x0080, 0x8001, 0x007F, 0x0080, "min normal - min subnormal"},
    {0x0081, 0x8080, 0x0001, 0x0000, "normals -> subnormal (FTZ: +0)"},
    {0x8081, 0x0080, 0x8001, 0x8000, "normals -> negative subnormal (FTZ: -0)"},
    {0x8001, 0x0000, 0x8001, 0x0000, "-subnormal + +0"},
    {0x437F, 0x3F80, 0x4380, 0x4380, "255 + 1 = 256 (carry)"},
    {0x4380, 0x3F80, 0x4380, 0x4380, "256 + 1: tie to even 256"},
    {0x4381, 0x3F80, 0x4382, 0x4382, "258 + 1: tie to even 260"},
};

// Runs every case as one lane of a 2-contributor line (both arrival orders), FTZ off and on.
template <class D>
void run_cases(D& d, bool bf16, const Case* cases, std::size_t count) {
  const int L = D::kL;
  for (bool ftz : {false, true}) {
    for (bool swap_operands : {false, true}) {
      std::size_t lines = (count + L - 1) / L;
      JobConfig j = simple_job(d, 2, bf16, ftz, static_cast<std::uint32_t>(lines * 2));
      std::vector<Contribution> items;
      std::vector<std::vector<std::uint32_t>> expect(lines * 2);
      for (std::size_t li = 0; li < lines; ++li) {
        std::vector<std::vector<std::uint32_t>> data(2, std::vector<std::uint32_t>(L, 0));
        std::vector<std::uint32_t> ex(L, bf16 ? 0u : 0x80000000u);
        for (int l = 0; l < L; ++l) {
          std::size_t k = li * L + static_cast<std::size_t>(l);
          // unused lanes: -0 + -0 (bf16: 0x8000 + 0x8000)
          std::uint32_t a = bf16 ? 0x8000u : 0x80000000u, b = a, e = a;
          if (k < count) {
            a = cases[k].a;
            b = cases[k].b;
            e = ftz ? cases[k].sum_ftz : cases[k].sum;
            // the reference agrees with the table
            std::uint32_t ref = bf16 ? bf16_add(bf16_add(kBf16NegZero, static_cast<std::uint16_t>(a), ftz),
                                                static_cast<std::uint16_t>(b), ftz)
                                     : fp32_add(fp32_add(kFp32NegZero, a, ftz), b, ftz);
            EXPECT_EQ(ref, e) << std::hex << "reference: " << cases[k].what << " ftz=" << ftz;
          }
          if (swap_operands) std::swap(a, b);
          if (bf16) {
            a |= 0xDEAD0000u;
            b |= 0xBEEF0000u;
          }
          data[0][static_cast<std::size_t>(l)] = a;
          data[1][static_cast<std::size_t>(l)] = b;
          ex[static_cast<std::size_t>(l)] = e;
        }
        // line 2*li in order 0,1; line 2*li+1 in order 1,0
        auto a1 = line_items(0, static_cast<std::uint32_t>(2 * li), data, {0, 1});
        auto a2 = line_items(0, static_cast<std::uint32_t>(2 * li + 1), data, {1, 0});
        items.insert(items.end(), a1.begin(), a1.end());
        items.insert(items.end(), a2.begin(), a2.end());
        expect[2 * li] = ex;
        expect[2 * li + 1] = ex;
      }
      auto out = run_items(d, j, items, lines * 2);
      for (std::size_t li = 0; li < lines * 2; ++li) {
        auto it = out.find(line_key(0, static_cast<std::uint32_t>(li)));
        ASSERT_NE(it, out.end());
        for (int l = 0; l < L; ++l) {
          std::size_t k = (li / 2) * L + static_cast<std::size_t>(l);
          EXPECT_EQ(it->second.data[static_cast<std::size_t>(l)], expect[li][static_cast<std::size_t>(l)])
              << std::hex << (k < count ? cases[k].what : "padding") << " ftz=" << ftz << " swapped=" << swap_operands
              << " order=" << (li % 2 ? "1,0" : "0,1");
        }
      }
    }
  }
}

TYPED_TEST(GradReduce, SpecialCasesFp32) {
  typename TestFixture::D d;
  run_cases(d, false, kFp32Cases, std::size(kFp32Cases));
}

TYPED_TEST(GradReduce, SpecialCasesBf16) {
  typename TestFixture::D d;
  run_cases(d, true, kBf16Cases, std::size(kBf16Cases));
}

// N = 1: a lone contribution comes out canonicalized (-0 + x).
TYPED_TEST(GradReduce, SingleContributorCanonicalizes) {
  typename TestFixture::D d;
  const int L = TestFixture::D::kL;
  const std::uint32_t in32[] = {0x7FC12345, 0xFF800001, 0x80000000, 0x00000000,
                                0x80000001, 0x00000001, 0x3F800000, 0xFF800000};
  const std::uint32_t out32[] = {0x7FC00000, 0x7FC00000, 0x80000000, 0x00000000,
                                 0x80000001, 0x00000001, 0x3F800000, 0xFF800000};
  const std::uint32_t out32_ftz[] = {0x7FC00000, 0x7FC00000, 0x80000000, 0x00000000,
                                     0x80000000, 0x00000000, 0x3F800000, 0xFF800000};
  for (bool ftz : {false, true}) {
    JobConfig j = simple_job(d, 1, false, ftz, 1);
    std::vector<std::vector<std::uint32_t>> data(1, std::vector<std::uint32_t>(L));
    for (int l = 0; l < L; ++l) data[0][static_cast<std::size_t>(l)] = in32[l % 8];
    auto out = run_items(d, j, line_items(0, 0, data, {0}), 1);
    // The expected row is chosen once, outside the lane loop: GCC 12.2 at -O1 with
    // -fsanitize=undefined (scripts/check-sanitizers) miscompiled the choice inside the
    // EXPECT_EQ, reading the lane index from a stack slot written only when ftz is set.
    const std::uint32_t* want = ftz ? out32_ftz : out32;
    const std::vector<std::uint32_t>& got = out.begin()->second.data;
    for (int l = 0; l < L; ++l)
      EXPECT_EQ(got[static_cast<std::size_t>(l)], want[l % 8]) << "lane " << l << " ftz " << ftz;
  }
  // bf16: the high half is ignored on input and zero on output
  JobConfig j = simple_job(d, 1, true, true, 1);
  std::vector<std::vector<std::uint32_t>> data(1, std::vector<std::uint32_t>(L));
  for (int l = 0; l < L; ++l) data[0][static_cast<std::size_t>(l)] = 0x12340000u | (l % 2 ? 0x7FC5u : 0x8001u);
  auto out = run_items(d, j, line_items(0, 0, data, {0}), 1);
  for (int l = 0; l < L; ++l)
    EXPECT_EQ(out.begin()->second.data[static_cast<std::size_t>(l)], l % 2 ? 0x7FC0u : 0x8000u);
}

// The same line sent in many arrival orders gives the same bits, although the data are chosen so
// that summing them in other orders gives different results.
TYPED_TEST(GradReduce, ResultIndependentOfArrivalOrder) {
  typename TestFixture::D d;
  const int L = TestFixture::D::kL;
  const std::uint32_t n = static_cast<std::uint32_t>(d.max_contributors);
  for (bool bf16 : {false, true}) {
    Rng r(7 + bf16);
    std::vector<std::vector<std::uint32_t>> data(n, std::vector<std::uint32_t>(L));
    for (int l = 0; l < L; ++l) {
      int base = 100 + static_cast<int>(r.below(20));
      for (std::uint32_t k = 0; k < n; ++k)
        data[k][static_cast<std::size_t>(l)] = gen_value(r, ValueMode::Clustered, base, bf16 ? 7 : 23);
    }
    // Order matters for this data: the reverse order sums to different bits in some lane.
    JobConfig j = simple_job(d, n, bf16, false, 60);
    std::vector<std::uint32_t> fwd = reference_line(j, L, data);
    auto rev_data = data;
    std::reverse(rev_data.begin(), rev_data.end());
    std::vector<std::uint32_t> rev = reference_line(j, L, rev_data);
    EXPECT_NE(fwd, rev) << "test data do not exercise ordering";
    // 60 arrival orders (identity, reverse, random), sent as 60 lines, interleaved 3 at a time.
    std::vector<std::vector<Contribution>> per_line;
    for (std::uint32_t li = 0; li < 60; ++li) {
      std::vector<std::uint32_t> order = iota_order(n);
      if (li == 1) std::reverse(order.begin(), order.end());
      if (li >= 2)
        for (std::size_t i = order.size(); i > 1; --i)
          std::swap(order[i - 1], order[r.below(static_cast<std::uint32_t>(i))]);
      per_line.push_back(line_items(0, li, data, order));
    }
    std::vector<Contribution> items;
    for (std::size_t g = 0; g < per_line.size(); g += 3)
      for (std::size_t k = 0; k < n; ++k)
        for (std::size_t li = g; li < g + 3; ++li) items.push_back(per_line[li][k]);
    d.valid_prob = 0.7;
    d.ready_prob = 0.6;
    auto out = run_items(d, j, items, 60);
    for (auto& [key, o] : out) EXPECT_EQ(o.data, fwd) << "line " << o.idx;
    d.valid_prob = d.ready_prob = 1.0;
  }
}

// ------------------------------------------------------------------------------------ errors

TYPED_TEST(GradReduce, MalformedContributionsAreDroppedAndFlagged) {
  typename TestFixture::D d;
  const int L = TestFixture::D::kL;
  const std::uint32_t n = 3;
  JobConfig j = simple_job(d, n, false, false, 4);
  Rng r(3);
  std::vector<std::vector<std::vector<std::uint32_t>>> lines(4);
  for (auto& ln : lines) {
    ln.assign(n, std::vector<std::uint32_t>(L));
    for (auto& c : ln)
      for (auto& v : c) v = gen_value(r, ValueMode::Clustered, 127, 23);
  }
  auto bad = [&](std::uint32_t slot, std::uint32_t idx, std::uint32_t cid) {
    Contribution c;
    c.slot = slot;
    c.idx = idx;
    c.cid = cid;
    c.data.assign(L, 0x7F800001u);  // a NaN: would poison the line if it were added
    return c;
  };
  std::vector<Contribution> items;
  items.push_back(line_items(0, 0, lines[0], {0})[0]);
  items.push_back(bad(0, 0, 0));                          // duplicate                -> DUP (first error)
  items.push_back(bad(0, 0, n + 1));                      // contributor id >= N      -> CID
  items.push_back(bad(0, 4, 1));                          // line index >= LEN[0]     -> IDX
  items.push_back(bad(1, 0, 0));                          // slot 1 has LEN 0         -> IDX
  const bool odd_slots = (d.slots & (d.slots - 1)) != 0;  // a slot id >= SLOTS exists
  if (odd_slots) items.push_back(bad(static_cast<std::uint32_t>(d.slots), 0, 0));  // -> SLOT
  std::uint32_t dropped = odd_slots ? 5 : 4;
  for (std::uint32_t cid : {2u, 1u}) items.push_back(line_items(0, 0, lines[0], {cid})[0]);
  items.push_back(bad(0, 0, 1));  // line 0 complete, still being reduced: DUP
  for (std::uint32_t li = 1; li < 4; ++li) {
    auto v = line_items(0, li, lines[li], {2, 0, 1});
    items.insert(items.end(), v.begin(), v.end());
  }
  d.write(csr::kError, 0x3F);
  auto out = run_items(d, j, items, 4);
  for (std::uint32_t li = 0; li < 4; ++li)
    EXPECT_EQ(out.at(line_key(0, li)).data, reference_line(j, L, lines[li])) << "line " << li;
  const std::uint32_t err = d.read(csr::kError);
  EXPECT_EQ(d.read(csr::kDropped), dropped + 1);
  EXPECT_EQ(err, csr::kErrDup | csr::kErrCid | csr::kErrIdx | (odd_slots ? csr::kErrSlot : 0u));
  EXPECT_EQ(d.read(csr::kErrLine), 0u);
  EXPECT_EQ(d.read(csr::kErrSrc), (csr::kErrDup << 16) | 0u);
  EXPECT_EQ(d.read(csr::kLinesIn), items.size());
  EXPECT_EQ(d.read(csr::kLinesOut), 4u);
  EXPECT_EQ(d.read(csr::kStatus), csr::kDone | csr::kIdle);
  // W1C one bit at a time; the next error after ERROR is zero is captured again.
  d.write(csr::kError, csr::kErrDup);
  EXPECT_EQ(d.read(csr::kError), err & ~csr::kErrDup);
  d.write(csr::kError, 0x3F);
  EXPECT_EQ(d.read(csr::kError), 0u);
  // ERR_LINE/ERR_SRC describe the first error after ERROR went to zero.
  JobConfig j2 = simple_job(d, n, false, false, 4);
  std::vector<Contribution> items3;
  items3.push_back(bad(0, 5, 2));
  for (std::uint32_t li = 0; li < 4; ++li) {
    auto w = line_items(0, li, lines[li], {1, 2, 0});
    items3.insert(items3.end(), w.begin(), w.end());
  }
  run_items(d, j2, items3, 4);
  EXPECT_EQ(d.read(csr::kError), csr::kErrIdx);
  EXPECT_EQ(d.read(csr::kErrLine), 5u);
  EXPECT_EQ(d.read(csr::kErrSrc), (csr::kErrIdx << 16) | 2u);
  EXPECT_EQ(d.read(csr::kDropped), 1u);
  EXPECT_EQ(d.read(csr::kStatus), csr::kDone | csr::kIdle);
}

// ------------------------------------------------------------------------------------ flow

// Output held back for a long time: the buffer fills, the input is back-pressured, and when the
// output is released every line comes out exactly once, correct.
TYPED_TEST(GradReduce, FullBufferBackPressureNeverLosesOrDuplicates) {
  typename TestFixture::D d;
  const int L = TestFixture::D::kL;
  for (bool bf16 : {false, true}) {
    const std::uint32_t lines = 64, n = 3;
    JobConfig j = simple_job(d, n, bf16, false, lines / 2);
    j.len[1] = lines / 2;
    Scoreboard sb;
    TrafficConfig tc;
    tc.window = static_cast<std::uint32_t>(d.depth);
    tc.special_rate = 0.05;
    RandomTraffic t(d.rng, j, tc, L, d.max_contributors, d.idx_w, sb);
    d.source = [&](Contribution& c) { return t.next(c); };
    d.sink = [&](const OutLine& o) { sb.check(o); };
    d.configure(j);
    d.start();
    d.ready_hold = true;
    d.ticks(500);
    EXPECT_EQ(d.out_fires, 0u);
    EXPECT_EQ(d.m().in_ready, 0);
    EXPECT_TRUE(d.offering());
    const std::uint32_t st = d.read(csr::kStatus);
    EXPECT_EQ(st & csr::kFull, csr::kFull);
    EXPECT_EQ((st >> 8) & 0xFF, static_cast<std::uint32_t>(d.depth));
    EXPECT_GT(d.read(csr::kFullCycles), 400u);
    const std::uint64_t accepted = d.in_fires;
    d.ticks(200);
    EXPECT_EQ(d.in_fires, accepted);  // nothing more enters while full
    d.ready_hold = false;
    d.ready_prob = 0.3;
    EXPECT_TRUE(d.run_until([&] { return t.all_sent() && !d.offering() && sb.pending() == 0; }, 100000));
    d.ticks(20);
    d.ready_prob = 1.0;
    EXPECT_EQ(sb.errors(), 0u);
    for (auto& m : sb.messages()) ADD_FAILURE() << m;
    EXPECT_EQ(sb.lines_checked(), lines);
    EXPECT_EQ(d.out_fires, lines);
    EXPECT_EQ(d.read(csr::kLinesOut), lines);
    EXPECT_EQ(d.read(csr::kInStall), d.in_stalls);
    EXPECT_EQ(d.read(csr::kOutStall), d.out_stalls);
    EXPECT_EQ(d.read(csr::kStatus), csr::kDone | csr::kIdle);
    d.source = nullptr;
    d.sink = nullptr;
  }
}

TYPED_TEST(GradReduce, AbortEmptiesTheEngine) {
  typename TestFixture::D d;
  const int L = TestFixture::D::kL;
  JobConfig j = simple_job(d, 4, false, false, 100);
  Scoreboard sb;
  TrafficConfig tc;
  tc.window = 2;
  RandomTraffic t(d.rng, j, tc, L, d.max_contributors, d.idx_w, sb);
  d.source = [&](Contribution& c) { return t.next(c); };
  d.configure(j);
  d.start();
  d.ready_hold = true;
  d.ticks(150);
  EXPECT_NE(d.read(csr::kStatus) >> 8, 0u);  // lines in the buffer
  d.write(csr::kCtrl, csr::kAbort);
  d.source = nullptr;
  d.drop_offer();
  d.ready_hold = false;
  d.ticks(2);
  EXPECT_EQ(d.m().in_ready, 0);
  EXPECT_EQ(d.m().out_valid, 0);
  EXPECT_EQ(d.read(csr::kStatus), csr::kIdle);
  // A new job after the abort runs normally.
  Scoreboard sb2;
  JobConfig j2 = simple_job(d, 3, true, true, 40);
  RandomTraffic t2(d.rng, j2, tc, L, d.max_contributors, d.idx_w, sb2);
  d.source = [&](Contribution& c) { return t2.next(c); };
  d.sink = [&](const OutLine& o) { sb2.check(o); };
  d.configure(j2);
  d.start();
  EXPECT_TRUE(d.run_until([&] { return t2.all_sent() && !d.offering() && sb2.pending() == 0; }, 100000));
  d.ticks(10);
  EXPECT_EQ(sb2.errors(), 0u);
  EXPECT_EQ(sb2.lines_checked(), 40u);
  EXPECT_EQ(d.read(csr::kStatus), csr::kDone | csr::kIdle);
  d.source = nullptr;
  d.sink = nullptr;
}

// In-order traffic at full rate: one contribution per cycle sustained, no input stall; and the
// latency from the last contribution of a line to out_valid is N + 3 cycles.
TYPED_TEST(GradReduce, ThroughputAndLatency) {
  typename TestFixture::D d;
  const int L = TestFixture::D::kL;
  for (std::uint32_t n : {1u, 2u, 4u, static_cast<std::uint32_t>(d.max_contributors)}) {
    // latency of a lone line
    JobConfig j1 = simple_job(d, n, false, false, 1);
    std::vector<std::vector<std::uint32_t>> data(n, std::vector<std::uint32_t>(L, 0x3F800000u));
    std::uint64_t first_out = 0;
    auto items = line_items(0, 0, data, iota_order(n));
    std::deque<Contribution> q(items.begin(), items.end());
    d.source = [&](Contribution& c) {
      if (q.empty()) return false;
      c = q.front();
      q.pop_front();
      return true;
    };
    d.sink = [&](const OutLine& o) { first_out = o.cycle; };
    d.configure(j1);
    d.start();
    EXPECT_TRUE(d.run_until([&] { return first_out != 0; }, 1000));
    EXPECT_EQ(first_out - d.last_in_fire_cycle, n + 3) << "N=" << n;
    EXPECT_EQ(d.in_stalls, 0u);
    d.ticks(5);
    // throughput: 256 lines in order
    const std::uint32_t lines = 256;
    JobConfig j = simple_job(d, n, false, false, lines);
    std::vector<Contribution> all;
    for (std::uint32_t li = 0; li < lines; ++li) {
      auto v = line_items(0, li, data, iota_order(n));
      all.insert(all.end(), v.begin(), v.end());
    }
    q.assign(all.begin(), all.end());
    std::uint64_t outs = 0;
    d.sink = [&](const OutLine&) { ++outs; };
    d.configure(j);
    d.start();
    const std::uint64_t c0 = d.cycle;
    EXPECT_TRUE(d.run_until([&] { return outs == lines; }, 100000));
    const std::uint64_t cycles = d.cycle - c0;
    EXPECT_EQ(d.in_stalls, 0u) << "N=" << n;
    EXPECT_EQ(d.read(csr::kInStall), 0u);
    EXPECT_EQ(d.read(csr::kFullCycles), 0u);
    // lines * N cycles of input, then the last line's latency
    EXPECT_EQ(cycles, std::uint64_t{lines} * n + n + 3) << "N=" << n;
    d.source = nullptr;
    d.sink = nullptr;
  }
}

TYPED_TEST(GradReduce, InterruptOnDoneAndOnError) {
  typename TestFixture::D d;
  const int L = TestFixture::D::kL;
  JobConfig j = simple_job(d, 2, false, false, 1);
  std::vector<std::vector<std::uint32_t>> data(2, std::vector<std::uint32_t>(L, 0x40000000u));
  d.write(csr::kIrqEn, 1);
  EXPECT_EQ(d.m().irq, 0);
  auto out = run_items(d, j, line_items(0, 0, data, {1, 0}), 1);
  EXPECT_EQ(out.begin()->second.data, std::vector<std::uint32_t>(L, 0x40800000u));
  EXPECT_EQ(d.m().irq, 1);
  EXPECT_EQ(d.read(csr::kStatus), csr::kDone | csr::kIdle);
  d.write(csr::kCtrl, csr::kDoneClr);
  EXPECT_EQ(d.m().irq, 0);
  EXPECT_EQ(d.read(csr::kStatus), csr::kIdle);
  d.write(csr::kIrqEn, 2);
  d.write(csr::kConfig, 0);
  d.write(csr::kCtrl, csr::kStart);  // CFG error
  EXPECT_EQ(d.m().irq, 1);
  d.write(csr::kIrqEn, 0);
  EXPECT_EQ(d.m().irq, 0);
  d.write(csr::kIrqEn, 2);
  EXPECT_EQ(d.m().irq, 1);
  d.write(csr::kError, 0x3F);
  EXPECT_EQ(d.m().irq, 0);
}

// ------------------------------------------------------------------------------------ random

// The random runs' "raw random bits" values (pick_mode: 15% of lines) must draw every bit of the
// format, sign, exponent and mantissa, so that NaNs, infinities and every binade reach the engine.
// fp32's mask was once 1u << 32 (undefined): Release drew only the low 16 bits, all subnormals,
// and UBSan stopped the random tests (scripts/check-sanitizers).
TEST(GradReduceBench, RawBitsValuesDrawEveryBitOfTheFormat) {
  for (const bool bf16 : {false, true}) {
    Rng r(5);
    const int mb = bf16 ? 7 : 23;
    std::uint32_t any = 0, all = ~0u;
    int top_exponent = 0;  // exponent all ones: an infinity or a NaN
    for (int i = 0; i < 4096; ++i) {
      const std::uint32_t v = gen_value(r, ValueMode::Bits, 127, mb);
      any |= v;
      all &= v;
      top_exponent += ((v >> mb) & 0xFFu) == 0xFFu;
    }
    EXPECT_EQ(any, bf16 ? 0xFFFFu : 0xFFFFFFFFu) << "bf16 " << bf16;
    EXPECT_EQ(all, 0u) << "bf16 " << bf16;
    EXPECT_GT(top_exponent, 0) << "bf16 " << bf16;  // 4096 / 256 = 16 expected
  }
}

TYPED_TEST(GradReduce, RandomFp32) {
  typename TestFixture::D d;
  RunStats st = run_random(d, false, 200000, 101, 2000, true);
  report((std::string(expected_params<typename TypeParam::Model>().name) + " fp32").c_str(), st);
}

TYPED_TEST(GradReduce, RandomBf16) {
  typename TestFixture::D d;
  RunStats st = run_random(d, true, 200000, 202, 2000, true);
  report((std::string(expected_params<typename TypeParam::Model>().name) + " bf16").c_str(), st);
}

// Speed of the Verilated engine in this bench at full rate (N = 4, lines in order, valid and
// ready always high), without the reference model: outputs are counted, not checked. The
// figure goes to docs/rtl.md.
TYPED_TEST(GradReduce, ModelSpeed) {
  typename TestFixture::D d;
  const int L = TestFixture::D::kL;
  const std::uint32_t n = std::min(4, d.max_contributors);
  const std::uint32_t lines = std::min<std::uint32_t>(50000, (1u << d.idx_w) - 1);
  Rng r(9);
  std::vector<std::vector<std::uint32_t>> pool(64, std::vector<std::uint32_t>(L));
  for (auto& v : pool)
    for (auto& x : v) x = gen_value(r, ValueMode::Clustered, 127, 23);
  std::uint32_t line = 0, cid = 0;
  std::uint64_t outs = 0;
  d.source = [&](Contribution& c) {
    if (line == lines) return false;
    c.slot = 0;
    c.idx = line;
    c.cid = cid;
    c.data = pool[(line * 7 + cid) & 63];
    if (++cid == n) {
      cid = 0;
      ++line;
    }
    return true;
  };
  d.sink = [&](const OutLine&) { ++outs; };
  const std::uint64_t c0 = d.cycle;
  const auto t0 = std::chrono::steady_clock::now();
  std::uint64_t jobs = 0;
  while (d.cycle - c0 < 400000) {
    line = cid = 0;
    outs = 0;
    d.configure(simple_job(d, n, false, false, lines));
    d.start();
    ASSERT_TRUE(d.run_until([&] { return outs == lines; }, std::uint64_t{lines} * n * 2 + 1000))
        << "job " << jobs << ": " << outs << " of " << lines << " lines; status 0x" << std::hex << d.read(csr::kStatus)
        << " error 0x" << d.read(csr::kError);
    // The next job's first item is offered while its CSRs are written: wait for DONE first, or
    // the engine (still running for a cycle after the last output) would take it into this job.
    ASSERT_TRUE(d.run_until([&] { return (d.read(csr::kStatus) & csr::kDone) != 0; }, 100));
    ++jobs;
  }
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const double cps = static_cast<double>(d.cycle - c0) / wall;
  std::printf(
      "[ rtl perf ] %s engine at full rate: %llu cycles in %.3f s = %.0f cycles/s "
      "(%.2f M contributions/s, %.0f M elements/s)\n",
      expected_params<typename TypeParam::Model>().name, static_cast<unsigned long long>(d.cycle - c0), wall, cps,
      static_cast<double>(jobs) * lines * n / wall * 1e-6, static_cast<double>(jobs) * lines * n * L / wall * 1e-6);
  ::testing::Test::RecordProperty("cycles_per_s", std::to_string(static_cast<long long>(cps)));
  d.source = nullptr;
  d.sink = nullptr;
}

// At least 1,000,000 reduced lines per dtype, on the LANES = 8 variant.
TEST(GradReduceLong, RandomFp32Million) {
  Driver<Vgrad_reduce_l8, 8> d;
  RunStats st = run_random(d, false, 1000000, 0xF32, 20000, true);
  EXPECT_GE(st.lines, 1000000u);
  report("L8 fp32", st);
}

TEST(GradReduceLong, RandomBf16Million) {
  Driver<Vgrad_reduce_l8, 8> d;
  RunStats st = run_random(d, true, 1000000, 0xBF16, 20000, true);
  EXPECT_GE(st.lines, 1000000u);
  report("L8 bf16", st);
}

}  // namespace test_grad_reduce
}  // namespace trainvp::rtl
