#include "models/parallel/comm_by_iteration.hpp"
#include "models/parallel/running_union.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

namespace trainvp {
namespace test_comm_by_iteration {  // named for the file: unity builds join test files (cmake/unit_tests.cmake)

// Iterations of 10 ps; each holds [2, 5] and [8, 13] from its start, the second running 3 ps into
// the next. By end order, iteration 0 counts 3; every later one counts the previous one's tail
// (5) and 2 of its own [2, 5]; the last also its own tail: 3 + 7 (n - 2) + 12 in all.
TEST(CommByIteration, PeriodicOverlapsMatchTheirClosedFormAcrossALongSkip) {
  const int simulated_before = 3, count = 1000, after = 3, n = simulated_before + count + after;
  std::vector<std::int64_t> ends;
  for (int i = 0; i < n; ++i) ends.push_back(10 * (i + 1));
  std::vector<CommInterval> real;
  for (int i = 0; i < n; ++i) {
    if (i >= simulated_before && i < simulated_before + count) continue;  // skipped: no simulated intervals
    real.push_back({10 * i + 2, 10 * i + 5});
    real.push_back({10 * i + 8, 10 * i + 13});
  }
  std::stable_sort(real.begin(), real.end(),
                   [](const CommInterval& a, const CommInterval& b) { return a.end < b.end; });
  const std::vector<PeriodSkip> skips{{simulated_before, count, 1, 10}};
  const auto out = comm_by_iteration(real, ends, skips);
  ASSERT_EQ(out.size(), static_cast<std::size_t>(n));
  EXPECT_EQ(out.front(), 3);
  for (int i = 1; i + 1 < n; ++i) ASSERT_EQ(out[static_cast<std::size_t>(i)], 7) << "iteration " << i;
  EXPECT_EQ(out.back(), 12);
  EXPECT_EQ(out, comm_by_iteration_copied(real, ends, skips));
}

// An interval that starts before a gap between earlier ones covers the gap too: the union of
// [0,4], [3,12], [15,18], [3,20] is [0,20].
TEST(CommByIteration, AnIntervalReachingBackOverAGapCountsTheGap) {
  const std::vector<CommInterval> real{{0, 4}, {3, 12}, {15, 18}, {3, 20}};
  EXPECT_EQ(comm_by_iteration(real, {30}, {}), std::vector<std::int64_t>{20});
  EXPECT_EQ(comm_by_iteration(real, {12, 30}, {}), (std::vector<std::int64_t>{12, 8}));  // [12,20] ends in the second
}

TEST(RunningUnion, KeepsItsSegmentsUpToItsBound) {
  RunningUnion u;
  EXPECT_EQ(u.add(0, 4), 4);
  EXPECT_EQ(u.add(3, 12), 8);
  EXPECT_EQ(u.add(15, 18), 3);
  EXPECT_EQ(u.add(3, 20), 5);   // the gap [12,15] and [18,20]
  EXPECT_EQ(u.add(20, 20), 0);  // touching, empty
  EXPECT_EQ(u.add(0, 25), 5);   // everything before is covered already
  RunningUnion one(1);          // keeps only the latest segment: [0,4] is forgotten
  one.add(0, 4);
  one.add(6, 8);
  EXPECT_EQ(one.add(0, 9), 9 - 2);
}

// Intervals in end order against the union measured on a picosecond grid: what each add() says
// it adds is the number of newly covered picoseconds (merges that rewrite the last segment in
// place, several segments at once, touching and nested intervals).
TEST(RunningUnion, EachAddIsWhatItNewlyCoversOnAGrid) {
  std::mt19937_64 rng(40);
  for (int round = 0; round < 50; ++round) {
    RunningUnion u;
    std::vector<bool> covered(400, false);
    std::int64_t end = 0;
    for (int k = 0; k < 40; ++k) {
      end += std::uniform_int_distribution<std::int64_t>(0, 8)(rng);
      const std::int64_t start =
          std::max<std::int64_t>(0, end - std::uniform_int_distribution<std::int64_t>(0, 60)(rng));
      std::int64_t fresh = 0;
      for (std::int64_t t = start; t < end; ++t)  // picosecond [t, t + 1)
        if (!covered[static_cast<std::size_t>(t)]) covered[static_cast<std::size_t>(t)] = true, ++fresh;
      ASSERT_EQ(u.add(start, end), fresh) << "round " << round << ", interval " << k;
    }
  }
}

// A rank that simulates, skips, simulates again, as fast-forward leaves it: random iteration
// lengths and intervals (some longer than a period, some running past the skip), periods of 1 to
// 4 iterations, skips short (nothing to cut) and long.
struct Timeline {
  std::vector<std::int64_t> ends;
  std::vector<CommInterval> real;
  std::vector<PeriodSkip> skips;
};

Timeline random_timeline(std::mt19937_64& rng, int skip_count) {
  auto uni = [&rng](std::int64_t lo, std::int64_t hi) {
    return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng);
  };
  Timeline t;
  std::int64_t now = 0;
  auto simulate = [&](int iterations) {
    for (int j = 0; j < iterations; ++j) {
      const std::int64_t start = now, end = now + uni(80, 120);
      for (int c = static_cast<int>(uni(0, 4)); c > 0; --c) {
        const std::int64_t s = uni(start, end - 1);
        t.real.push_back({s, s + uni(1, uni(0, 3) == 0 ? 300 : 60)});
      }
      t.ends.push_back(now = end);
    }
  };
  simulate(static_cast<int>(uni(4, 8)));
  for (int k = 0; k < skip_count; ++k) {
    const int period = static_cast<int>(uni(1, 4));
    simulate(period + 1);
    const int first = static_cast<int>(t.ends.size());
    const std::int64_t P = t.ends.back() - t.ends[static_cast<std::size_t>(first - 1 - period)] + uni(-3, 3);
    const int M = static_cast<int>(uni(0, 1) ? uni(1, 6) : uni(20, 400));
    for (int m = 1; m <= M; ++m)  // the GPU's records: the period's, shifted (iteration_boundary.hpp)
      for (int j = 0; j < period; ++j) t.ends.push_back(t.ends[static_cast<std::size_t>(first - period + j)] + m * P);
    t.skips.push_back({first, M * period, period, P});
    now = t.ends[static_cast<std::size_t>(first - 1)] + M * P;  // the rank resumes a whole number of periods later
  }
  simulate(static_cast<int>(uni(1, 6)));
  std::stable_sort(t.real.begin(), t.real.end(),
                   [](const CommInterval& a, const CommInterval& b) { return a.end < b.end; });
  return t;
}

TEST(CommByIteration, EqualsSweepingEveryCopyOnRandomRanks) {
  std::mt19937_64 rng(20261204);
  for (int trial = 0; trial < 300; ++trial) {
    const Timeline t = random_timeline(rng, 1 + trial % 3);
    ASSERT_EQ(comm_by_iteration(t.real, t.ends, t.skips), comm_by_iteration_copied(t.real, t.ends, t.skips))
        << "trial " << trial;
  }
}

// A rank's intervals folded as they arrive, at random moments, with the bound a run gives (before
// every interval still open or to come and every skip's window still to come), sum to what
// comm_by_iteration gives the whole run; and most of them are folded before the run ends.
TEST(CommFolder, FoldingAsIntervalsArriveGivesTheWholeRunsSums) {
  std::mt19937_64 rng(20261207);
  std::size_t arrived = 0, folded = 0;
  for (int trial = 0; trial < 300; ++trial) {
    const Timeline t = random_timeline(rng, 1 + trial % 3);
    const std::int64_t last = std::max(t.ends.back(), t.real.empty() ? 0 : t.real.back().end);
    std::vector<std::int64_t> moments;
    for (int k = 0; k < 12; ++k) moments.push_back(std::uniform_int_distribution<std::int64_t>(0, last)(rng));
    std::sort(moments.begin(), moments.end());
    CommFolder folder;
    std::vector<CommInterval> kept;
    std::size_t next = 0;
    for (const std::int64_t now : moments) {
      while (next < t.real.size() && t.real[next].end <= now) kept.push_back(t.real[next++]);
      std::vector<PeriodSkip> known;  // a skip is known once the rank reaches it
      std::int64_t bound = now;
      for (const PeriodSkip& s : t.skips) {
        if (t.ends[static_cast<std::size_t>(s.first - 1)] <= now) known.push_back(s);
        else bound = std::min(bound, t.ends[static_cast<std::size_t>(s.first - 1 - s.period)] - 1);
      }
      for (std::size_t i = next; i < t.real.size(); ++i) bound = std::min(bound, t.real[i].start - 1);
      // The iterations ended by now, and those a known skip recorded ahead of time.
      std::size_t ended = 0;
      while (ended < t.ends.size() && t.ends[ended] <= now) ++ended;
      for (const PeriodSkip& s : known) ended = std::max(ended, static_cast<std::size_t>(s.first + s.count));
      const std::vector<std::int64_t> ends(t.ends.begin(), t.ends.begin() + static_cast<std::ptrdiff_t>(ended));
      const std::size_t took = folder.fold(kept, ends, known, bound);
      kept.erase(kept.begin(), kept.begin() + static_cast<std::ptrdiff_t>(took));
      folded += took;
    }
    while (next < t.real.size()) kept.push_back(t.real[next++]);
    arrived += t.real.size();
    ASSERT_EQ(folder.sums(kept, t.ends, t.skips), comm_by_iteration(t.real, t.ends, t.skips)) << "trial " << trial;
  }
  EXPECT_GT(folded, arrived / 4) << folded << " of " << arrived;
}

TEST(CommByIteration, WithoutSkipsIsTheUnionByEndIteration) {
  // [0, 4] ends in iteration 0; in iteration 1 [3, 12] adds 8 (past 4) and [15, 18] u [17, 20] 5.
  const std::vector<CommInterval> real{{0, 4}, {3, 12}, {15, 18}, {17, 20}};
  const std::vector<std::int64_t> ends{10, 20};
  EXPECT_EQ(comm_by_iteration(real, ends, {}), (std::vector<std::int64_t>{4, 8 + 5}));
}

}  // namespace test_comm_by_iteration
}  // namespace trainvp
