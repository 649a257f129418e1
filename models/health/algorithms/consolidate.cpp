#include "models/health/algorithms/consolidate.hpp"

#include <algorithm>
#include <numeric>
#include <stdexcept>

#include "models/health/algorithms/rebalance.hpp"

namespace trainvp {

double placement_cost(const ConsolidationInput& in, const std::vector<int>& host) {
  const std::size_t nodes = in.cells.size();
  if (in.factor.size() != nodes || host.size() != nodes || in.replicas < 1 || in.units < 1 || in.stage_work.empty())
    throw std::invalid_argument("placement_cost: inputs of different sizes");
  const std::size_t stages = in.stage_work.size();
  const double healthy = *std::max_element(in.stage_work.begin(), in.stage_work.end());
  // Per replica and stage: the slowest factor among the cells there.
  std::vector<double> slowest(static_cast<std::size_t>(in.replicas) * stages, 1.0);
  for (std::size_t n = 0; n < nodes; ++n) {
    const auto& hw = in.factor[static_cast<std::size_t>(host[n])];
    if (hw.size() != in.cells[n].size()) throw std::invalid_argument("placement_cost: nodes hold different cells");
    for (std::size_t k = 0; k < hw.size(); ++k) {
      const PlacementCell c = in.cells[n][k];
      if (c.replica < 0 || c.replica >= in.replicas || c.stage < 0 || static_cast<std::size_t>(c.stage) >= stages)
        throw std::invalid_argument("placement_cost: a cell outside the layout");
      double& s = slowest[static_cast<std::size_t>(c.replica) * stages + static_cast<std::size_t>(c.stage)];
      s = std::max(s, hw[k]);
    }
  }
  std::vector<double> replica(static_cast<std::size_t>(in.replicas), 0.0);
  for (std::size_t r = 0; r < replica.size(); ++r)
    for (std::size_t s = 0; s < stages; ++s)
      replica[r] = std::max(replica[r], in.stage_work[s] * slowest[r * stages + s] / healthy);
  if (!in.rebalance) return *std::max_element(replica.begin(), replica.end());
  const std::vector<int> m = rebalance_micro_batches(replica, in.units * in.replicas);
  double t = 0;
  for (std::size_t r = 0; r < replica.size(); ++r) t = std::max(t, replica[r] * m[r] / in.units);
  return t;
}

Consolidation plan_consolidation(const ConsolidationInput& in, double min_gain) {
  const int nodes = static_cast<int>(in.cells.size());
  std::vector<int> host(static_cast<std::size_t>(nodes));
  std::iota(host.begin(), host.end(), 0);
  auto slow = [&](int slot) {
    const auto& f = in.factor[static_cast<std::size_t>(host[static_cast<std::size_t>(slot)])];
    return std::any_of(f.begin(), f.end(), [](double x) { return x > 1.0; });
  };
  Consolidation out;
  out.before = out.after = placement_cost(in, host);
  for (int round = 0; round < nodes; ++round) {
    double best = out.after * (1.0 - min_gain);
    int ba = -1, bb = -1;
    for (int a = 0; a < nodes; ++a) {
      if (!slow(a)) continue;
      for (int b = 0; b < nodes; ++b) {
        if (b == a || (slow(b) && b < a)) continue;  // a pair of slow nodes is tried once
        std::swap(host[static_cast<std::size_t>(a)], host[static_cast<std::size_t>(b)]);
        const double c = placement_cost(in, host);
        std::swap(host[static_cast<std::size_t>(a)], host[static_cast<std::size_t>(b)]);
        if (c < best) best = c, ba = std::min(a, b), bb = std::max(a, b);
      }
    }
    if (ba < 0) break;
    std::swap(host[static_cast<std::size_t>(ba)], host[static_cast<std::size_t>(bb)]);
    out.swaps.emplace_back(ba, bb);
    out.after = best;
  }
  return out;
}

}  // namespace trainvp
