#pragma once
// Runs Chakra execution traces (/workload/chakra): every rank executes its trace's DAG once, a
// node starting when all its data and control dependencies have completed. Compute and memory
// nodes queue on the rank's GPU one after another (one stream), timed by their recorded duration
// or by roofline; CPU nodes take their recorded duration on the host, beside the GPU;
// collectives and sends run as real traffic through the collective engine, the partners the
// static plan matched (models/workload/chakra/plan.hpp). docs/workloads.md#chakra-execution-traces.
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include <nlohmann/json.hpp>
#include <systemc>

#include "models/collectives/engine.hpp"
#include "models/gpu/gpu.hpp"
#include "platform/config/chakra_workload.hpp"
#include "platform/core/run_context.hpp"
#include "platform/core/tlm/timed_queue.hpp"

namespace trainvp {

class ChakraRun : public sc_core::sc_module {
 public:
  ChakraRun(sc_core::sc_module_name name, const ChakraWorkload& w, std::vector<Gpu*> gpus, CollectiveEngine& engine,
            std::vector<int> nodes_of, RunContext& ctx);
  bool finished() const { return ranks_done_ == static_cast<int>(ranks_.size()); }
  const sc_core::sc_event& finished_event() const { return finished_ev_; }
  // results.json `chakra`: the makespan, then per rank its end and where its time went.
  nlohmann::ordered_json report() const;
  // For stall reports: the first ranks with nodes left, and what those wait for.
  std::string state() const;

  // Per rank: when its last node completed (ps), and the busy time of each kind of node.
  struct RankTimes {
    std::int64_t end_ps = 0;
    std::int64_t gpu_ps = 0, cpu_ps = 0, comm_ps = 0;  // unions of the intervals
    std::int64_t exposed_comm_ps = 0;                  // communication with neither GPU nor CPU busy
    std::size_t nodes = 0;
  };
  RankTimes times(int rank) const;

 private:
  enum Kind { kGpu, kCpu, kComm, kKinds };
  struct Children {  // CSR of one trace's dependents, and its nodes' dependency counts
    std::vector<int> begin, list, deps;
  };
  struct Rank {
    const chakra::Trace* trace = nullptr;
    const Children* children = nullptr;
    std::vector<int> left;               // per node: dependencies not yet completed
    std::vector<std::int64_t> start_ps;  // per node, once issued
    std::vector<std::uint8_t> status;    // per node: 0 waiting, 1 running, 2 done
    std::size_t done = 0;
    std::int64_t end_ps = 0;
    std::vector<std::pair<std::int64_t, std::int64_t>> busy[kKinds];
    int track = -1;  // trace track for CPU and communication nodes
  };
  struct Timer {
    int rank;
    std::size_t node;
  };

  void start();
  void process();
  void issue(int r, std::size_t i);
  void complete(int r, std::size_t i) { pending_.emplace_back(r, i), wake_.notify(sc_core::SC_ZERO_TIME); }
  void finish(int r, std::size_t i);
  void issue_collective(int r, std::size_t i);
  void issue_p2p(int r, std::size_t i);
  std::shared_ptr<const CompiledProgram> program(const chakra::CollectiveUse& u, CollectiveOp op);

  const ChakraWorkload& w_;
  std::vector<Gpu*> gpus_;
  CollectiveEngine& engine_;
  std::vector<int> nodes_of_;
  RunContext& ctx_;
  std::map<const chakra::Trace*, Children> children_;
  std::vector<Rank> ranks_;
  std::map<std::string, std::vector<int>> position_;  // per process group: global rank -> position (-1)
  std::vector<int> coll_id_, p2p_id_;                 // engine ids per plan entry, -1 before launch
  std::map<std::tuple<int, std::uint64_t, std::string, int>, std::shared_ptr<const CompiledProgram>> programs_;
  std::vector<std::pair<int, std::size_t>> pending_;  // completed nodes not yet processed
  std::vector<std::unique_ptr<Timer>> timer_store_;
  TimedQueue<Timer> timers_;
  sc_core::sc_event wake_, finished_ev_;
  int ranks_done_ = 0;
  bool started_ = false;
  std::int64_t end_ps_ = 0;
};

}  // namespace trainvp
