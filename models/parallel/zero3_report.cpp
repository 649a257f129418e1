// results.json's parallel.stages[].zero3 (docs/parallelism.md#zero-3-layer-wise): ZeRO-3's
// communication split into the layer parameter all-gathers and the gradient reduce-scatters, each
// with its time in flight and the time a GPU waited for it, and the buffers it needs.
#include <algorithm>

#include "models/parallel/memory.hpp"
#include "models/parallel/parallel_sync.hpp"
#include "models/workload/dtype.hpp"
#include "platform/core/sim_time.hpp"

namespace trainvp {

nlohmann::ordered_json ParallelSync::zero3_report(int stage, int warm, int n) const {
  using ojson = nlohmann::ordered_json;
  const std::vector<int> ranks = parts_.layout->stage_ranks(stage);
  const Workload& w = (*parts_.stages)[static_cast<std::size_t>(stage)].workload;
  double gathers = 0, gather_bytes = 0, gather_comm = 0, gather_exposed = 0, rs_comm = 0, rs_exposed = 0;
  std::uint64_t in_flight = 0;
  for (int r : ranks) {
    const SyncStrategy* dp = dp_strategy(r);
    in_flight = std::max(in_flight, dp ? dp->peak_in_flight_bytes(r) : 0);
    for (int i = warm; i < n; ++i) {
      const ParallelRankIteration& pi = record(r, i);
      gathers += pi.z3_gathers;
      gather_bytes += static_cast<double>(pi.z3_gather_bytes);
      gather_comm += sec(pi.z3_gather_comm);
      gather_exposed += sec(pi.z3_gather_blocked);
      // Every DP wait that is not for a gather is the optimizer step's, for the reduce-scatters.
      rs_exposed += sec(pi.blocked[static_cast<int>(WaitKind::Dp)] - pi.z3_gather_blocked);
      if (dp) rs_comm += sec(dp->comm_ps(r, i));
    }
  }
  const double div = static_cast<double>(std::max(1, n - warm)) * static_cast<double>(ranks.size());
  const double share = static_cast<double>(d_ - 1) / d_;  // of a ring collective's n each rank sends
  // Each iteration reduce-scatters every gradient once (m micro-batches accumulate first).
  const double grads = static_cast<double>(w.total_params() * dtype_bytes(w.shape.grad_dtype));
  const std::uint64_t gathered = zero3_gathered_bytes(w, prefetch_);
  ojson g, rs, mem;
  g["count"] = gathers / div;
  g["bytes"] = gather_bytes / div;
  g["wire_bytes"] = share * gather_bytes / div;
  g["comm_s"] = gather_comm / div;
  g["exposed_s"] = gather_exposed / div;
  rs["bytes"] = grads;
  rs["wire_bytes"] = share * grads;
  rs["comm_s"] = rs_comm / div;
  rs["exposed_s"] = rs_exposed / div;
  mem["gathered_params_bytes"] = gathered;
  mem["grads_in_flight_peak_bytes"] = in_flight;
  mem["bytes"] = gathered + in_flight;
  ojson o;
  o["prefetch"] = prefetch_;
  o["all_gather"] = g;
  o["reduce_scatter"] = rs;
  o["memory"] = mem;
  return o;
}

}  // namespace trainvp
