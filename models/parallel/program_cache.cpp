#include "models/parallel/program_cache.hpp"

#include <utility>

namespace trainvp {

std::shared_ptr<const CompiledProgram> ProgramCache::get(CollectiveOp op, const std::vector<int>& comm,
                                                         std::uint64_t bytes) {
  const auto key = std::make_tuple(static_cast<int>(op), bytes, comm[0], comm[1], comm.size());
  auto it = programs_.find(key);
  if (it != programs_.end()) return it->second;
  Program pr;
  if (op == CollectiveOp::SendRecv) {  // one direction only: a pipeline send
    pr.ranks = comm;
    Transfer x;
    x.src = comm[0], x.dst = comm[1], x.bytes = bytes;
    pr.transfers.push_back(x);
  } else {
    pr = build_program(op, op == CollectiveOp::AllReduce ? tp_algorithm_ : CollectiveAlgo::Ring, comm, bytes,
                       engine_.chunk(), nodes_of_, 0, &engine_.device_map(), &engine_.ring_layout());
  }
  auto cp = std::make_shared<const CompiledProgram>(std::move(pr));
  programs_.emplace(key, cp);
  return cp;
}

}  // namespace trainvp
