// BusySeries against hand-worked buckets: intervals split at bucket edges, the width doubling as
// intervals end later, a share of an interval, a spread, a series shown at a wider width,
// intervals summed inside their bucket, and prepared steps replayed as the same additions.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "models/link/busy_series.hpp"

namespace trainvp {
namespace test_busy_series {  // named for the file: unity builds join test files (cmake/unit_tests.cmake)

constexpr std::int64_t kW = BusySeries::kFirstWidthPs;
constexpr auto kN = static_cast<std::int64_t>(BusySeries::kBuckets);

TEST(BusySeries, AnIntervalIsSplitAtTheBucketEdges) {
  BusySeries s;
  EXPECT_TRUE(s.empty());
  s.add(1500, 3200);  // 500 ps in bucket 1, 1000 in bucket 2, 200 in bucket 3
  EXPECT_EQ(s.width_ps(), kW);
  const std::vector<double> b = s.at_width(kW, 4);
  EXPECT_EQ(b, (std::vector<double>{0, 500, 1000, 200}));
  EXPECT_EQ(s.total_ps(), 1700);
}

TEST(BusySeries, TheWidthDoublesWhenAnIntervalEndsPastTheLastBucket) {
  BusySeries s;
  s.add(0, 100);
  s.add(kN * kW - 10, kN * kW + 10);  // ends 10 ps past bucket 127: two buckets become one
  EXPECT_EQ(s.width_ps(), 2 * kW);
  const std::vector<double> b = s.at_width(2 * kW, 65);
  EXPECT_EQ(b[0], 100);
  EXPECT_EQ(b[63], 10);  // [126 w, 128 w) at the new width
  EXPECT_EQ(b[64], 10);
  s.add(0, 5 * kN * kW);  // busy throughout 5 x the first span: 8 x the first width
  EXPECT_EQ(s.width_ps(), 8 * kW);
  EXPECT_EQ(s.at_width(8 * kW, 80)[0], 100 + 8 * kW);
  EXPECT_EQ(s.at_width(8 * kW, 80)[79], 8 * kW);
  EXPECT_EQ(s.total_ps(), 100 + 20 + 5 * kN * kW);
}

TEST(BusySeries, AShareOfAnIntervalAndASpreadAddTheirPart) {
  BusySeries s;
  s.add(0, 2000, 0.25);          // a quarter of each of buckets 0 and 1
  s.spread(2000, 6000, 1000.0);  // 1000 ps over 4 buckets: 250 each
  EXPECT_EQ(s.at_width(kW, 6), (std::vector<double>{250, 250, 250, 250, 250, 250}));
  EXPECT_EQ(s.at_width(2 * kW, 3), (std::vector<double>{500, 500, 500}));
}

TEST(BusySeries, TheCommonWidthCoversTheRunAndTheWidestSeries) {
  EXPECT_EQ(BusySeries::common_width(0, 0), kW);
  EXPECT_EQ(BusySeries::common_width(kN * kW, 0), kW);
  EXPECT_EQ(BusySeries::common_width(kN * kW + 1, 0), 2 * kW);
  EXPECT_EQ(BusySeries::common_width(kN * kW, 4 * kW), 4 * kW);
  EXPECT_EQ(BusySeries::common_width(1000000000000, 0), kW << 23);  // 1 s: 1 ns x 2^23 x 128 = 1.07 s
}

// A kept ring's steps (FlowNetwork::flush_group) go into each link's series prepared once: the
// buckets, width and last end must be those of adding the intervals one by one, bit for bit, on a
// series that is empty, one that has to coarsen on the way and one wider than the steps were
// prepared for (the same Steps reused across them). A third of a picosecond count rounds, and
// buckets take several steps each, so another order or a sum in one go would show.
// What the flow network sums per link before adding (FlowNetwork::integrate_at): the bucket a time
// falls in, none past the span or before the first add, and a sum added there as one.
TEST(BusySeries, IntervalsSummedInsideTheirBucketAddAsOne) {
  BusySeries s;
  std::int64_t lo = -1, hi = -1;
  EXPECT_FALSE(s.bucket_at(0, &lo, &hi));  // nothing allocated yet
  s.add(100, 1200);                        // 900 ps in bucket 0, 200 in bucket 1
  ASSERT_TRUE(s.bucket_at(1200, &lo, &hi));
  EXPECT_EQ(lo, kW);
  EXPECT_EQ(hi, 2 * kW);
  EXPECT_FALSE(s.bucket_at(kN * kW, &lo, &hi));  // past the span: an add there would grow it
  BusySeries t;
  t.add(100, 1200);
  t.add(1200, 1500), t.add(1500, 1900, 0.5);
  s.add_in_bucket(kW, 300 + 0.5 * 400, 1900);
  EXPECT_EQ(s.at_width(kW, 3), t.at_width(kW, 3));
  EXPECT_EQ(s.last_end_ps(), t.last_end_ps());
  EXPECT_EQ(s.total_ps(), 900 + 200 + 300 + 200);
}

TEST(BusySeries, PreparedStepsAreTheSameAdditionsInTheSameOrder) {
  std::vector<std::int64_t> pairs;
  for (std::int64_t i = 0; i < 300; ++i) pairs.insert(pairs.end(), {i * 997 + 13, i * 997 + 13 + 700 + i % 5});
  pairs.insert(pairs.end(), {400000, 400000});  // empty: skipped
  const std::size_t n = pairs.size() / 2;
  const double share = 1.0 / 3;
  BusySeries::Steps steps(pairs.data(), n, share);
  auto starts = [](int which, BusySeries& s) {
    if (which == 1) s.add(5, 1000, 0.7);               // one bucket in: the steps' growth coarsens it
    if (which == 2) s.add(0, 10 * kN * kW + 3, 0.25);  // already wider than the steps need
  };
  for (int which : {0, 1, 2, 0}) {
    BusySeries one, prepared;
    starts(which, one);
    starts(which, prepared);
    for (std::size_t i = 0; i < n; ++i) one.add(pairs[2 * i], pairs[2 * i + 1], share);
    prepared.add(steps);
    EXPECT_EQ(prepared.width_ps(), one.width_ps()) << which;
    EXPECT_EQ(prepared.last_end_ps(), one.last_end_ps()) << which;
    EXPECT_EQ(prepared.at_width(one.width_ps(), BusySeries::kBuckets),
              one.at_width(one.width_ps(), BusySeries::kBuckets))
        << which;
  }
}

}  // namespace test_busy_series
}  // namespace trainvp
