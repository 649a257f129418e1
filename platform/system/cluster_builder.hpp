#pragma once
// The hardware of a scenario, elaborated: its nodes and their GPUs, a CXL device per node when it
// has one, the CPU aggregator nodes, the fabric (topology and routing) joining them, and the collective engine over it.
// What runs on it (training and its strategy, a benchmark, faults) is built on top.
#include <memory>
#include <string>
#include <vector>

#include "models/aggregator/aggregator.hpp"
#include "models/collectives/engine.hpp"
#include "models/cxl/cxl_device.hpp"
#include "models/nvswitch/nvls_unit.hpp"
#include "models/parallel/plan.hpp"
#include "platform/config/scenario.hpp"
#include "platform/core/run_context.hpp"
#include "platform/system/fabric/fabric.hpp"
#include "platform/system/node.hpp"

namespace trainvp {

// Members in elaboration order, so they are destroyed in the reverse.
struct Cluster {
  std::vector<std::unique_ptr<Node>> nodes;
  std::vector<std::unique_ptr<CxlDevice>> cxl;
  std::vector<std::unique_ptr<Aggregator>> aggregators;  // CPU aggregator nodes aggA
  std::vector<std::unique_ptr<NvlsUnit>> nvls;           // NVLink SHARP units, of the nodes that have one
  std::unique_ptr<Fabric> fabric;
  std::unique_ptr<CollectiveEngine> engine;
  std::vector<Gpu*> gpus;     // node by node: by rank
  std::vector<int> nodes_of;  // per rank: its node
};

// `waves`: the file the first node's CXL device writes its waveforms to (path "": none).
// `parallel` (null without training.parallel): each GPU runs its pipeline stage's layers and schedule.
// `job_of` (with /jobs): per rank, the job whose workload and iterations its GPU runs (null: idle);
// its trace track sits under "JOB: nodeN", so the jobs show side by side. `plan_of` (with /jobs):
// per rank, its job's hybrid-parallel plan (null: none), whose stage the GPU runs.
Cluster build_cluster(const Scenario& s, RunContext& ctx, const WaveOptions& waves,
                      const ParallelPlan* parallel = nullptr, const std::vector<const JobConfig*>* job_of = nullptr,
                      const std::vector<const ParallelPlan*>* plan_of = nullptr);

}  // namespace trainvp
