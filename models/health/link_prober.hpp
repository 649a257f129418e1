#pragma once
// GREYHOUND's link validation: point-to-point probes over the edges a suspect communicator
// actually uses, as real traffic on the platform (competing with training). Edges are grouped into
// passes in which no rank sends or receives twice (2 passes for an even ring, 3 for an odd one);
// each edge sends messages of min, 2 x min and 4 x min bytes, `repeats` times each, and its
// bandwidth is the slope between the smallest and the largest (latency cancels).
#include <cstdint>
#include <functional>
#include <memory>
#include <utility>
#include <vector>

#include "models/collectives/engine.hpp"
#include "models/health/diagnosis.hpp"

namespace trainvp {

class LinkProber {
 public:
  using Defer = std::function<void(std::function<void()>)>;  // runs work outside engine callbacks
  using Done = std::function<void(std::vector<LinkProbeResult>)>;
  LinkProber(CollectiveEngine& engine, std::vector<int> nodes_of, std::uint64_t min_bytes, int repeats, Defer defer);
  // Probes `edges` (source, destination rank); `done` gets one result per edge (slow unset).
  void probe(std::vector<std::pair<int, int>> edges, Done done);

  // Passes of edges in which no rank appears twice, in edge order (greedy; exact for rings).
  static std::vector<std::vector<int>> passes(const std::vector<std::pair<int, int>>& edges);

 private:
  struct Run;
  void next_pass(const std::shared_ptr<Run>& run);
  void send(const std::shared_ptr<Run>& run, int edge, int step);

  CollectiveEngine& engine_;
  std::vector<int> nodes_of_;
  std::uint64_t min_bytes_;
  int repeats_;
  Defer defer_;
};

}  // namespace trainvp
