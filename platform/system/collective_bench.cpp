#include "platform/system/collective_bench.hpp"

#include <algorithm>

#include "platform/core/sim_time.hpp"

namespace trainvp {

CollectiveBench::CollectiveBench(sc_core::sc_module_name name, const CollectiveBenchConfig& cfg,
                                 CollectiveEngine& engine, std::vector<int> nodes_of, RunContext& ctx)
    : sc_module(name), cfg_(cfg), engine_(engine), nodes_of_(std::move(nodes_of)), ctx_(ctx) {
  SC_HAS_PROCESS(CollectiveBench);
  SC_THREAD(run);
}

void CollectiveBench::run() {
  const int p = static_cast<int>(cfg_.communicator.size());
  int track = ctx_.trace.track("collectives", std::string(op_name(cfg_.op)) + " " + algo_name(cfg_.algorithm));
  for (std::uint64_t bytes : cfg_.sizes) {
    auto program = std::make_shared<const CompiledProgram>(
        build_program(cfg_.op, cfg_.algorithm, cfg_.communicator, bytes, engine_.chunk(), nodes_of_, cfg_.root,
                      &engine_.device_map(), &engine_.ring_layout()));
    std::vector<double> times;
    for (int it = 0; it < cfg_.warmup + cfg_.iterations; ++it) {
      const std::int64_t t0 = now_ps();
      left_ = p;
      std::string label = std::string(op_name(cfg_.op)) + " " + std::to_string(bytes) + "B #" + std::to_string(it);
      current_ = engine_.launch(program, cfg_.op, cfg_.algorithm, bytes, label, [this](int) {
        if (--left_ == 0) done_ev_.notify(sc_core::SC_ZERO_TIME);
      });
      for (int r : cfg_.communicator) engine_.join(current_, r);
      if (left_ > 0) wait(done_ev_);
      const std::int64_t t1 = now_ps();
      if (it >= cfg_.warmup) times.push_back(static_cast<double>(t1 - t0) * 1e-12);
      ctx_.trace.slice(track, label, it >= cfg_.warmup ? "collective" : "warmup", t0, t1, {{"bytes", bytes}});
    }
    BenchRow row;
    row.bytes = bytes;
    row.protocol = engine_.record(static_cast<std::size_t>(current_)).protocol;
    for (double t : times) row.time_s += t;
    row.time_s /= static_cast<double>(times.size());
    row.min_time_s = *std::min_element(times.begin(), times.end());
    row.max_time_s = *std::max_element(times.begin(), times.end());
    row.algbw_Bps = static_cast<double>(bytes) / row.time_s;
    row.busbw_Bps = row.algbw_Bps * busbw_factor(cfg_.op, p);
    rows_.push_back(row);
  }
  current_ = -1;
  finished_ = true;
  finished_ev_.notify(sc_core::SC_ZERO_TIME);
}

std::string CollectiveBench::state() const {
  if (finished_) return "finished";
  if (current_ < 0) return "not started";
  return "waiting for " + engine_.describe(current_, cfg_.communicator.front());
}

nlohmann::ordered_json CollectiveBench::report() const {
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  for (const BenchRow& b : rows_) {
    rows.push_back({{"bytes", b.bytes},
                    {"time_s", b.time_s},
                    {"min_time_s", b.min_time_s},
                    {"max_time_s", b.max_time_s},
                    {"algbw_GBps", b.algbw_Bps / 1e9},
                    {"busbw_GBps", b.busbw_Bps / 1e9}});
    if (b.protocol) rows.back()["protocol"] = b.protocol;  // NCCL's, under fabric.nccl.model "tuner"
  }
  return rows;
}

}  // namespace trainvp
