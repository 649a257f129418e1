#include "models/health/link_prober.hpp"

#include <algorithm>
#include <set>
#include <string>

#include "models/collectives/program.hpp"
#include "platform/core/sim_time.hpp"

namespace trainvp {

struct LinkProber::Run {
  std::vector<std::pair<int, int>> edges;
  std::vector<std::vector<int>> passes;
  std::size_t pass = 0;
  int edges_left = 0;                        // in the running pass
  std::vector<std::vector<double>> seconds;  // per edge, per step
  Done done;
};

LinkProber::LinkProber(CollectiveEngine& engine, std::vector<int> nodes_of, std::uint64_t min_bytes, int repeats,
                       Defer defer)
    : engine_(engine),
      nodes_of_(std::move(nodes_of)),
      min_bytes_(min_bytes),
      repeats_(repeats),
      defer_(std::move(defer)) {}

std::vector<std::vector<int>> LinkProber::passes(const std::vector<std::pair<int, int>>& edges) {
  std::vector<std::vector<int>> out;
  std::vector<std::set<int>> used;
  for (std::size_t e = 0; e < edges.size(); ++e) {
    std::size_t p = 0;
    while (p < out.size() && (used[p].count(edges[e].first) || used[p].count(edges[e].second))) ++p;
    if (p == out.size()) out.emplace_back(), used.emplace_back();
    out[p].push_back(static_cast<int>(e));
    used[p].insert(edges[e].first), used[p].insert(edges[e].second);
  }
  return out;
}

void LinkProber::probe(std::vector<std::pair<int, int>> edges, Done done) {
  auto run = std::make_shared<Run>();
  run->passes = passes(edges);
  run->seconds.assign(edges.size(), {});
  run->edges = std::move(edges);
  run->done = std::move(done);
  next_pass(run);
}

void LinkProber::next_pass(const std::shared_ptr<Run>& run) {
  if (run->pass == run->passes.size()) {
    std::vector<LinkProbeResult> out;
    for (std::size_t e = 0; e < run->edges.size(); ++e) {
      // Median of the repeats of the smallest and of the largest message.
      auto med = [&](int size) {
        std::vector<double> v(run->seconds[e].begin() + size * repeats_,
                              run->seconds[e].begin() + (size + 1) * repeats_);
        std::sort(v.begin(), v.end());
        return v[v.size() / 2];
      };
      const double dt = med(2) - med(0);
      LinkProbeResult r;
      r.src = run->edges[e].first, r.dst = run->edges[e].second;
      r.bandwidth_Bps = dt > 0 ? static_cast<double>(3 * min_bytes_) / dt : 0.0;
      out.push_back(r);
    }
    run->done(std::move(out));
    return;
  }
  const std::vector<int>& pass = run->passes[run->pass];
  run->edges_left = static_cast<int>(pass.size());
  for (int e : pass) send(run, e, 0);
}

// Step s of an edge: size s / repeats (min, 2 min, 4 min), one message at a time.
void LinkProber::send(const std::shared_ptr<Run>& run, int edge, int step) {
  const auto [src, dst] = run->edges[static_cast<std::size_t>(edge)];
  const std::uint64_t bytes = min_bytes_ << (step / repeats_);
  const std::int64_t start = now_ps();
  auto left = std::make_shared<int>(2);
  const int id = engine_.launch(
      std::make_shared<const CompiledProgram>(
          build_program(CollectiveOp::SendRecv, CollectiveAlgo::Ring, {src, dst}, bytes, engine_.chunk(), nodes_of_)),
      CollectiveOp::SendRecv, CollectiveAlgo::Ring, bytes,
      "probe link r" + std::to_string(src) + ">r" + std::to_string(dst) + " " + std::to_string(bytes >> 20) + "MiB",
      [this, run, edge, step, start, left](int) {
        if (--*left > 0) return;
        const std::int64_t now = now_ps();
        run->seconds[static_cast<std::size_t>(edge)].push_back(static_cast<double>(now - start) * 1e-12);
        defer_([this, run, edge, step] {
          if (step + 1 < 3 * repeats_) return send(run, edge, step + 1);
          if (--run->edges_left == 0) ++run->pass, next_pass(run);
        });
      });
  engine_.join(id, src);
  engine_.join(id, dst);
}

}  // namespace trainvp
