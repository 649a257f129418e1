#include "models/parallel/tp_traffic.hpp"

#include <limits>
#include <string>

#include "platform/core/sim_time.hpp"

namespace trainvp {

TpTraffic::TpTraffic(const ParallelLayout& layout, CollectiveEngine& engine, ProgramCache& programs,
                     ParallelTrafficSink& sink, PipelineTraffic& pipeline, std::vector<const Workload*> stages,
                     CollectiveAlgo algorithm, std::size_t ranks)
    : layout_(layout),
      engine_(engine),
      programs_(programs),
      sink_(sink),
      pipeline_(pipeline),
      stages_(std::move(stages)),
      algorithm_(algorithm),
      state_(ranks) {
  std::size_t base = 0;
  for (const Workload* w : stages_) stage_base_.push_back(base), base += 4 * w->layers.size();
  program_of_.resize(base * static_cast<std::size_t>(layout_.config().dp));
}

void TpTraffic::queue_send(int rank, int iteration, const ScheduleBlock& block) {
  RankState& st = state_[static_cast<std::size_t>(rank)];
  st.sends.push_back({block, iteration, st.seq});
}

void TpTraffic::flush(int rank) {
  RankState& st = state_[static_cast<std::size_t>(rank)];
  const std::uint64_t oldest_open = st.open.empty() ? std::numeric_limits<std::uint64_t>::max() : st.open.front().seq;
  std::size_t kept = 0;
  for (std::size_t i = 0; i < st.sends.size(); ++i) {
    if (st.sends[i].after <= oldest_open) pipeline_.send(rank, st.sends[i].iteration, st.sends[i].block);
    else st.sends[kept++] = st.sends[i];
  }
  st.sends.resize(kept);
}

void TpTraffic::join(int rank, int iteration, const Phase& ph, int part) {
  const ParallelCoord c = layout_.coord(rank);
  const bool fwd = ph.kind == PhaseKind::Forward;
  const TpCollective key{c.pp, c.dp, iteration, ph.micro_batch, ph.layer, (fwd ? 0 : 2) + part};
  auto [entry, fresh] = live_.try_emplace(key, -1, layout_.config().tp);
  if (fresh) {
    const Layer& layer = stages_[static_cast<std::size_t>(c.pp)]->layers[static_cast<std::size_t>(ph.layer)];
    const std::uint64_t bytes = fwd ? layer.tp_fwd_bytes : layer.tp_bwd_bytes;
    const bool sp = layout_.config().sequence_parallel;
    const CollectiveOp op = !sp         ? CollectiveOp::AllReduce
                            : part == 0 ? CollectiveOp::ReduceScatter
                                        : CollectiveOp::AllGather;
    const CollectiveAlgo algo = op == CollectiveOp::AllReduce ? algorithm_ : CollectiveAlgo::Ring;
    std::shared_ptr<const CompiledProgram>& program =
        program_of_[(stage_base_[static_cast<std::size_t>(c.pp)] + 4 * static_cast<std::size_t>(ph.layer) +
                     static_cast<std::size_t>(key.tag)) *
                        static_cast<std::size_t>(layout_.config().dp) +
                    static_cast<std::size_t>(c.dp)];
    if (!program) program = programs_.get(op, layout_.tp_group(c.pp, c.dp), bytes);
    Label label;
    label << "tp it" << iteration << " mb" << ph.micro_batch << " " << layer.name << (fwd ? " fwd s" : " bwd s") << c.pp
          << "d" << c.dp;
    entry->second.first = engine_.launch(program, op, algo, bytes, label.str(),
                                         [this, iteration, ph, part](int r) { done(r, iteration, ph, part); });
  }
  const int id = entry->second.first;
  if (--entry->second.second == 0) live_.erase(entry);
  RankState& st = state_[static_cast<std::size_t>(rank)];
  ++st.pending;
  st.joined = now_ps();
  if (part == 0) {
    const std::uint64_t seq = st.seq++;
    for (OpenTp& o : st.open)  // a pass joined again names the newest only (it stays open)
      if (o.iteration == iteration && o.micro_batch == ph.micro_batch && o.layer == ph.layer && o.backward == !fwd)
        o.layer = kOrphan;
    st.open.push_back({seq, iteration, ph.micro_batch, ph.layer, !fwd});
  }
  engine_.join(id, rank);
}

void TpTraffic::done(int rank, int iteration, const Phase& ph, int part) {
  RankState& st = state_[static_cast<std::size_t>(rank)];
  sink_.comm_done(rank, iteration, WaitKind::Tp, st.joined, now_ps());
  --st.pending;
  if (part == 0 && layout_.config().sequence_parallel) {  // then the all-gather
    join(rank, iteration, ph, 1);
    return;
  }
  const bool backward = ph.kind != PhaseKind::Forward;
  for (auto it = st.open.begin(); it != st.open.end(); ++it)
    if (it->iteration == iteration && it->micro_batch == ph.micro_batch && it->layer == ph.layer &&
        it->backward == backward) {
      st.open.erase(it);  // keeps join order
      break;
    }
  flush_sends(rank);
  if (st.pending > 0) return;
  sink_.wake(rank);
}

}  // namespace trainvp
