// The repeating-period test of steady-state fast-forward, on hand-made records whose periods are
// known by construction, and the two pieces of bookkeeping a skip does (records and labels).
#include <gtest/gtest.h>

#include "models/gpu/iteration_boundary.hpp"
#include "platform/system/fast_forward/fast_forward.hpp"
#include "platform/system/fast_forward/period.hpp"

namespace trainvp {
namespace test_period {  // named for the file: unity builds join test files (cmake/unit_tests.cmake)

// Iterations back to back from t = 0 whose durations follow `pattern` cyclically (compute = the
// duration, nothing blocked); `count` iterations.
std::vector<RankIteration> records(const std::vector<std::int64_t>& pattern, int count, std::int64_t offset = 0) {
  std::vector<RankIteration> out;
  std::int64_t t = offset;
  for (int i = 0; i < count; ++i) {
    const std::int64_t d = pattern[static_cast<std::size_t>(i) % pattern.size()];
    out.push_back({t, t + d, d, 0, 0});
    t += d;
  }
  return out;
}
RankIterations run(const std::vector<std::int64_t>& pattern, int count, std::int64_t offset = 0) {
  return RankIterations(records(pattern, count, offset));
}

PeriodQuery query(int boundary) {
  PeriodQuery q;
  q.boundary = boundary;
  q.arrived = 0;
  q.repeats = 3;
  q.tolerance = 1e-3;
  q.first = 1;
  return q;
}

TEST(FastForwardPeriod, EqualIterationsRepeatWithPeriodOne) {
  // Rank 0 arrived at the end of iteration 9; rank 1 (started 5 ps later) has ended 8.
  auto a = run({1000}, 10), b = run({1000}, 9, 5);
  const Period p = check_period({&a, &b}, {}, query(9), 1);
  EXPECT_EQ(p.iterations, 1);
  EXPECT_EQ(p.ps, 1000);
}

TEST(FastForwardPeriod, AlternatingIterationsRepeatOnlyWithPeriodTwo) {
  auto a = run({1000, 1500}, 10), b = run({1000, 1500}, 9);
  EXPECT_EQ(check_period({&a, &b}, {}, query(9), 1).iterations, 0);
  const Period p = check_period({&a, &b}, {}, query(9), 2);
  EXPECT_EQ(p.iterations, 2);
  EXPECT_EQ(p.ps, 2500);
}

TEST(FastForwardPeriod, ToleranceIsAFractionOfThePeriod) {
  // A 1-ps-later end of iteration 8 on rank 1: within 1e-3 x 1000 ps = 1 ps, not within 1e-4 x 1000 ps.
  auto a = run({1000}, 10);
  auto rb = records({1000}, 9);
  rb[8].end_ps += 1, rb[8].compute_ps += 1;
  const RankIterations b(rb);
  EXPECT_EQ(check_period({&a, &b}, {}, query(9), 1).iterations, 1);
  PeriodQuery strict = query(9);
  strict.tolerance = 1e-4;  // 0.1 ps
  EXPECT_EQ(check_period({&a, &b}, {}, strict, 1).iterations, 0);
}

TEST(FastForwardPeriod, BlockedTimeAndCommunicationMustRepeatToo) {
  auto a = run({1000}, 10);
  auto rb = records({1000}, 9);
  rb[8].blocked_ps = 300, rb[8].compute_ps -= 300;  // same spacing, different split
  const RankIterations b(rb);
  EXPECT_EQ(check_period({&a, &b}, {}, query(9), 1).iterations, 0);
  auto c = run({1000}, 9);
  CommOf comm = [](int rank, int it) -> std::int64_t { return rank == 1 && it == 8 ? 50 : 10; };
  EXPECT_EQ(check_period({&a, &c}, comm, query(9), 1).iterations, 0);
  CommOf steady = [](int, int) -> std::int64_t { return 10; };
  EXPECT_EQ(check_period({&a, &c}, steady, query(9), 1).iterations, 1);
}

TEST(FastForwardPeriod, WindowMustFollowWarmupAndTheLastChange) {
  auto a = run({1000}, 10), b = run({1000}, 9);
  PeriodQuery q = query(9);
  q.first = 8;  // three periods of one iteration reach back to 7
  EXPECT_EQ(check_period({&a, &b}, {}, q, 1).iterations, 0);
  q = query(9);
  q.after_ps = 7000;  // iteration 7 starts at 7000: not after the change
  EXPECT_EQ(check_period({&a, &b}, {}, q, 1).iterations, 0);
  q.after_ps = 6999;
  EXPECT_EQ(check_period({&a, &b}, {}, q, 1).iterations, 1);
}

TEST(FastForwardPeriod, WithTwoRepeatsTheOtherRanksAreComparedToo) {
  // repeats 2, period 1, boundary 9: rank 0 compares 9 with 8; rank 1, which has ended only 8,
  // must compare 8 with 7 (#45: it compared nothing, so a rank whose iterations jitter passed).
  auto a = run({1000}, 10);
  auto rb = records({1000}, 9);
  rb[8].end_ps += 15, rb[8].compute_ps += 15;  // 1.5e-2 of the period: far beyond the tolerance
  RankIterations b(rb);
  PeriodQuery q = query(9);
  q.repeats = 2;
  EXPECT_EQ(check_period({&a, &b}, {}, q, 1).iterations, 0);
  b = run({1000}, 9);
  EXPECT_EQ(check_period({&a, &b}, {}, q, 1).iterations, 1);
  q.first = 8;  // rank 1's compared pair (8, 7) reaches before the first comparable iteration
  EXPECT_EQ(check_period({&a, &b}, {}, q, 1).iterations, 0);
}

TEST(FastForwardPeriod, EveryOtherRankMustHaveEndedThePreviousIteration) {
  auto a = run({1000}, 10), b = run({1000}, 8);  // rank 1 is still in iteration 8
  EXPECT_EQ(check_period({&a, &b}, {}, query(9), 1).iterations, 0);
}

TEST(FastForwardPeriod, SkippedRecordsCopyTheLastPeriodShifted) {
  auto a = records({1000, 1500}, 6);  // ends at 7500
  append_skipped(a, IterationSkip{4, 2, 2500});
  ASSERT_EQ(a.size(), 10u);
  // Iteration 6 copies 4 one period later, 7 copies 5, 8 copies 4 two periods later.
  EXPECT_EQ(a[6].start_ps, 7500);
  EXPECT_EQ(a[6].end_ps, 8500);
  EXPECT_EQ(a[7].end_ps, 10000);
  EXPECT_EQ(a[8].start_ps, 10000);
  EXPECT_EQ(a[9].end_ps, 12500);
  const auto fresh = run({1000, 1500}, 10);
  for (std::size_t i = 0; i < 10; ++i) EXPECT_EQ(a[i].end_ps, fresh[i].end_ps) << i;
  EXPECT_EQ((IterationSkip{4, 2, 2500}.delay_ps()), 5000);
}

TEST(FastForwardPeriod, SkippedRecordsKeptAsRunsReadAsTheirCopies) {
  // RankIterations keeps a skip as a run; every record reads as append_skipped's copy, through
  // two skips with simulated iterations between them and after.
  auto copies = records({1000, 1500, 700}, 7);
  RankIterations kept(copies);
  const IterationSkip first{6, 3, 3200}, second{4, 1, 700};
  append_skipped(copies, first), kept.skip(first);
  for (const std::int64_t d : {700, 1000}) {
    const RankIteration r{copies.back().end_ps, copies.back().end_ps + d, d, 0, 0};
    copies.push_back(r), kept.push_back(r);
  }
  append_skipped(copies, second), kept.skip(second);
  copies.push_back({copies.back().end_ps, copies.back().end_ps + 5, 5, 0, 0});
  kept.push_back(copies.back());
  ASSERT_EQ(kept.size(), copies.size());
  std::size_t i = 0;
  for (const RankIteration& r : kept) {
    EXPECT_EQ(r.start_ps, copies[i].start_ps) << i;
    EXPECT_EQ(r.end_ps, copies[i].end_ps) << i;
    EXPECT_EQ(r.compute_ps, copies[i].compute_ps) << i;
    ++i;
  }
  EXPECT_EQ(i, copies.size());
  EXPECT_EQ(kept.back().end_ps, copies.back().end_ps);
  EXPECT_THROW(kept.at(copies.size()), std::out_of_range);
}

TEST(FastForwardPeriod, CollectiveLabelsNameTheirShiftedIteration) {
  EXPECT_EQ(shift_iteration_label("ddp it12 bucket3", 40), "ddp it52 bucket3");
  EXPECT_EQ(shift_iteration_label("layerwise it7 unit0 step1", 3), "layerwise it10 unit0 step1");
  EXPECT_EQ(shift_iteration_label("split it", 3), "split it");
  EXPECT_EQ(shift_iteration_label("bits it9", 1), "bits it10");
}

}  // namespace test_period
}  // namespace trainvp
