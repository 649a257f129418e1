// The flow network's completion heap against a sorted reference: one entry per id, keys moved in
// place both ways, erasures from the middle, and ties ordered by their sequence number.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <random>
#include <tuple>
#include <vector>

#include "models/link/completion_heap.hpp"

namespace trainvp {
namespace test_completion_heap {  // named for the file: unity builds join test files (cmake/unit_tests.cmake)

TEST(CompletionHeap, PopsInTimeThenSequenceOrderWithOneEntryPerId) {
  CompletionHeap h;
  h.set(3, 100, 5);
  h.set(1, 100, 2);  // same time, earlier sequence: first
  h.set(7, 50, 9);
  h.set(3, 20, 10);   // moved earlier: now the first of all
  h.set(7, 500, 11);  // moved later: now the last
  EXPECT_EQ(h.size(), 3u);
  std::vector<int> order;
  while (!h.empty()) order.push_back(h.top().id), h.pop();
  EXPECT_EQ(order, (std::vector<int>{3, 1, 7}));
}

TEST(CompletionHeap, EraseOfAbsentIdsIsHarmlessAndErasedIdsCanReturn) {
  CompletionHeap h;
  h.erase(4);  // never set
  h.set(4, 10, 1);
  h.erase(4);
  h.erase(4);
  EXPECT_TRUE(h.empty());
  EXPECT_FALSE(h.contains(4));
  h.set(4, 30, 2);
  EXPECT_TRUE(h.contains(4));
  EXPECT_EQ(h.top().at, 30);
}

// Random sets, moves and erasures: the heap's pops equal a std::map of (at, seq) -> id.
TEST(CompletionHeap, MatchesASortedReferenceUnderRandomUpdates) {
  std::mt19937 rng(7);
  CompletionHeap h;
  std::map<int, std::pair<std::int64_t, std::uint64_t>> key;  // id -> its current key
  std::uint64_t seq = 0;
  for (int step = 0; step < 20000; ++step) {
    const int id = static_cast<int>(rng() % 64);
    if (rng() % 4 == 0) {
      h.erase(id);
      key.erase(id);
    } else {
      const std::int64_t at = static_cast<std::int64_t>(rng() % 1000);  // many equal times
      h.set(id, at, seq);
      key[id] = {at, seq++};
    }
    ASSERT_EQ(h.size(), key.size());
    if (!key.empty()) {
      const auto first =
          std::min_element(key.begin(), key.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
      ASSERT_EQ(h.top().id, first->first);
    }
  }
  std::vector<std::tuple<std::int64_t, std::uint64_t, int>> expected;
  for (const auto& [id, k] : key) expected.emplace_back(k.first, k.second, id);
  std::sort(expected.begin(), expected.end());
  for (const auto& [at, s, id] : expected) {
    ASSERT_FALSE(h.empty());
    EXPECT_EQ(h.top().id, id);
    EXPECT_EQ(h.top().at, at);
    h.pop();
  }
  EXPECT_TRUE(h.empty());
}

}  // namespace test_completion_heap
}  // namespace trainvp
