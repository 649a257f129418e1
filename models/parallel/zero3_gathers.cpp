#include "models/parallel/zero3_gathers.hpp"

#include <string>

#include "models/workload/dtype.hpp"
#include "platform/core/sim_time.hpp"

namespace trainvp {

Zero3Gathers::Zero3Gathers(const ParallelLayout& layout, CollectiveEngine& engine, ProgramCache& programs,
                           ParallelTrafficSink& sink, std::vector<const Gpu*> members, int prefetch)
    : layout_(layout),
      engine_(engine),
      programs_(programs),
      sink_(sink),
      members_(std::move(members)),
      prefetch_(prefetch),
      state_(members_.size()) {}

std::optional<Zero3Gather> Zero3Gathers::need_of(int rank, int iteration, std::uint64_t index) const {
  const Gpu* gpu = members_[static_cast<std::size_t>(rank)];
  if (iteration >= gpu->iterations_planned() || index >= gpu->schedule().size()) return std::nullopt;
  const Phase ph = gpu->schedule().at(index);
  if (ph.layer < 0) return std::nullopt;
  const Layer& l = gpu->workload().layers[static_cast<std::size_t>(ph.layer)];
  if (l.params == 0) return std::nullopt;
  // A layer's parameters are gathered before its forward and again before its backward's first phase.
  if (ph.kind == PhaseKind::Forward) return Zero3Gather{iteration, ph.micro_batch, ph.layer, false};
  if (ph.kind == PhaseKind::BackwardInput || !has_input_grad_phase(l))
    return Zero3Gather{iteration, ph.micro_batch, ph.layer, true};
  return std::nullopt;
}

void Zero3Gathers::start() {
  for (const Gpu* g : members_)
    if (g)
      for (std::uint64_t i = 0; i < static_cast<std::uint64_t>(prefetch_); ++i) join(g->rank(), 0, i);
}

void Zero3Gathers::phase_ended(int rank, int iteration) {
  RankState& st = state_[static_cast<std::size_t>(rank)];
  const std::uint64_t ended = st.phase_index;
  const std::uint64_t phases = members_[static_cast<std::size_t>(rank)]->schedule().size();
  st.phase_index = ended + 1 == phases ? 0 : ended + 1;
  if (const std::optional<Zero3Gather> used = need_of(rank, iteration, ended)) st.done.erase(*used);  // freed
  // Prefetch: the gathers of the next phases (into the next iteration after the last).
  for (std::uint64_t ahead = ended + 1; ahead <= ended + static_cast<std::uint64_t>(prefetch_); ++ahead)
    join(rank, ahead < phases ? iteration : iteration + 1, ahead % phases);
}

void Zero3Gathers::join(int rank, int iteration, std::uint64_t index) {
  const std::optional<Zero3Gather> need = need_of(rank, iteration, index);
  RankState& st = state_[static_cast<std::size_t>(rank)];
  if (!need || st.done.count(*need) || !st.joined.insert(*need).second) return;
  const ParallelCoord c = layout_.coord(rank);
  auto [entry, fresh] = live_.try_emplace(Zero3Collective{c.pp, c.tp, *need}, -1, layout_.config().dp);
  const std::int64_t start = now_ps();
  const Gpu* gpu = members_[static_cast<std::size_t>(rank)];
  const Phase ph = gpu->schedule().at(index);
  const Layer& l = gpu->workload().layers[static_cast<std::size_t>(ph.layer)];
  const std::uint64_t bytes = l.params * dtype_bytes(gpu->workload().shape.dtype);
  ParallelRankIteration& rec = sink_.record(rank, iteration);
  ++rec.z3_gathers;
  rec.z3_gather_bytes += bytes;
  if (fresh) {
    const Zero3Gather g = *need;
    entry->second.first =
        engine_.launch(programs_.get(CollectiveOp::AllGather, layout_.dp_group(c.tp, c.pp), bytes),
                       CollectiveOp::AllGather, CollectiveAlgo::Ring, bytes,
                       "zero3 it" + std::to_string(iteration) + " mb" + std::to_string(ph.micro_batch) + " " + l.name +
                           (g.backward ? " bwd" : " fwd") + " s" + std::to_string(c.pp) + "t" + std::to_string(c.tp),
                       [this, iteration, g, start](int r) {
                         sink_.comm_done(r, iteration, WaitKind::Dp, start, now_ps());
                         RankState& rs = state_[static_cast<std::size_t>(r)];
                         sink_.record(r, iteration).z3_gather_comm += rs.in_flight.add(start, now_ps());
                         rs.joined.erase(g);
                         rs.done.insert(g);
                         sink_.wake(r);
                       });
  }
  const int id = entry->second.first;
  if (--entry->second.second == 0) live_.erase(entry);
  engine_.join(id, rank);
}

std::string Zero3Gathers::waited(int rank, int iteration) const {
  const std::optional<Zero3Gather> need = need_of(rank, iteration, state_[static_cast<std::size_t>(rank)].phase_index);
  if (!need) return "nothing";
  return "the ZeRO-3 all-gather of layer " + std::to_string(need->layer) + "'s parameters for the " +
         (need->backward ? "backward" : "forward") + " of micro-batch " + std::to_string(need->micro_batch) +
         " of iteration " + std::to_string(need->iteration);
}

}  // namespace trainvp
