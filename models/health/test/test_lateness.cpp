// The late-rank signal on synthetic arrivals (docs/health.md#late-ranks): the tracker names a rank
// that starts arriving late once its lateness over the median, averaged over lateness_windows
// windows, reaches the threshold (a closed form of the per-window excess), not the ranks late from
// the start (a layout's); a rank stays late down to half the threshold; and the detector turns a
// rank newly late under a flat iteration time into a finding of its own, while one made late by a
// change of the iteration time is left to the change point. A slowdown with no outlier rank or
// communicator is marked as such, with what its transfers did against their own baseline.
#include <gtest/gtest.h>

#include <cmath>
#include <optional>
#include <vector>

#include "models/health/detector.hpp"
#include "models/health/lateness.hpp"

namespace trainvp {
namespace test_lateness {  // named for the file: unity builds join test files (cmake/unit_tests.cmake)

constexpr int kRanks = 8, kGroups = 4;

// Per rank: 1 ms of lateness each (arrival jitter), plus `late` s for the ranks in `late_ranks`.
std::vector<double> arrivals(const std::vector<int>& late_ranks, double late) {
  std::vector<double> l(kRanks, 0.001);
  for (int r : late_ranks) l[static_cast<std::size_t>(r)] += late;
  return l;
}

// The first window, counted from `from`, at which a per-window excess e (a fraction of the
// window) averaged over `windows` windows (the earlier ones 0) reaches `threshold`.
int crossing(int from, double e, double threshold, int windows) {
  return from + static_cast<int>(std::ceil(threshold * windows / e - 1e-9)) - 1;
}

TEST(Lateness, ARankThatStartsArrivingLateIsNamedWhenItsAverageExcessReachesTheThreshold) {
  const LatenessParams p;  // 10% of the window, over 3 windows
  LatenessTracker t{p};
  const double window = 2.0, late = 0.4;  // 20% of the window per window
  int named = -1;
  for (int k = 0; k < 40; ++k) {
    const auto in = t.add(arrivals(k >= 20 ? std::vector<int>{3} : std::vector<int>{}, late), window);
    if (!in.empty()) {
      ASSERT_EQ(in, std::vector<int>{3}) << k;
      ASSERT_LT(named, 0) << "named twice";
      named = k;
    }
  }
  EXPECT_EQ(named, crossing(20, late / window, p.threshold, p.windows));  // 21: (0.2 + 0.2) / 3 >= 0.1
  EXPECT_TRUE(t.late(3));
  EXPECT_EQ(t.late_ranks(), std::vector<int>{3});
  EXPECT_EQ(t.late_since(3), 20);
  EXPECT_NEAR(t.excess(3), late / window, 1e-12);
}

TEST(Lateness, RanksLateFromTheStartAreTheLayoutNotAChange) {
  LatenessTracker t{LatenessParams{}};
  for (int k = 0; k < 30; ++k) EXPECT_TRUE(t.add(arrivals({1, 6}, 0.5), 2.0).empty()) << k;
  EXPECT_EQ(t.late_ranks(), (std::vector<int>{1, 6}));
}

TEST(Lateness, ARankStaysLateDownToHalfTheThresholdAndIsNamedAgainWhenItComesBack) {
  const LatenessParams p;
  LatenessTracker t{p};
  int k = 0, named = 0;
  auto run = [&](int n, double late) {
    for (int i = 0; i < n; ++i, ++k) named += static_cast<int>(t.add(arrivals({4}, late), 1.0).size());
  };
  run(5, 0.0);
  run(5, 0.2);  // named
  EXPECT_EQ(named, 1);
  run(10, 0.07);  // 7%: under the threshold, over half of it: still late, not named again
  EXPECT_TRUE(t.late(4));
  EXPECT_EQ(named, 1);
  run(10, 0.0);  // gone
  EXPECT_FALSE(t.late(4));
  EXPECT_EQ(t.late_since(4), -1);
  run(5, 0.2);
  EXPECT_EQ(named, 2);
}

TEST(Lateness, WhenEveryRankIsEquallyLateNoneIsLate) {
  // The median is the peers' reference: with every rank equally late there is no late rank.
  LatenessTracker t{LatenessParams{}};
  for (int k = 0; k < 10; ++k) t.add(arrivals({}, 0), 1.0);
  for (int k = 0; k < 10; ++k) EXPECT_TRUE(t.add(arrivals({0, 1, 2, 3, 4, 5, 6, 7}, 0.4), 1.0).empty());
  EXPECT_TRUE(t.late_ranks().empty());
}

// Detector windows: iteration time `t`, the ranks of `late` arriving `late_s` later, every
// communicator's transfers `transfer` s.
MonitorWindow window(int k, double t, const std::vector<int>& late = {}, double late_s = 0, double transfer = 0.1) {
  MonitorWindow w;
  w.start_ps = static_cast<std::int64_t>(k) * 2'000'000'000'000;
  w.end_ps = w.start_ps + static_cast<std::int64_t>(std::llround(t * 1e12));
  w.lateness_s = arrivals(late, late_s);
  w.transfer_s.assign(kGroups, transfer);
  w.bytes.assign(kGroups, 1e9);
  return w;
}

const std::vector<int> kSizes(kGroups, 4);

TEST(Lateness, ARankNewlyLateUnderAFlatIterationTimeIsAFindingOfItsOwn) {
  // Rank 5 at 0.8 from window 20: the iteration takes 1.25 (a change point names rank 5). Rank 2
  // at 0.8 too from window 40: the job already waits for rank 5, so the iteration stays 1.25, but
  // rank 2 now arrives as late as rank 5 (0.25 s of 1.25: 20% of the window).
  DetectorParams p;
  Detector d{p};
  std::vector<ChangeFinding> found;
  std::vector<int> at;
  for (int k = 0; k < 70; ++k) {
    const std::vector<int> late = k >= 40 ? std::vector<int>{5, 2} : k >= 20 ? std::vector<int>{5} : std::vector<int>{};
    if (auto f = d.add(window(k, k >= 20 ? 1.25 : 1.0, late, 0.25), kSizes)) found.push_back(*f), at.push_back(k);
  }
  ASSERT_EQ(found.size(), 2u);
  EXPECT_FALSE(found[0].late_rank);
  EXPECT_EQ(found[0].compute_suspects, std::vector<int>{5});
  const ChangeFinding& f = found[1];
  EXPECT_TRUE(f.late_rank);
  EXPECT_TRUE(f.slowdown);
  EXPECT_EQ(f.compute_suspects, std::vector<int>{2});
  EXPECT_EQ(f.change_window, 40);
  EXPECT_EQ(at[1], crossing(40, 0.25 / 1.25, p.lateness_threshold, p.lateness_windows));  // 41
  EXPECT_NEAR(f.before_s, 1.0, 1e-9);                                                     // the healthy level
  EXPECT_NEAR(f.after_s, 1.25, 1e-9);
}

TEST(Lateness, ARankMadeLateByAChangeOfTheIterationTimeIsLeftToTheChangePoint) {
  // 15% per window: the rank is late as the change point is verified (or a window later); it is
  // the change point's suspect, not a second finding.
  Detector d{DetectorParams{}};
  int findings = 0;
  for (int k = 0; k < 60; ++k)
    if (auto f =
            d.add(window(k, k >= 20 ? 1.2 : 1.0, k >= 20 ? std::vector<int>{6} : std::vector<int>{}, 0.18), kSizes)) {
      ++findings;
      EXPECT_FALSE(f->late_rank);
      EXPECT_EQ(f->compute_suspects, std::vector<int>{6});
    }
  EXPECT_EQ(findings, 1);
}

TEST(Lateness, ASlowdownWithNoOutlierSaysWhatTheTransfersDidAgainstTheirOwnBaseline) {
  // Every rank equally slower (no one late), transfers unchanged: no outlier, transfers 1.0x.
  {
    Detector d{DetectorParams{}};
    std::optional<ChangeFinding> f;
    for (int k = 0; k < 40 && !f; ++k) f = d.add(window(k, k >= 20 ? 1.3 : 1.0), kSizes);
    ASSERT_TRUE(f);
    EXPECT_TRUE(f->no_outlier);
    EXPECT_NEAR(f->transfer_ratio, 1.0, 1e-9);
    EXPECT_EQ(f->measured_comms, (std::vector<int>{0, 1, 2, 3}));
    EXPECT_TRUE(f->grown_comms.empty());
  }
  // Every communicator's transfers 3x longer: no outlier either (they are each other's peers),
  // but against their own baseline they all grew.
  {
    Detector d{DetectorParams{}};
    std::optional<ChangeFinding> f;
    for (int k = 0; k < 40 && !f; ++k) f = d.add(window(k, k >= 20 ? 1.3 : 1.0, {}, 0, k >= 20 ? 0.3 : 0.1), kSizes);
    ASSERT_TRUE(f);
    EXPECT_TRUE(f->no_outlier);
    EXPECT_NEAR(f->transfer_ratio, 3.0, 1e-9);
    EXPECT_EQ(f->grown_comms, (std::vector<int>{0, 1, 2, 3}));
  }
}

}  // namespace test_lateness
}  // namespace trainvp
