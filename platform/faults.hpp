#pragma once
// Fault injection (docs/faults.md): the scenario's `faults` become a timeline of changes to the
// models' hooks (LinkDir bandwidth, extra latency, down state and packet loss; Gpu speed and launch
// scale). When a link's down state changes the fabric is told, so new routes avoid it.
//
// The injector owns no SystemC process: a pending timed event would keep a run that has
// finished its work from ending (runs end on starvation), so Simulation::run advances the
// kernel to each change time with sc_start() and calls apply_due() between the calls. Changes
// therefore take effect at exactly their time, outside any nb_transport call.
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "platform/fabric.hpp"
#include "platform/run_context.hpp"
#include "platform/scenario.hpp"

namespace trainvp {

// A link is targeted by a pattern matching its name or the name of a device at either end.
bool link_matches(const Fabric& fabric, const FabricLink& link, const std::string& pattern);

class FaultInjector {
 public:
  // Matches every fault's target against the fabric's names; throws ScenarioError at
  // /faults/<i>/target when a target matches nothing of the kind the fault applies to.
  FaultInjector(const std::vector<FaultConfig>& faults, Fabric& fabric, const std::vector<Gpu*>& gpus,
                RunContext& ctx);

  static constexpr std::int64_t kNever = std::numeric_limits<std::int64_t>::max();
  // Time of the next change not yet applied, kNever when none is left.
  std::int64_t next_change_ps() const;
  // Applies every change due at or before `now_ps`.
  void apply_due(std::int64_t now_ps);
  // The run ended at `end_ps`: closes open windows and records the trace slices.
  void finish(std::int64_t end_ps);
  // results.json "faults": one entry per fault.
  nlohmann::ordered_json results() const;
  bool empty() const { return faults_.empty(); }

 private:
  struct Active {
    const FaultConfig* cfg;
    std::vector<std::string> matched;
    std::vector<int> gpus;   // indices into gpus_
    std::vector<int> dirs;   // indices into the fabric's dirs
    bool active = false;
    double level = 1.0;      // gpu_slowdown: the current factor (ramps from 1)
    std::int64_t start_ps = -1, end_ps = -1;
    int track = -1;
  };
  struct Change {
    std::int64_t at_ps;
    int fault;
    int step;  // -1: end; 0: start; 1..10: ramp steps
  };
  void recompute();

  Fabric& fabric_;
  std::vector<Gpu*> gpus_;
  RunContext& ctx_;
  std::vector<Active> faults_;
  std::vector<Change> timeline_;  // sorted
  std::size_t next_ = 0;
  std::vector<double> base_speed_, base_bw_;
  std::int64_t end_ps_ = -1;
};

}  // namespace trainvp
