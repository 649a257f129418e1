// StreamQueues: a stream runs one piece of work at a time per rank, in the order it became ready;
// streams and ranks do not hold each other up.
#include <gtest/gtest.h>

#include "models/collectives/stream_queues.hpp"

namespace trainvp {
namespace test_stream_queues {  // named for the file: unity builds join test files (cmake/unit_tests.cmake)

TEST(StreamQueues, OneAtATimePerRankAndStreamInReadyOrder) {
  StreamQueues s;
  s.reset(2, 2, 8);
  s.push(0, 0, {1, 7});
  s.push(0, 0, {1, 3});
  s.push(0, 1, {1, 5});
  const auto first = s.start_next(0, 0, 100);
  ASSERT_TRUE(first.has_value());
  EXPECT_EQ(first->iteration, 1);
  EXPECT_EQ(first->index, 7);
  EXPECT_FALSE(s.start_next(0, 0, 150).has_value()) << "stream 0 of rank 0 is running bucket 7";
  EXPECT_EQ(s.waiting(0, 0), 1u);
  const auto other = s.start_next(0, 1, 200);  // another stream runs beside it
  ASSERT_TRUE(other.has_value());
  EXPECT_EQ(other->index, 5);
  EXPECT_FALSE(s.start_next(1, 0, 200).has_value()) << "rank 1 has nothing ready";
  EXPECT_FALSE(s.busy(1, 0));
  s.finished(0, 0);
  const auto second = s.start_next(0, 0, 300);
  ASSERT_TRUE(second.has_value());
  EXPECT_EQ(second->index, 3);
  EXPECT_TRUE(s.busy(0, 0));
  EXPECT_EQ(s.waiting(0, 0), 0u);
  // Each work's start, by rank and index: where its busy interval begins.
  EXPECT_EQ(s.started_ps(0, 7), 100);
  EXPECT_EQ(s.started_ps(0, 5), 200);
  EXPECT_EQ(s.started_ps(0, 3), 300);
  EXPECT_EQ(s.started_ps(1, 7), -1);
}

}  // namespace test_stream_queues
}  // namespace trainvp
