#pragma once
// The pieces of results.json that every kind of run shares (results.cpp defines them; a run of
// several jobs, job_results.cpp, assembles its own results from them).
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "platform/report/results.hpp"

namespace trainvp::report_detail {

// One iteration across a set of ranks: spans the earliest start to the latest end; per-rank
// quantities are averaged over the ranks.
struct ClusterIteration {
  std::int64_t start = 0, end = 0, duration = 0;
  double compute = 0, comm = 0, exposed = 0;
  double bubble = 0;  // blocked waiting for another pipeline stage (not communication)
};

std::vector<ClusterIteration> cluster_iterations(const std::vector<const Gpu*>& gpus, int n, const SyncStrategy* sync);
// "H100-SXM5-80GB", or "H100-SXM5-80GB/A100-SXM4-80GB" for a mixed cluster.
std::string gpu_models(const ClusterConfig& c);
double flops_per_iteration(const Workload& w);
nlohmann::ordered_json collective_records(const Simulation& sim);
nlohmann::ordered_json collective_totals(const Simulation& sim);
nlohmann::json scenario_as_run(const Simulation& sim);
// The fabric, the faults, the devices, warnings and the simulator's own figures, and the
// summary's last lines: what every run ends its results with.
void finish_run_results(RunResults& r, const Simulation& sim, std::ostringstream& sum);

}  // namespace trainvp::report_detail
