// Link-probe passes: no rank twice in a pass, 2 passes for an even ring and 3 for an odd one (the
// paper's count), every edge once.
#include <gtest/gtest.h>

#include <set>

#include "models/health/link_prober.hpp"

namespace trainvp {
namespace test_link_prober {  // named for the file: unity builds join test files (cmake/unit_tests.cmake)

std::vector<std::pair<int, int>> ring(int n) {
  std::vector<std::pair<int, int>> e;
  for (int i = 0; i < n; ++i) e.push_back({i, (i + 1) % n});
  return e;
}

void expect_valid(const std::vector<std::pair<int, int>>& edges, const std::vector<std::vector<int>>& passes) {
  std::multiset<int> all;
  for (auto& p : passes) {
    std::set<int> used;
    for (int e : p) {
      all.insert(e);
      EXPECT_TRUE(used.insert(edges[e].first).second);
      EXPECT_TRUE(used.insert(edges[e].second).second);
    }
  }
  EXPECT_EQ(all.size(), edges.size());
  EXPECT_EQ(std::set<int>(all.begin(), all.end()).size(), edges.size());
}

TEST(LinkProber, AnEvenRingTakesTwoPassesAndAnOddRingThree) {
  for (int n : {2, 4, 8, 16}) {
    auto p = LinkProber::passes(ring(n));
    EXPECT_EQ(p.size(), 2u) << n;
    expect_valid(ring(n), p);
  }
  for (int n : {3, 5, 9}) {
    auto p = LinkProber::passes(ring(n));
    EXPECT_EQ(p.size(), 3u) << n;
    expect_valid(ring(n), p);
  }
}

}  // namespace test_link_prober
}  // namespace trainvp
