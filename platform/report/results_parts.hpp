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
// The means over the measured iterations [warm, n) (seconds).
struct IterationMeans {
  double time = 0, compute = 0, comm = 0, exposed = 0, bubble = 0;
};
IterationMeans iteration_means(const std::vector<ClusterIteration>& iters, int warm, int n);
// results.json's `iterations` list; each iteration also becomes a row of iterations.csv, after
// `csv_prefix` (a job's name and a comma; empty for a single training).
nlohmann::ordered_json iteration_list(const std::vector<ClusterIteration>& iters, int warm, bool pipelined,
                                      std::ostream& csv, const std::string& csv_prefix);
// `throughput` (samples, tokens and model FLOPs per second) and the iteration's time split
// (compute, communication, exposed, overlap ratio, and the bubble under a pipeline).
void add_time_split(nlohmann::ordered_json& o, const Workload& w, double samples, double flops, const IterationMeans& m,
                    bool pipelined);
// "H100-SXM5-80GB", or "H100-SXM5-80GB/A100-SXM4-80GB" for a mixed cluster.
std::string gpu_models(const ClusterConfig& c);
double flops_per_iteration(const Workload& w);
nlohmann::ordered_json collective_records(const Simulation& sim);
nlohmann::ordered_json collective_totals(const Simulation& sim);
nlohmann::json scenario_as_run(const Simulation& sim);
// results.json `degradation` of scenario `s` (a job's own, with `jobs`): throughput over windows of
// W iterations against its `slo` baseline, `affected` the GPUs the faults touch among `gpus`.
// Without a declared baseline, the median window that ended before the first fault and before
// `neighbours_from_ps` (when another job's traffic began; a job's own report).
nlohmann::ordered_json degradation_of(const Scenario& s, int W, const std::vector<ClusterIteration>& iters,
                                      const nlohmann::ordered_json& faults, const std::vector<std::string>& affected,
                                      double gpus, std::int64_t neighbours_from_ps = INT64_MAX);
std::vector<std::string> ranks_affected(const Simulation& sim, const nlohmann::ordered_json& faults);
// The fabric, the faults, the devices, warnings and the simulator's own figures, and the
// summary's last lines: what every run ends its results with.
void finish_run_results(RunResults& r, const Simulation& sim, std::ostringstream& sum);

}  // namespace trainvp::report_detail
