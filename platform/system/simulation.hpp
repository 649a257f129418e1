#pragma once
// Elaborates a scenario into SystemC modules, runs it, and collects what happened.
// SystemC allows one elaboration per process: construct one Simulation per process.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/collectives/engine.hpp"
#include "models/health/monitor.hpp"
#include "models/parallel/plan.hpp"
#include "platform/system/cluster_builder.hpp"
#include "platform/system/chakra/chakra_run.hpp"
#include "platform/system/collective_bench.hpp"
#include "platform/system/fabric/fabric.hpp"
#include "platform/system/fast_forward/fast_forward.hpp"
#include "platform/system/faults/faults.hpp"
#include "platform/system/health/mitigation.hpp"
#include "platform/system/jobs/checkpoint_job.hpp"
#include "platform/system/jobs/job_run.hpp"
#include "platform/system/run_end.hpp"
#include "platform/system/run_progress.hpp"
#include "platform/core/run_context.hpp"
#include "platform/config/scenario.hpp"
#include "platform/system/sync/registry.hpp"
#include "platform/system/sync/sync_setup.hpp"
#include "platform/system/train/train_run.hpp"

namespace trainvp {

struct SimStats {
  double wall_s = 0;
  std::uint64_t events = 0;
  std::uint64_t delta_cycles = 0;
  std::int64_t simulated_ps = 0;
};

class Simulation {
 public:
  // elaborate_only: build every module (so the fabric's names exist and fault targets are
  // checked) but skip what only a run needs: dreamddp's profiling pre-simulation and its strategy.
  // progress: draw the one-line progress display on stderr (platform/system/run_progress.hpp).
  explicit Simulation(const Scenario& s, bool progress = false, bool elaborate_only = false);
  ~Simulation();
  // Runs to completion. Throws RunError when it stalls or reaches the time limit.
  void run();

  const Scenario& scenario() const { return scenario_; }
  const RunContext& context() const { return ctx_; }
  const SimStats& stats() const { return stats_; }
  std::vector<const Gpu*> gpus() const;
  const Fabric& fabric() const { return *cluster_.fabric; }
  Fabric& fabric() { return *cluster_.fabric; }  // tests may move ranks (Fabric::place_nodes)
  const CollectiveEngine& engine() const { return *cluster_.engine; }
  CollectiveEngine& engine() { return *cluster_.engine; }  // tests and tools may launch their own traffic
  const SyncStrategy* strategy() const { return strategy_.get(); }
  // training.parallel only (null otherwise): the plan, and the module that runs its traffic.
  const ParallelPlan* parallel() const { return parallel_.get(); }
  const ParallelSync* parallel_sync() const {
    return parallel_ ? static_cast<const ParallelSync*>(strategy_.get()) : nullptr;
  }
  const CollectiveBench* bench() const { return bench_.get(); }
  // /jobs: every training job's GPUs and strategy (empty for a scenario of one training).
  const std::vector<JobRun>& jobs() const { return jobs_; }
  // /jobs: the checkpoint jobs, in list order.
  std::vector<const CheckpointJob*> checkpoints() const;
  // /jobs/N/health: job `j`'s monitor (null without) and, after run(), its results.json `health`
  // scored against the faults that touch it and the neighbours' traffic (docs/health.md#with-jobs).
  const FailSlowMonitor* job_monitor(const JobConfig& j) const;
  const nlohmann::ordered_json& job_health_results(const JobConfig& j) const;
  // /workload/chakra: the traces' run (null otherwise).
  const ChakraRun* chakra() const { return chakra_.get(); }
  // The scenario's faults (null without any).
  const FaultInjector* faults() const { return faults_.get(); }
  FaultInjector* faults() { return faults_.get(); }  // a mitigation's hooks, for tests
  // The fail-slow monitor (/health; null without).
  const FailSlowMonitor* monitor() const { return monitor_.get(); }
  // results.json `health`: the monitor scored against the injected faults, at the end of run()
  // (null without /health).
  const nlohmann::ordered_json& health_results() const { return health_; }
  // Steady-state fast-forward (null for a collective benchmark).
  const FastForward* fast_forward() const { return fast_forward_.get(); }
  // Every fault injected, resolved: the scenario's, then the fault generator's in order of start
  // (a plain `faults` list, as DIR/faults.json holds it), and how many of them were generated.
  const nlohmann::json& fault_list() const { return fault_list_json_; }
  std::size_t generated_faults() const { return generated_; }
  // dreamddp only: the profile, the schedule and its prediction (docs/strategies.md); under
  // hybrid parallelism the first pipeline stage's (each stage has its own).
  const DreamDdpPlan* dreamddp() const { return dreamddp_.empty() ? nullptr : dreamddp_.front().get(); }
  std::vector<const CxlDevice*> cxl_devices() const;
  std::vector<const Aggregator*> aggregators() const;
  std::vector<const NvlsUnit*> nvls_units() const;
  // Tests' hooks: flip a result bit, read CSRs (an RTL read ticks the engine).
  CxlDevice& cxl_device(int node) { return *cluster_.cxl.at(static_cast<std::size_t>(node)); }
  // /workload/train: the real training replayed on the run's schedule and clock (null when off).
  const TrainRun* train() const { return train_.get(); }
  // Functional training mode's generator and checker (null when off).
  const FunctionalData* functional() const { return functional_.get(); }
  // The waveform file being written (DIR/.waves.vcd.tmp or .waves.fst.tmp), or "": renamed to
  // waves.vcd (waves.fst) with the outputs.
  const std::string& waves_tmp() const { return waves_tmp_; }
  // Closes the waveform file so it can be renamed; results must have been collected before.
  void keep_waves();

 private:
  std::string stall_report() const;
  std::unique_ptr<SyncStrategy> make_parallel_sync(const Scenario& s, const SyncStrategyEntry& sync,
                                                   const std::vector<int>& nodes_of);

  const Scenario& scenario_;
  RunContext ctx_;
  std::string waves_tmp_;
  bool kept_ = false;
  std::unique_ptr<ParallelPlan> parallel_;  // before the cluster: its GPUs hold its stages' workloads
  Cluster cluster_;
  std::unique_ptr<FunctionalData> functional_;
  std::unique_ptr<TrainRun> train_;
  std::unique_ptr<SyncStrategy> strategy_;
  std::vector<const JobConfig*> job_of_;                  // /jobs: per rank, its job (null: idle)
  std::vector<std::unique_ptr<ParallelPlan>> job_plans_;  // per job (null without training.parallel)
  std::vector<const ParallelPlan*> plan_of_;              // per rank, its job's plan
  std::vector<JobRun> jobs_;
  std::vector<std::unique_ptr<CheckpointJob>> checkpoints_;
  struct JobHealth {  // one per training job with `health`
    const JobConfig* job = nullptr;
    std::unique_ptr<FailSlowMonitor> monitor;
    std::unique_ptr<Mitigation> mitigation;
    nlohmann::ordered_json results;
  };
  std::vector<JobHealth> job_health_;
  void build_job_monitors(const Scenario& s);
  void build_job_mitigations(const Scenario& s);
  void score_jobs();
  std::vector<std::unique_ptr<DreamDdpPlan>> dreamddp_;  // one, or one per pipeline stage
  std::unique_ptr<CollectiveBench> bench_;
  std::unique_ptr<ChakraRun> chakra_;
  std::vector<FaultConfig> fault_list_;  // the injector points into it
  nlohmann::json fault_list_json_ = nlohmann::json::array();
  std::size_t generated_ = 0;
  std::unique_ptr<FailSlowMonitor> monitor_;  // before the injector: it charges its overhead to the GPUs' base speed
  std::unique_ptr<FaultInjector> faults_;
  nlohmann::ordered_json health_;
  std::unique_ptr<RunEnd> run_end_;  // with background traffic only
  std::unique_ptr<FastForward> fast_forward_;
  std::unique_ptr<Mitigation> mitigation_;  // after fast-forward: it asks it first at each boundary
  bool work_done() const;
  SimStats stats_;
  std::unique_ptr<RunProgress> progress_;  // null unless drawn
  double wall_start_ = 0;
  bool hit_limit_ = false;
};

}  // namespace trainvp
