#pragma once
// What ParallelSync's traffic objects (TpTraffic, PipelineTraffic, ZeroGathers, Zero3Gathers)
// report to it: each collective's [join, done] interval for the wait attribution, the per-iteration
// record they add to, and that a GPU's gate may have opened. The attribution stays in one place.
#include <cstdint>

namespace trainvp {

// Why a GPU waits; also the order results list them in.
enum class WaitKind { Tp, Pp, Dp, Count };

// Per GPU and iteration: time blocked at each gate, and time with collectives of each kind in
// flight (picoseconds).
struct ParallelRankIteration {
  std::int64_t blocked[static_cast<int>(WaitKind::Count)] = {0, 0, 0};
  std::int64_t comm[static_cast<int>(WaitKind::Count)] = {0, 0, 0};  // TP, PP: union; DP: see comm_of
  std::int64_t model_compute = 0;  // forward and backward phases (the optimizer step excluded)
  // ZeRO-3's layer parameter all-gathers joined for this iteration: how many, their bytes (each
  // the gathered layer's whole size n), the union of their [join, done] intervals, and the time
  // a phase waited for one (part of blocked[Dp]).
  int z3_gathers = 0;
  std::uint64_t z3_gather_bytes = 0;
  std::int64_t z3_gather_comm = 0, z3_gather_blocked = 0;
};

class ParallelTrafficSink {
 public:
  virtual ParallelRankIteration& record(int rank, int iteration) = 0;
  // A collective of `kind` that `rank` joined at `from` completed on it at `to`.
  virtual void comm_done(int rank, int iteration, WaitKind kind, std::int64_t from, std::int64_t to) = 0;
  virtual void wake(int rank) = 0;  // the GPU's gate re-asks, this delta cycle

 protected:
  ~ParallelTrafficSink() = default;
};

}  // namespace trainvp
