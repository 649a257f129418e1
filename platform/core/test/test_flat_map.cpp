// FlatMap64 (platform/core/flat_map.hpp) against std::unordered_map under the churn the engine and
// the AT initiator put it through: every key inserted, found and erased as the reference says,
// including keys that share a home slot (erase must shift their probe run back, not lose them).
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <unordered_map>

#include "platform/core/flat_map.hpp"

namespace trainvp {
namespace test_flat_map {  // named for the file: unity builds join test files (cmake/unit_tests.cmake)

void expect_same(FlatMap64<int>& m, const std::unordered_map<std::uint64_t, int>& ref, std::uint64_t universe) {
  ASSERT_EQ(m.size(), ref.size());
  for (std::uint64_t k = 0; k < universe; ++k) {
    auto it = ref.find(k);
    const int* v = m.find(k);
    if (it == ref.end()) {
      EXPECT_EQ(v, nullptr) << "key " << k;
    } else {
      ASSERT_NE(v, nullptr) << "key " << k;
      EXPECT_EQ(*v, it->second) << "key " << k;
    }
  }
}

TEST(FlatMap64, RandomInsertEraseMatchesUnorderedMap) {
  FlatMap64<int> m;
  std::unordered_map<std::uint64_t, int> ref;
  std::mt19937_64 rng(7);
  constexpr std::uint64_t kUniverse = 300;  // small: many keys share probe runs
  for (int step = 0; step < 20000; ++step) {
    const std::uint64_t k = rng() % kUniverse;
    switch (rng() % 3) {
      case 0:
        m[k] = step;
        ref[k] = step;
        break;
      case 1: EXPECT_EQ(m.erase(k), ref.erase(k) == 1) << "key " << k; break;
      default: EXPECT_EQ(m.contains(k), ref.count(k) == 1) << "key " << k;
    }
    if (step % 997 == 0) expect_same(m, ref, kUniverse);
  }
  expect_same(m, ref, kUniverse);
  std::size_t seen = 0;
  m.for_each([&](std::uint64_t k, int v) {
    ++seen;
    EXPECT_EQ(ref.at(k), v);
  });
  EXPECT_EQ(seen, ref.size());
}

TEST(FlatMap64, OperatorBracketValueInitializesAndClearEmpties) {
  FlatMap64<std::uint32_t> m;
  EXPECT_EQ(m.find(5), nullptr);
  EXPECT_EQ(m[5], 0u);
  m[5] += 3;
  EXPECT_EQ(*m.find(5), 3u);
  EXPECT_FALSE(m.erase(6));
  // Pointer-like keys (the AT initiator's payloads) and packed tuples with high bits set.
  const std::uint64_t big = (1ull << 63) | (42ull << 22);
  m[big] = 9;
  EXPECT_EQ(*m.find(big), 9u);
  EXPECT_EQ(m.size(), 2u);
  m.clear();
  EXPECT_TRUE(m.empty());
  EXPECT_EQ(m.find(5), nullptr);
  m[7] = 1;  // usable again after clear
  EXPECT_EQ(*m.find(7), 1u);
}

}  // namespace test_flat_map
}  // namespace trainvp
