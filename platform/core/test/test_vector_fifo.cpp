// pop_front (platform/core/vector_fifo.hpp): the order of a std::deque, and a vector that stays
// bounded under a queue that never drains (the dead prefix is cut).
#include <gtest/gtest.h>

#include <deque>
#include <vector>

#include "platform/core/vector_fifo.hpp"

namespace trainvp {
namespace test_vector_fifo {  // named for the file: unity builds join test files (cmake/unit_tests.cmake)

TEST(VectorFifo, KeepsOrderAndStaysBoundedWhenItNeverDrains) {
  std::vector<int> q;
  std::size_t head = 0;
  std::deque<int> ref;
  int next = 0;
  for (int i = 0; i < 10; ++i) q.push_back(next), ref.push_back(next), ++next;  // 10 always waiting
  for (int step = 0; step < 100000; ++step) {
    q.push_back(next), ref.push_back(next), ++next;
    ASSERT_EQ(pop_front(q, head), ref.front()) << "step " << step;
    ref.pop_front();
    ASSERT_EQ(q.size() - head, ref.size());
    ASSERT_LE(q.size(), 2 * 64 + 20u) << "step " << step;
  }
}

TEST(VectorFifo, RestartsAtTheBeginningWhenDrained) {
  std::vector<int> q{1, 2, 3};
  std::size_t head = 0;
  EXPECT_EQ(pop_front(q, head), 1);
  EXPECT_EQ(pop_front(q, head), 2);
  EXPECT_EQ(pop_front(q, head), 3);
  EXPECT_TRUE(q.empty());
  EXPECT_EQ(head, 0u);
}

}  // namespace test_vector_fifo
}  // namespace trainvp
