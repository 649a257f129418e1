// DCQCN's reaction point alone (models/link/dcqcn.hpp), step by step against values worked by hand
// from the paper's rules: cuts, alpha's update and decay, fast recovery, additive and hyper increase,
// the timer and the byte counter, the floor and the line-rate cap.
#include <gtest/gtest.h>

#include <cmath>

#include "models/link/dcqcn.hpp"

namespace trainvp {
namespace test_dcqcn {  // named for the file: unity builds join test files (cmake/unit_tests.cmake)

constexpr std::int64_t us = 1000000;  // ps
constexpr double L = 100e9;           // line rate of these tests

DcqcnParams params() {
  DcqcnParams p;  // the paper's: g 1/256, T = alpha timer = 55 us, B 10 MB, F 5, R_AI 40 Mb/s, R_HAI 200 Mb/s
  return p;
}

TEST(Dcqcn, CutsHalveAtAlphaOneAndTargetTheOldRate) {
  const DcqcnParams p = params();
  DcqcnRate r(p, L);
  EXPECT_EQ(r.rate(), L);
  r.on_cnp(10 * us);
  // Rt = Rc = 100G, Rc = 100G (1 - 1/2) = 50G, alpha = (255/256) 1 + 1/256 = 1.
  EXPECT_DOUBLE_EQ(r.rate(), 50e9);
  EXPECT_DOUBLE_EQ(r.target(), 100e9);
  EXPECT_DOUBLE_EQ(r.alpha(), 1.0);
  r.on_cnp(20 * us);
  EXPECT_DOUBLE_EQ(r.rate(), 25e9);
  EXPECT_DOUBLE_EQ(r.target(), 50e9);
  EXPECT_EQ(r.cuts(), 2u);
  EXPECT_DOUBLE_EQ(r.min_rate(), 25e9);
}

TEST(Dcqcn, TimerFastRecoveryThenAdditiveIncrease) {
  const DcqcnParams p = params();
  DcqcnRate r(p, L);
  r.on_cnp(10 * us);
  r.on_cnp(20 * us);  // Rc 25G, Rt 50G; both timers restart at 20 us
  r.advance(74 * us);
  EXPECT_DOUBLE_EQ(r.rate(), 25e9);  // nothing before 75 us
  // Fast recovery, events 1..5 at 75, 130, 185, 240, 295 us: Rc = (Rt + Rc) / 2.
  const double fr[] = {37.5e9, 43.75e9, 46.875e9, 48.4375e9, 49.21875e9};
  for (int k = 0; k < 5; ++k) {
    r.advance((75 + 55 * k) * us);
    EXPECT_DOUBLE_EQ(r.rate(), fr[k]) << "event " << k + 1;
    EXPECT_DOUBLE_EQ(r.target(), 50e9);
    EXPECT_EQ(r.timer_stage(), k + 1);
    EXPECT_NEAR(r.alpha(), std::pow(255.0 / 256, k + 1), 1e-15);  // decayed once per 55 us
  }
  // Event 6 (350 us): additive increase, Rt = 50G + 40M, Rc = (50.04G + 49.21875G) / 2.
  r.advance(350 * us);
  EXPECT_DOUBLE_EQ(r.target(), 50.04e9);
  EXPECT_DOUBLE_EQ(r.rate(), 49.629375e9);
}

TEST(Dcqcn, ByteCounterAndHyperIncrease) {
  const DcqcnParams p = params();
  DcqcnRate r(p, L);
  r.on_cnp(10 * us);
  r.on_cnp(20 * us);
  r.advance(350 * us);  // T = 6 (as above): Rc 49.629375G, Rt 50.04G
  r.on_sent(351 * us, p.byte_counter - 1);
  EXPECT_EQ(r.byte_stage(), 0);  // one byte short of B
  r.on_sent(351 * us, 1);
  // BC 1..5 with T 6: additive (min(T, BC) <= F), Rt += 40M each.
  EXPECT_EQ(r.byte_stage(), 1);
  EXPECT_DOUBLE_EQ(r.target(), 50.08e9);
  EXPECT_DOUBLE_EQ(r.rate(), 49.8546875e9);
  r.on_sent(352 * us, 4 * p.byte_counter);
  EXPECT_EQ(r.byte_stage(), 5);
  EXPECT_DOUBLE_EQ(r.target(), 50.24e9);
  EXPECT_DOUBLE_EQ(r.rate(), 50.18841796875e9);
  // BC 6, T 6: both above F, hyper increase by (6 - 5) x 200M.
  r.on_sent(353 * us, p.byte_counter);
  EXPECT_DOUBLE_EQ(r.target(), 50.44e9);
  EXPECT_DOUBLE_EQ(r.rate(), 50.314208984375e9);
}

TEST(Dcqcn, CnpResetsStagesAndByteCount) {
  const DcqcnParams p = params();
  DcqcnRate r(p, L);
  r.on_cnp(0);
  r.on_sent(1 * us, p.byte_counter / 2);
  r.advance(60 * us);
  EXPECT_EQ(r.timer_stage(), 1);
  const double before = r.rate();
  r.on_cnp(61 * us);  // alpha was (1 - g) after one decay: cut by alpha / 2
  const double a = 255.0 / 256;
  EXPECT_DOUBLE_EQ(r.rate(), before * (1 - a / 2));
  EXPECT_DOUBLE_EQ(r.alpha(), (1 - p.g) * a + p.g);
  EXPECT_EQ(r.timer_stage(), 0);
  r.on_sent(62 * us, p.byte_counter / 2 + 1);  // the half sent before the CNP no longer counts
  EXPECT_EQ(r.byte_stage(), 0);
  r.advance(61 * us + 55 * us);  // the timer restarted at the CNP
  EXPECT_EQ(r.timer_stage(), 1);
}

TEST(Dcqcn, FloorCapAndLongIdle) {
  DcqcnParams p = params();
  p.min_rate_bps = 20e9;
  DcqcnRate r(p, L);
  for (int k = 0; k < 4; ++k) r.on_cnp(k * us);  // 50, 25, 12.5 -> floor 20... : each cut from the last
  EXPECT_DOUBLE_EQ(r.rate(), 20e9);
  EXPECT_DOUBLE_EQ(r.min_rate(), 20e9);
  // A long quiet spell: recovery reaches the line rate and stops there; alpha decays once per
  // 55 us, in closed form once at the line rate: (1 - g)^k after k periods.
  const std::int64_t end = 3 * us + 100000 * 55 * us;  // 5.5 s
  r.advance(end);
  EXPECT_DOUBLE_EQ(r.rate(), L);
  EXPECT_DOUBLE_EQ(r.target(), L);
  EXPECT_NEAR(r.alpha() / std::pow(255.0 / 256, 100000), 1.0, 1e-9);
}

}  // namespace test_dcqcn
}  // namespace trainvp
