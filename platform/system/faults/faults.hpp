#pragma once
// Fault injection (docs/faults.md): the scenario's `faults` become a timeline of changes to the
// models' hooks (LinkState bandwidth, extra latency, down state and packet loss; Gpu speed and launch
// scale). When a link's down state changes the fabric is told, so new routes avoid it. Congestion
// faults are traffic rather than a hook: their sources (platform/congestion.hpp) time themselves,
// and the run is ended when its work is done (Simulation's RunEnd), not by starvation.
//
// The injector owns no SystemC process: a pending timed event would keep a run that has
// finished its work from ending (runs end on starvation), so Simulation::run advances the
// kernel to each change time with sc_start() and calls apply_due() between the calls. Changes
// therefore take effect at exactly their time, outside any nb_transport call.
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "platform/system/faults/congestion.hpp"
#include "platform/system/fabric/fabric.hpp"
#include "platform/core/run_context.hpp"
#include "platform/core/trace_source.hpp"
#include "platform/config/scenario.hpp"

namespace trainvp {

// A link is targeted by a pattern matching its name or the name of a device at either end.
bool link_matches(const Fabric& fabric, const FabricLink& link, const std::string& pattern);

// What was injected, for scoring a detector against (platform/system/health/score.hpp).
struct FaultTruth {
  int index = 0;
  FaultKind kind = FaultKind::LinkDegrade;
  std::int64_t start_ps = -1, end_ps = -1;         // -1: never applied
  std::vector<int> gpus;                           // ranks (GPU faults)
  std::vector<int> dirs;                           // fabric link directions (link faults)
  std::vector<std::string> sources, destinations;  // congestion: NIC names
  std::string severity;
  double factor = 1;  // gpu_slowdown: the speed factor it reaches
};

class FaultInjector {
 public:
  // Matches every fault's target against the fabric's names; throws ScenarioError at
  // /faults/<i>/target when a target matches nothing of the kind the fault applies to.
  // `congestion` faults get their traffic sources here (chunk: the fabric's, their default size).
  FaultInjector(const std::vector<FaultConfig>& faults, Fabric& fabric, const std::vector<Gpu*>& gpus, RunContext& ctx,
                std::uint64_t chunk);
  ~FaultInjector();

  static constexpr std::int64_t kNever = std::numeric_limits<std::int64_t>::max();
  // Time of the next change not yet applied, kNever when none is left.
  std::int64_t next_change_ps() const;
  // Applies every change due at or before `now_ps`.
  void apply_due(std::int64_t now_ps);
  // The run ended at `end_ps`: closes open windows and records the trace slices.
  void finish(std::int64_t end_ps);
  // results.json "faults": one entry per fault.
  nlohmann::ordered_json results() const;
  std::vector<FaultTruth> truth() const;
  bool empty() const { return faults_.empty(); }
  // Some fault generates traffic of its own (congestion): the run cannot end by starvation alone.
  bool has_background() const { return traffic_ != nullptr; }
  // A mitigation restarted the job with a spare in place of `node`: from now on no fault acts on
  // that node's GPUs or on links touching its devices (congestion traffic is not stopped).
  void replace_node(int node);
  // A mitigation moved the job (S3): node slots a and b exchange their hardware, so from now on
  // the faults of each node's GPUs and of the links touching its devices (a NIC's uplink
  // included) act on the other slot's. Faults in the network core stay where they are, and so
  // does congestion traffic (node_swap.cpp). With `links` false only the GPUs' and hosts' faults
  // move: the fabric moved the slots' ranks onto each other's devices (Fabric::place_nodes), so
  // every link fault already acts where the ranks now are.
  void swap_nodes(int a, int b, bool links = true);
  // Its trace source: a fault started (true) or ended (false) (the oracle mitigation acts on it).
  TraceSource<const FaultTruth&, bool> fault_changed{"fault_change"};
  // Time of the last change applied (-1 before any): fast-forward compares only iterations after it.
  std::int64_t last_change_ps() const { return last_change_ps_; }
  // A packet-loss fault is active: its losses are random draws, which a skip would not make.
  bool loss_active() const;

 private:
  struct Active {
    const FaultConfig* cfg;
    std::vector<std::string> matched;
    std::vector<int> gpus;                           // indices into gpus_
    std::vector<int> dirs;                           // indices into the fabric's dirs
    std::vector<std::string> sources, destinations;  // congestion: NIC names
    bool active = false;
    double level = 1.0;  // gpu_slowdown: the current factor (ramps from 1)
    std::int64_t start_ps = -1, end_ps = -1;
    int track = -1;
    std::vector<int> moved_gpus, moved_dirs;  // where S3's moves took it besides its targets
  };
  struct Change {
    std::int64_t at_ps;
    int fault;
    int step;  // -1: end; 0: start; 1..10: ramp steps
  };
  void recompute();
  std::vector<int> match_nics(const std::string& pattern, const std::string& where,
                              std::vector<std::string>& names) const;

  Fabric& fabric_;
  std::vector<Gpu*> gpus_;
  RunContext& ctx_;
  std::vector<Active> faults_;
  std::vector<Change> timeline_;  // sorted
  std::size_t next_ = 0;
  std::vector<double> base_speed_, base_bw_;
  std::int64_t end_ps_ = -1;
  std::int64_t last_change_ps_ = -1;
  std::unique_ptr<BackgroundTraffic> traffic_;     // null without congestion faults
  std::vector<bool> replaced_gpu_, replaced_dir_;  // on a node a mitigation replaced (by hardware)
  // S3's moves (node_swap.cpp): per hardware GPU and link direction (indexed as elaborated), the
  // GPU and direction it now stands in for; per node slot, the node whose hardware it holds; and
  // the GPUs and directions a move ever touched, which every recompute resets.
  std::vector<int> gpu_at_, dir_at_, host_at_;
  std::vector<bool> moved_gpu_, moved_dir_;
  void init_moves();
  int node_of_gpu(std::size_t g) const { return fabric_.elaborated_node(gpus_[g]->rank()); }  // its slot
  FaultTruth truth_of(const Active& a) const;
};

}  // namespace trainvp
