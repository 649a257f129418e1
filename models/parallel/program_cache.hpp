#pragma once
// The compiled programs of ParallelSync's collectives (TP, pipeline sends, ZeRO all-gathers),
// built once per communicator and size: thousands of collectives per iteration share a few.
#include <cstdint>
#include <map>
#include <memory>
#include <tuple>
#include <vector>

#include "models/collectives/engine.hpp"

namespace trainvp {

class ProgramCache {
 public:
  // `tp_algorithm`: the all-reduce's algorithm (TP's); the others are rings.
  ProgramCache(CollectiveEngine& engine, CollectiveAlgo tp_algorithm, std::vector<int> nodes_of)
      : engine_(engine), tp_algorithm_(tp_algorithm), nodes_of_(std::move(nodes_of)) {}

  // `comm`: the communicator's ranks in ring order (a SendRecv: source, destination).
  std::shared_ptr<const CompiledProgram> get(CollectiveOp op, const std::vector<int>& comm, std::uint64_t bytes);

 private:
  CollectiveEngine& engine_;
  CollectiveAlgo tp_algorithm_;
  std::vector<int> nodes_of_;
  // By (op, bytes, first two ranks, size): a pair of ranks lies along one dimension only, so this
  // names the communicator without spelling it out on every collective.
  std::map<std::tuple<int, std::uint64_t, int, int, std::size_t>, std::shared_ptr<const CompiledProgram>> programs_;
};

}  // namespace trainvp
