#include "models/health/algorithms/swap_plan.hpp"

#include <stdexcept>

namespace trainvp {

namespace {

void check(const RoleSwapInput& in, const std::vector<int>& at) {
  const std::size_t n = in.traffic.size();
  if (in.crossing.size() != n || at.size() != n)
    throw std::invalid_argument("role swap: slots, nodes and placement differ in number");
  std::vector<bool> seen(n, false);
  for (std::size_t a = 0; a < n; ++a) {
    if (in.traffic[a].size() != n || in.crossing[a].size() != n)
      throw std::invalid_argument("role swap: matrices are not square");
    const int p = at[a];
    if (p < 0 || static_cast<std::size_t>(p) >= n || seen[static_cast<std::size_t>(p)])
      throw std::invalid_argument("role swap: the placement is not a permutation of the nodes");
    seen[static_cast<std::size_t>(p)] = true;
  }
}

// The crossing bytes of the pairs that involve slot a or b (each pair once): what a swap of a
// and b changes.
double touching(const RoleSwapInput& in, const std::vector<int>& at, std::size_t a, std::size_t b) {
  double s = 0;
  for (std::size_t x = 0; x < at.size(); ++x) {
    const auto px = static_cast<std::size_t>(at[x]);
    for (std::size_t y : {a, b}) {
      if (x == y) continue;
      const auto py = static_cast<std::size_t>(at[y]);
      s += in.traffic[y][x] * in.crossing[py][px];
      if (x != a && x != b) s += in.traffic[x][y] * in.crossing[px][py];
    }
  }
  return s;
}

}  // namespace

double crossing_bytes(const RoleSwapInput& in, const std::vector<int>& at) {
  check(in, at);
  double s = 0;
  for (std::size_t a = 0; a < at.size(); ++a)
    for (std::size_t b = 0; b < at.size(); ++b)
      if (a != b) s += in.traffic[a][b] * in.crossing[static_cast<std::size_t>(at[a])][static_cast<std::size_t>(at[b])];
  return s;
}

RoleSwap plan_role_swap(const RoleSwapInput& in, double min_gain) {
  RoleSwap out;
  out.at = in.at;
  out.before = out.after = crossing_bytes(in, in.at);
  const double bar = min_gain * out.before;
  const std::size_t n = out.at.size();
  // Each swap lowers the crossing bytes by more than `bar` > 0, so the loop ends; n swaps place
  // every slot anywhere, and more would revisit placements.
  for (std::size_t round = 0; round < n && out.after > 0; ++round) {
    double best = bar;
    std::pair<std::size_t, std::size_t> pick{n, n};
    for (std::size_t a = 0; a < n; ++a)
      for (std::size_t b = a + 1; b < n; ++b) {
        const double was = touching(in, out.at, a, b);
        std::swap(out.at[a], out.at[b]);
        const double gain = was - touching(in, out.at, a, b);
        std::swap(out.at[a], out.at[b]);
        if (gain > best) best = gain, pick = {a, b};
      }
    if (pick.first == n) break;
    std::swap(out.at[pick.first], out.at[pick.second]);
    out.swaps.emplace_back(static_cast<int>(pick.first), static_cast<int>(pick.second));
    out.after = crossing_bytes(in, out.at);
  }
  return out;
}

}  // namespace trainvp
