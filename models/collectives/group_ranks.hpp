#pragma once
// A synchronization strategy's communicator: its GPUs' global ranks, and where a global rank sits
// among them. Every GPU in pure data parallelism (the identity); one DP group of a pipeline stage
// in hybrid parallelism, where a strategy's per-rank state is indexed by that position.
#include <cstddef>
#include <unordered_map>
#include <vector>

#include "models/gpu/gpu.hpp"

namespace trainvp {

class GroupRanks {
 public:
  explicit GroupRanks(const std::vector<Gpu*>& gpus) {
    for (std::size_t r = 0; r < gpus.size(); ++r) {
      world_.push_back(gpus[r]->rank());
      if (gpus[r]->rank() != static_cast<int>(r)) dense_ = false;
      position_[gpus[r]->rank()] = r;
    }
  }
  const std::vector<int>& world() const { return world_; }
  std::size_t at(int rank) const { return dense_ ? static_cast<std::size_t>(rank) : position_.at(rank); }

 private:
  std::vector<int> world_;
  bool dense_ = true;
  std::unordered_map<int, std::size_t> position_;
};

}  // namespace trainvp
