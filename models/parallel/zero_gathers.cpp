#include "models/parallel/zero_gathers.hpp"

#include <string>

#include "models/workload/dtype.hpp"
#include "platform/core/sim_time.hpp"

namespace trainvp {

ZeroGathers::ZeroGathers(const ParallelLayout& layout, CollectiveEngine& engine, ProgramCache& programs,
                         ParallelTrafficSink& sink, std::vector<const Workload*> stages, std::size_t ranks)
    : layout_(layout),
      engine_(engine),
      programs_(programs),
      sink_(sink),
      stages_(std::move(stages)),
      gathered_(ranks, -1) {}

void ZeroGathers::gather(int rank, int iteration) {
  const ParallelCoord c = layout_.coord(rank);
  auto [entry, fresh] = live_.try_emplace(ZeroGatherKey{c.pp, c.tp, iteration}, -1, layout_.config().dp);
  const std::int64_t start = now_ps();
  if (fresh) {
    const Workload& w = *stages_[static_cast<std::size_t>(c.pp)];
    const std::uint64_t bytes = w.total_params() * dtype_bytes(w.shape.dtype);
    entry->second.first = engine_.launch(
        programs_.get(CollectiveOp::AllGather, layout_.dp_group(c.tp, c.pp), bytes), CollectiveOp::AllGather,
        CollectiveAlgo::Ring, bytes,
        "zero it" + std::to_string(iteration) + " params s" + std::to_string(c.pp) + "t" + std::to_string(c.tp),
        [this, iteration, start](int r) {
          sink_.comm_done(r, iteration, WaitKind::Dp, start, now_ps());
          gathered_[static_cast<std::size_t>(r)] = iteration;
          sink_.wake(r);
        });
  }
  const int id = entry->second.first;
  if (--entry->second.second == 0) live_.erase(entry);
  engine_.join(id, rank);
}

}  // namespace trainvp
