#pragma once
// S2, rebalance (docs/health.md#mitigation): the data-parallel replicas' micro-batches (plain data
// parallelism: samples) split so that the slowest replica's time is smallest
// (models/health/algorithms/rebalance.hpp), the total fixed; a replica's GPUs then do m_j / m of
// their forward and backward work. It knows which GPUs are slow and by how much, and re-probes
// them every `recheck_iterations` windows while the split stands: once they are healthy again
// (a fault that ended without a drop the detector could see, since the split set the pace), it
// says so, and the ladder decides what follows.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <vector>

#include "models/health/diagnosis.hpp"
#include "models/health/diagnosis_source.hpp"
#include "models/health/window.hpp"
#include "platform/system/health/common_boundary.hpp"
#include "platform/system/health/mitigation_action.hpp"

namespace trainvp {

class SplitStep {
 public:
  struct Shape {
    std::vector<int> replica_of;  // per rank: its data-parallel replica
    int replicas = 1;
    int units = 1;  // micro-batches (or samples) per replica and iteration
  };
  // `healed`: a re-check found these GPUs healthy again (some or all of those it works around,
  // in the order their probes ended) while the split stands.
  SplitStep(Shape shape, CommonBoundary& boundary, DiagnosisSource* monitor,
            std::function<void(std::vector<int> healed)> healed);

  bool split() const { return split_; }  // the replicas run uneven shares
  const std::vector<int>& slow_gpus() const { return slow_gpus_; }
  double gpu_factor(int rank) const { return gpu_factor_[static_cast<std::size_t>(rank)]; }
  int replicas() const { return shape_.replicas; }
  int units() const { return shape_.units; }
  int replica_of(int rank) const { return shape_.replica_of[static_cast<std::size_t>(rank)]; }

  // A diagnosis's GPUs: their replicas' time per unit (a compute diagnosis: its GEMM probes'
  // ratio; a late host: its slowdown). True when some replica became slower.
  bool note(const Diagnosis& d);
  // The oracle: GPU `rank` runs at `speed` of its datasheet from now (1: healthy again).
  void known_slow(int rank, double speed);
  void known_healthy(int rank);
  // Sets each rank's share for the slowest-first split and records it; false where no replica
  // is slower (nothing to move).
  bool rebalance(MitigationAction& a);
  void even(MitigationAction& a);  // back to `units` per replica, recorded
  void drop();                     // back to even shares unrecorded (a restart splits evenly anyway)
  void forget();                   // no GPU is known slow any more
  // An S3 move put the hardware of rank r at rank where[r]: what is known of it follows.
  void follow(const std::vector<int>& where);

  // A window closed: counts it toward the next re-check (none while a move is pending: the GPUs
  // probed are those the hardware moves to). A fast-forwarded window's re-check would find what
  // the last one found (`known`, see below): it is counted, not run.
  void window(const MonitorWindow& w, bool move_pending, int every, std::int64_t last_fault_change_ps);
  bool checking() const { return checking_; }
  // Every GPU it works around was last re-probed slow after the last fault change: with no
  // change inside a skip (fast-forward stops before each), a re-check would find them slow again.
  bool known(std::int64_t last_fault_change_ps) const;
  // The most windows a skip may cover before the next re-check must run (negative: no limit
  // from here).
  std::int64_t windows_to_recheck(int every, std::int64_t last_fault_change_ps) const;
  int rechecks() const { return rechecks_; }
  int rechecks_fast_forwarded() const { return rechecks_fast_forwarded_; }
  // A re-check found `healed` healthy: they are no longer worked around, and their replicas'
  // factors come from the GPUs still slow.
  void healed(const std::vector<int>& healed);

 private:
  void recheck();

  Shape shape_;
  CommonBoundary& boundary_;
  DiagnosisSource* monitor_;
  std::function<void(std::vector<int>)> on_healed_;
  std::vector<double> factor_;                 // per replica: time per unit relative to healthy
  std::vector<double> gpu_factor_;             // per rank: its diagnosed time per unit (1: not slow)
  std::vector<int> slow_gpus_;                 // worked around (compute diagnoses), in the order found
  std::map<int, std::int64_t> found_slow_ps_;  // per GPU: the start of the last re-check that found it slow
  bool split_ = false;
  bool checking_ = false;
  int since_check_ = 0;
  int rechecks_ = 0, rechecks_fast_forwarded_ = 0;
};

}  // namespace trainvp
