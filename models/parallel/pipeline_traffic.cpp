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
      v_(layout.config().virtual_stages),
      overlap_p2p_(layout.config().overlap_p2p),
      state_(ranks),
      program_of_(ranks * static_cast<std::size_t>(2 * v_)) {}

void PipelineTraffic::send(int rank, int iteration, const ScheduleBlock& b) {
  const ParallelCoord c = layout_.coord(rank);
  const int g = b.chunk * p_ + c.pp + (b.backward ? -1 : 1);  // the neighbouring global chunk
  const int to_stage = g % p_, to_chunk = g / p_;
  const int dst = layout_.rank({c.tp, to_stage, c.dp});
  const std::uint64_t bytes = boundary_bytes_;
  const std::int64_t start = now_ps();
  std::shared_ptr<const CompiledProgram>& program =
      program_of_[(static_cast<std::size_t>(rank) * static_cast<std::size_t>(v_) + static_cast<std::size_t>(b.chunk)) *
                      2 +
                  (b.backward ? 1 : 0)];
  if (!program) program = programs_.get(CollectiveOp::SendRecv, {rank, dst}, bytes);
  Label label;
  label << "pp it" << iteration << " mb" << b.micro_batch << " s" << c.pp << ">s" << to_stage
        << (b.backward ? " bwd t" : " fwd t") << c.tp << "d" << c.dp;
  const int id = engine_.launch(
      program, CollectiveOp::SendRecv, CollectiveAlgo::Ring, bytes, label.str(),
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
