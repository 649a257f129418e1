#pragma once
// A checkpoint job (docs/jobs.md#checkpoint-jobs): every period, each node it holds writes its
// burst to a storage node, one point-to-point transfer per GPU to the storage node's GPU of the
// same local index (its rail's NIC), launched on the cluster's collective engine so that the
// bytes meet the training jobs' in the fabric's own queues. A burst ends when its last transfer
// has arrived; the next starts a period after the last one started, or when it ends if later.
#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>
#include <systemc>

#include "models/collectives/engine.hpp"
#include "platform/config/scenario.hpp"

namespace trainvp {

class CheckpointJob : public sc_core::sc_module {
 public:
  // `training_done`: whether every training job has ended (an unbounded job stops bursting then).
  CheckpointJob(sc_core::sc_module_name name, const JobConfig& job, const ClusterConfig& cluster,
                CollectiveEngine& engine, std::vector<int> nodes_of, std::function<bool()> training_done);

  struct Burst {
    std::int64_t start_ps = 0, end_ps = -1;  // -1: still running when the run ended
  };
  const JobConfig& config() const { return job_; }
  const std::vector<Burst>& bursts() const { return bursts_; }
  // (source rank, destination rank) of each transfer of a burst, in launch order.
  const std::vector<std::pair<int, int>>& transfers() const { return transfers_; }
  // No burst left to start or to finish; always, for a job without a burst count (it bursts while
  // training runs, and the run ends with the training, cutting a burst still running).
  bool done() const;
  const sc_core::sc_event& changed_event() const { return changed_; }  // a burst ended
  // results.json's entry of the job.
  nlohmann::ordered_json report() const;

 private:
  void run();
  void launch_burst();

  const JobConfig& job_;
  CollectiveEngine& engine_;
  std::vector<int> nodes_of_;
  std::function<bool()> training_done_;
  std::vector<std::pair<int, int>> transfers_;
  std::uint64_t bytes_per_transfer_ = 0;
  std::vector<Burst> bursts_;
  int left_ = 0;  // transfers of the running burst not yet arrived
  bool stopped_ = false;
  sc_core::sc_event burst_done_, changed_;
};

}  // namespace trainvp
