#pragma once
// workload.kind "collective": runs collectives back to back as nccl-tests does (warm-up, then
// timed iterations, for each size) and records time, algbw and busbw per size.
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <systemc>

#include "models/collectives/engine.hpp"
#include "platform/config/scenario.hpp"

namespace trainvp {

struct BenchRow {
  std::uint64_t bytes = 0;
  double time_s = 0;  // mean over measured iterations
  double min_time_s = 0, max_time_s = 0;
  double algbw_Bps = 0;            // bytes / time
  double busbw_Bps = 0;            // algbw x NCCL's bus factor
  const char* protocol = nullptr;  // NCCL's protocol (fabric.nccl.model "tuner"), else null
};

class CollectiveBench : public sc_core::sc_module {
 public:
  CollectiveBench(sc_core::sc_module_name name, const CollectiveBenchConfig& cfg, CollectiveEngine& engine,
                  std::vector<int> nodes_of, RunContext& ctx);
  bool finished() const { return finished_; }
  const sc_core::sc_event& finished_event() const { return finished_ev_; }  // notified when finished
  const std::vector<BenchRow>& rows() const { return rows_; }
  // results.json `collectives`: a row per size.
  nlohmann::ordered_json report() const;
  std::string state() const;

 private:
  void run();

  const CollectiveBenchConfig& cfg_;
  CollectiveEngine& engine_;
  std::vector<int> nodes_of_;
  RunContext& ctx_;
  std::vector<BenchRow> rows_;
  sc_core::sc_event done_ev_, finished_ev_;
  int left_ = 0;
  int current_ = -1;
  bool finished_ = false;
};

}  // namespace trainvp
