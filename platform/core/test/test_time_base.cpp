// The time base's edges: durations computed from rates saturate instead of overflowing, and
// per-iteration state grows only as iterations are reached.
#include <cstdint>

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "platform/core/per_iteration.hpp"
#include "platform/core/sim_time.hpp"

namespace trainvp {

TEST(TimeBase, RoundPsRoundsToWholePicosecondsAndSaturatesAtForever) {
  EXPECT_EQ(round_ps(0.4), 0);
  EXPECT_EQ(round_ps(2.5), 3);
  EXPECT_EQ(round_ps(-7.0), 0);
  // 1 MiB at 1 bit/s: 8.39e18 ps, past the 63-bit clock once a start time is added.
  EXPECT_EQ(round_ps(1048576.0 * 8 * 1e12), kForeverPs);
  EXPECT_EQ(round_ps(std::numeric_limits<double>::infinity()), kForeverPs);
  EXPECT_EQ(round_ps(std::nan("")), kForeverPs);
  // The 720 h limit on every scenario time plus two saturated durations still fits.
  const double limit_ps = 720.0 * 3600 * 1e12;
  EXPECT_LT(limit_ps + 2.0 * static_cast<double>(kForeverPs),
            static_cast<double>(std::numeric_limits<std::int64_t>::max()));
  EXPECT_GT(static_cast<double>(kForeverPs), limit_ps);
}

TEST(PerIteration, AllocatesOnlyTheIterationsReached) {
  PerIteration<std::vector<int>> ids(std::vector<int>(3, -1));
  EXPECT_EQ(ids.reached(), 0u);
  EXPECT_EQ(ids.at(9999999), std::vector<int>(3, -1));  // reading ahead allocates nothing
  EXPECT_EQ(ids.reached(), 0u);
  ids[2][1] = 7;
  EXPECT_EQ(ids.reached(), 3u);
  EXPECT_EQ(ids.at(2)[1], 7);
  EXPECT_EQ(ids.at(0), std::vector<int>(3, -1));
}

TEST(PerIteration, SkippedIterationsReadAsThePeriodTheyRepeatWithoutCopies) {
  PerIteration<int> v(-1);
  for (int i = 0; i < 5; ++i) v[i] = 10 * i;  // iterations 0-4
  v[5] = 99;                                  // touched before the skip decided: dropped, as a copy over it
  v.repeat(5, 6, 2);                          // 5..10 repeat 3, 4
  const int want[] = {30, 40, 30, 40, 30, 40};
  for (int i = 5; i < 11; ++i) EXPECT_EQ(v.at(i), want[i - 5]) << i;
  EXPECT_EQ(v.source(10), 4);
  EXPECT_EQ(v.source(11), 11);
  EXPECT_EQ(v.reached(), 11u);
  EXPECT_THROW(v[7], std::logic_error);  // a skipped iteration is read-only
  v[11] = 110, v[12] = 120;
  EXPECT_EQ(v.at(11), 110);
  EXPECT_EQ(v.at(13), -1);
  EXPECT_EQ(v.reached(), 13u);
  v.repeat(13, 3, 1);  // 13..15 repeat 12; a second skip after the first
  EXPECT_EQ(v.at(15), 120);
  v[16] = 160;
  EXPECT_EQ(v.at(16), 160);
  EXPECT_EQ(v.at(12), 120);
  EXPECT_EQ(v.at(4), 40);
  // The definition: copies made one by one (iteration first + j copies first + j - m x period,
  // m = j / period + 1) give the same entries.
  std::vector<int> copied;
  for (int i = 0; i < 5; ++i) copied.push_back(10 * i);
  for (int i = 5; i < 11; ++i) copied.push_back(copied[static_cast<std::size_t>(i - ((i - 5) / 2 + 1) * 2)]);
  copied.push_back(110), copied.push_back(120);
  for (int i = 13; i < 16; ++i) copied.push_back(copied[static_cast<std::size_t>(i - (i - 13 + 1))]);
  copied.push_back(160);
  for (int i = 0; i < 17; ++i) EXPECT_EQ(v.at(i), copied[static_cast<std::size_t>(i)]) << i;
  EXPECT_THROW(v.repeat(14, 2, 1), std::logic_error);  // out of order
}

TEST(PerIteration, SkippedIterationsReadLaterByTheirWholePeriods) {
  PerIteration<int> v(-1);
  for (int i = 0; i < 5; ++i) v[i] = i;
  v.repeat(5, 6, 2, 100);  // 5, 6 one period (100) after 3, 4; 7, 8 two; 9, 10 three
  std::int64_t shift = -1;
  EXPECT_EQ(v.at(4, shift), 4);
  EXPECT_EQ(shift, 0);
  EXPECT_EQ(v.at(6, shift), 4);
  EXPECT_EQ(shift, 100);
  EXPECT_EQ(v.at(9, shift), 3);
  EXPECT_EQ(shift, 300);
  // A skip right after another repeats skipped iterations: 11, 12 repeat 9, 10 one period (7)
  // later, which repeat 3, 4 three periods of the first skip later.
  v.repeat(11, 2, 2, 7);
  EXPECT_EQ(v.at(12, shift), 4);
  EXPECT_EQ(shift, 307);
  v[13] = 13;
  EXPECT_EQ(v.at(13, shift), 13);
  EXPECT_EQ(shift, 0);
}

}  // namespace trainvp
