// SmallRing (platform/core/small_ring.hpp) against std::deque: the same elements in the same order
// through random pushes and pops, across the move from the inline buffer to the heap and the wrap
// of the read position in both.
#include <gtest/gtest.h>

#include <deque>
#include <random>

#include "platform/core/small_ring.hpp"

namespace trainvp {
namespace test_small_ring {  // named for the file: unity builds join test files (cmake/unit_tests.cmake)

TEST(SmallRing, RandomPushPopMatchesDeque) {
  SmallRing<int, 4> r;
  std::deque<int> ref;
  std::mt19937 rng(7);
  int next = 0;
  for (int step = 0; step < 20000; ++step) {
    // Grows to a few hundred elements in the first half, then drains: both buffers wrap.
    const bool push = ref.empty() || std::uniform_int_distribution<int>(0, 99)(rng) < (step < 10000 ? 52 : 45);
    if (push) {
      r.push_back(next), ref.push_back(next), ++next;
    } else {
      ASSERT_EQ(r.front(), ref.front()) << "step " << step;
      r.pop_front(), ref.pop_front();
    }
    ASSERT_EQ(r.size(), ref.size());
    ASSERT_EQ(r.empty(), ref.empty());
  }
  while (!ref.empty()) {
    ASSERT_EQ(r.front(), ref.front());
    r.pop_front(), ref.pop_front();
  }
  EXPECT_TRUE(r.empty());
}

TEST(SmallRing, KeepsOrderWhenGrowingWithAWrappedReadPosition) {
  SmallRing<int, 4> r;
  for (int i = 0; i < 3; ++i) r.push_back(i);
  r.pop_front(), r.pop_front();                 // read position 2: the next pushes wrap around the inline buffer
  for (int i = 3; i < 12; ++i) r.push_back(i);  // full at 4 elements, then grows twice
  for (int i = 2; i < 12; ++i) {
    ASSERT_EQ(r.front(), i);
    r.pop_front();
  }
  EXPECT_TRUE(r.empty());
}

}  // namespace test_small_ring
}  // namespace trainvp
