// The time base's edges: durations computed from rates saturate instead of overflowing, and
// per-iteration state grows only as iterations are reached.
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

}  // namespace trainvp
