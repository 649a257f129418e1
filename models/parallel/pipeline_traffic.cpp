#include "models/parallel/pipeline_traffic.hpp"

#include <string>

#include "platform/core/sim_time.hpp"

namespace trainvp {

PipelineTraffic::PipelineTraffic(const ParallelLayout& layout, CollectiveEngine& engine, ProgramCache& programs,
                                 ParallelTrafficSink& sink, std::uint64_t boundary_bytes, std::size_t ranks)
    : layout_(layout),
      engine_(engine),
      programs_(programs),
      sink_(sink),
      boundary_bytes_(boundary_bytes),
      p_(layout.config().pp),
      overlap_p2p_(layout.config().overlap_p2p),
      state_(ranks) {}

void PipelineTraffic::send(int rank, int iteration, const ScheduleBlock& b) {
  const ParallelCoord c = layout_.coord(rank);
  const int g = b.chunk * p_ + c.pp + (b.backward ? -1 : 1);  // the neighbouring global chunk
  const int to_stage = g % p_, to_chunk = g / p_;
  const int dst = layout_.rank({c.tp, to_stage, c.dp});
  const std::uint64_t bytes = boundary_bytes_;
  const std::int64_t start = now_ps();
  const int id = engine_.launch(
      programs_.get(CollectiveOp::SendRecv, {rank, dst}, bytes), CollectiveOp::SendRecv, CollectiveAlgo::Ring, bytes,
      "pp it" + std::to_string(iteration) + " mb" + std::to_string(b.micro_batch) + " s" + std::to_string(c.pp) + ">s" +
          std::to_string(to_stage) + (b.backward ? " bwd" : " fwd") + " t" + std::to_string(c.tp) + "d" +
          std::to_string(c.dp),
      [this, iteration, dst, to_chunk, b, start](int r) {
        sink_.comm_done(r, iteration, WaitKind::Pp, start, now_ps());
        if (r != dst) {
          if (--state_[static_cast<std::size_t>(r)].sends_in_flight == 0 && !overlap_p2p_) sink_.wake(r);
          return;
        }
        state_[static_cast<std::size_t>(dst)].arrived.insert({iteration, to_chunk, b.micro_batch, b.backward});
        sink_.wake(dst);
      });
  ++state_[static_cast<std::size_t>(rank)].sends_in_flight;
  engine_.join(id, rank);
  engine_.join(id, dst);  // the receive is posted ahead, as Megatron's batched p2p does
}

}  // namespace trainvp
