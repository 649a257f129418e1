#include "platform/report/results.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>
#include <sstream>

#include "models/gpu/roofline.hpp"
#include "models/parallel/parallel_sync.hpp"
#include "platform/report/build_record.hpp"
#include "platform/report/output_warnings.hpp"
#include "platform/report/job_results.hpp"
#include "platform/report/parallel_results.hpp"
#include "platform/report/results_parts.hpp"
#include "platform/report/sync_results.hpp"
#include "platform/report/train_results.hpp"
#include "platform/report/validation_results.hpp"
#include "platform/core/units.hpp"
#include "platform/core/sim_time.hpp"
#include "platform/system/sync/registry.hpp"

namespace trainvp {

namespace report_detail {

std::vector<ClusterIteration> cluster_iterations(const std::vector<const Gpu*>& gpus, int n, const SyncStrategy* sync) {
  std::vector<ClusterIteration> out(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) {
    ClusterIteration& c = out[static_cast<std::size_t>(i)];
    c.start = INT64_MAX;
    c.end = 0;
    for (const Gpu* g : gpus) {
      const RankIteration& r = g->iterations()[static_cast<std::size_t>(i)];
      c.start = std::min(c.start, r.start_ps);
      c.end = std::max(c.end, r.end_ps);
      const std::int64_t wait = sync ? sync->stage_wait_ps(g->rank(), i) : 0;
      c.compute += sec(r.compute_ps);
      c.exposed += sec(r.blocked_ps - wait);
      c.bubble += sec(wait);
    }
    c.compute /= static_cast<double>(gpus.size());
    c.exposed /= static_cast<double>(gpus.size());
    c.bubble /= static_cast<double>(gpus.size());
    // Communication: time each rank had a collective in progress, averaged over ranks.
    if (sync)
      for (const Gpu* g : gpus) c.comm += sec(sync->comm_ps(g->rank(), i)) / static_cast<double>(gpus.size());
    // Iterations tile the timeline: each lasts from the previous one's end to its own end.
    c.duration = c.end - (i == 0 ? c.start : out[static_cast<std::size_t>(i) - 1].end);
  }
  return out;
}

// "H100-SXM5-80GB", or "H100-SXM5-80GB/A100-SXM4-80GB" for a mixed cluster (distinct models in rank order).
std::string gpu_models(const ClusterConfig& c) {
  std::vector<std::string> seen;
  for (const auto& g : c.gpus)
    if (std::find(seen.begin(), seen.end(), g.params.model) == seen.end()) seen.push_back(g.params.model);
  std::string out;
  for (auto& m : seen) out += (out.empty() ? "" : "/") + m;
  return out;
}

double flops_per_iteration(const Workload& w) {
  double f = 0;
  for (const Layer& l : w.layers) f += l.fwd_flops + l.bwd_input_flops + l.bwd_weight_flops;
  return f * w.micro_batches;
}

// Every collective run: what, how big, over how many ranks, when, and its bandwidths.
nlohmann::ordered_json collective_records(const Simulation& sim) {
  using ojson = nlohmann::ordered_json;
  ojson list = ojson::array();
  for (const CollectiveRecord& r : sim.engine().records()) {
    if (sim.parallel() && summed_parallel_collective(r.label)) continue;  // parallel.traffic sums them
    double t = sec(r.end_ps - r.start_ps);
    double algbw = t > 0 ? static_cast<double>(r.bytes) / t : 0.0;
    list.push_back({{"op", op_name(r.op)},
                    {"algorithm", algo_name(r.algo)},
                    {"label", r.label},
                    {"bytes", r.bytes},
                    {"ranks", r.ranks},
                    {"start_s", sec(r.start_ps)},
                    {"end_s", sec(r.end_ps)},
                    {"time_s", t},
                    {"algbw_GBps", algbw / 1e9},
                    {"busbw_GBps", algbw * busbw_factor(r.op, r.ranks) / 1e9}});
    if (r.protocol) list.back()["protocol"] = r.protocol;  // NCCL's, under fabric.nccl.model "tuner"
    if (r.failed) list.back()["failed"] = true;            // given up by the transport (sync.retry)
    if (r.abandoned) list.back()["abandoned"] = true;      // given up with an earlier step of its unit
  }
  return list;
}

// /output/collectives false: the collectives' totals by kind, in place of the list.
nlohmann::ordered_json collective_totals(const Simulation& sim) {
  nlohmann::ordered_json o = nlohmann::ordered_json::object();
  for (const auto& [kind, s] : collective_sums(sim))
    o[kind] = {{"collectives", s.collectives}, {"bytes", s.bytes}, {"time_s", s.time_s}};
  return o;
}

// Each device's own report, in order (results.json `cxl`, `aggregators`, `nvls`).
template <class Device>
nlohmann::ordered_json reports_of(const std::vector<const Device*>& devices) {
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const Device* d : devices) {
    nlohmann::ordered_json o;
    d->report(o);
    list.push_back(o);
  }
  return list;
}

// The devices that exist only when the scenario asks for them, each section only if present.
void add_device_reports(nlohmann::ordered_json& j, const Simulation& sim) {
  if (!sim.cxl_devices().empty()) j["cxl"] = reports_of(sim.cxl_devices());
  if (!sim.aggregators().empty()) j["aggregators"] = reports_of(sim.aggregators());
  if (!sim.nvls_units().empty()) j["nvls"] = reports_of(sim.nvls_units());
}

// Ranks a fault touches: the GPUs it names, and for a link the GPUs at its ends or behind a NIC at
// its ends.
std::vector<std::string> ranks_affected(const Simulation& sim, const nlohmann::ordered_json& faults) {
  std::set<std::string> names;
  auto gpus = sim.gpus();
  for (auto& f : faults) {
    if (!f.value("applied", false)) continue;
    for (auto& m : f["matched"]) {
      const std::string n = m.get<std::string>();
      if (n.rfind("link:", 0) != 0) {
        for (const Gpu* g : gpus)
          if (n == g->name()) names.insert(n);
        continue;
      }
      const auto dash = n.find('-', 5);
      const std::string a = n.substr(5, dash - 5), b = n.substr(dash + 1);
      for (const Gpu* g : gpus) {
        const std::string gn = g->name();
        const std::string& nic =
            sim.fabric().devices()[static_cast<std::size_t>(sim.fabric().nic_of_rank(g->rank()))].name;
        if (gn == a || gn == b || nic == a || nic == b) names.insert(gn);
      }
    }
  }
  return {names.begin(), names.end()};
}

// Iterations per minute over time against a healthy baseline: percentiles, time below the SLO,
// ranks affected, and GPU-hours lost (every GPU waits for the slowest in synchronous training,
// so a slow iteration costs all of them; the healthy ones are "stranded").
//
// Strategies that synchronize every H iterations (localsgd, plsgd, dreamddp) have iterations of
// different lengths by design; their throughput is measured over windows of one period (aligned
// on iteration 0), so a healthy synchronizing iteration does not count as degraded.
int report_window(const Simulation& sim) {
  const auto period = sync_strategy(sim.scenario().training.sync.strategy).period;
  return period ? period(sim.scenario(), sim.dreamddp()) : 1;
}

nlohmann::ordered_json degradation_report(const Simulation& sim, const std::vector<ClusterIteration>& iters,
                                          const nlohmann::ordered_json& faults) {
  return degradation_of(sim.scenario(), report_window(sim), iters, faults, ranks_affected(sim, faults),
                        static_cast<double>(sim.gpus().size()));
}

nlohmann::ordered_json degradation_of(const Scenario& s, int W, const std::vector<ClusterIteration>& iters,
                                      const nlohmann::ordered_json& faults, const std::vector<std::string>& affected,
                                      double gpus, std::int64_t neighbours_from_ps) {
  using ojson = nlohmann::ordered_json;
  const int n = static_cast<int>(iters.size());
  std::int64_t first_fault = neighbours_from_ps;
  for (auto& f : faults)
    if (f.value("applied", false))
      first_fault = std::min(first_fault, static_cast<std::int64_t>(std::llround(f["start_s"].get<double>() * 1e12)));
  // Whole windows of W measured iterations: [first, first + W) with first a multiple of W.
  struct Window {
    double duration;  // seconds, all W iterations
    std::int64_t end;
  };
  std::vector<Window> windows;
  const int first = (s.training.warmup + W - 1) / W * W;
  for (int i = first; i + W <= n; i += W) {
    Window w{0, iters[static_cast<std::size_t>(i + W - 1)].end};
    for (int k = i; k < i + W; ++k) w.duration += sec(iters[static_cast<std::size_t>(k)].duration);
    windows.push_back(w);
  }
  double baseline = -1;  // seconds per iteration
  std::string source = "none";
  if (s.slo.baseline_ps > 0) {
    baseline = sec(s.slo.baseline_ps), source = "declared";
  } else {
    std::vector<double> prefix;  // windows that ended before any fault began
    for (const Window& w : windows)
      if (w.end <= first_fault) prefix.push_back(w.duration / W);
    if (!prefix.empty()) {
      std::sort(prefix.begin(), prefix.end());
      baseline = prefix[prefix.size() / 2];
      source = neighbours_from_ps < INT64_MAX ? "prefix free of faults and neighbours" : "fault-free prefix";
    }
  }
  ojson timeline = ojson::array();
  std::vector<double> rates;
  double below = 0, lost_s = 0;
  int below_n = 0;
  for (const Window& w : windows) {
    const double rate = 60.0 * W / w.duration;
    timeline.push_back({{"end_s", sec(w.end)}, {"iterations_per_min", rate}});
    rates.push_back(rate);
    if (baseline > 0 && rate < s.slo.fraction * 60.0 / baseline) below += w.duration, below_n += W;
    if (baseline > 0) lost_s += std::max(0.0, w.duration - W * baseline);
  }
  std::sort(rates.begin(), rates.end());
  auto pct = [&](double p) {  // nearest rank
    if (rates.empty()) return 0.0;
    std::size_t k = static_cast<std::size_t>(std::ceil(p * static_cast<double>(rates.size())));
    return rates[std::min(rates.size() - 1, k == 0 ? 0 : k - 1)];
  };
  ojson r;
  r["window_iterations"] = W;
  r["baseline_iteration_s"] = baseline > 0 ? ojson(baseline) : ojson(nullptr);
  r["baseline_source"] = source;
  r["baseline_iterations_per_min"] = baseline > 0 ? ojson(60.0 / baseline) : ojson(nullptr);
  r["p50_iterations_per_min"] = pct(0.5);
  r["p5_iterations_per_min"] = pct(0.05);
  r["slo_fraction"] = s.slo.fraction;
  r["time_below_slo_s"] = baseline > 0 ? ojson(below) : ojson(nullptr);
  r["iterations_below_slo"] = below_n;
  r["ranks_affected"] = affected;
  r["gpu_hours_lost"] = baseline > 0 ? ojson(lost_s * gpus / 3600.0) : ojson(nullptr);
  r["healthy_gpu_hours_stranded"] =
      baseline > 0 ? ojson(lost_s * (gpus - static_cast<double>(affected.size())) / 3600.0) : ojson(nullptr);
  r["timeline"] = timeline;
  return r;
}

// The resolved scenario as it ran: with a fault generator, its events are in `faults` (the list
// DIR/faults.json holds) and the generator's settings move to the top-level marker, so that the
// results of a campaign and of its replay (--faults DIR/faults.json) differ only in the markers.
nlohmann::json scenario_as_run(const Simulation& sim) {
  nlohmann::json r = sim.scenario().resolved;
  if (sim.scenario().fault_generator.enabled) {
    r["faults"] = sim.fault_list();
    r.erase("fault_generator");
  }
  return r;
}

// results.json `faults`, the marker saying where they came from, and DIR/faults.json.
void add_faults(RunResults& r, const Simulation& sim) {
  const Scenario& s = sim.scenario();
  if (!sim.faults() && !s.fault_generator.enabled) return;
  if (sim.faults()) r.json["faults"] = sim.faults()->results();
  if (s.fault_generator.enabled) {
    nlohmann::ordered_json g = s.fault_generator.resolved;
    g["events"] = sim.generated_faults();
    g["file"] = "faults.json";
    r.json["fault_generator"] = g;
  }
  if (!s.faults_file.empty()) r.json["faults_file"] = s.faults_file;
  r.faults = sim.fault_list().dump(2) + "\n";
}

nlohmann::ordered_json sim_stats(const Simulation& sim) {
  const SimStats& st = sim.stats();
  const FabricConfig& f = sim.scenario().cluster.fabric;
  nlohmann::ordered_json j = {{"wall_s", st.wall_s},
                              {"events", st.events},
                              {"delta_cycles", st.delta_cycles},
                              {"simulated_s", sec(st.simulated_ps)},
                              {"fidelity", f.fidelity == FabricFidelity::Flow ? "flow" : "packet"},
                              {"fidelity_auto", f.fidelity_auto}};
  // Flow fidelity: ring steps that went as one flow (docs/fabric.md#ring-steps-as-one-flow).
  if (f.fidelity == FabricFidelity::Flow)
    j["grouped_ring_steps"] = {{"steps", sim.engine().grouped_steps()},
                               {"transfers", sim.engine().grouped_transfers()}};
  return j;
}

// The summary's note on the fabric's fidelity: only flow fidelity is named (packets are what
// small runs have always used), with why when `auto` chose it.
static std::string fidelity_note(const Simulation& sim) {
  const FabricConfig& f = sim.scenario().cluster.fabric;
  if (f.fidelity != FabricFidelity::Flow) return "";
  return f.fidelity_auto ? "; flow fidelity, auto: more than " + std::to_string(kAutoFlowAboveGpus) + " GPUs"
                         : "; flow fidelity";
}

// What every run without training iterations ends its results with: the fabric, the faults, the
// devices, warnings and the simulator's own figures, and the summary's last lines.
void finish_run_results(RunResults& r, const Simulation& sim, std::ostringstream& sum) {
  nlohmann::ordered_json& j = r.json;
  j["links"] = sim.fabric().report_links(sim.stats().simulated_ps);
  j["link_tiers"] = sim.fabric().report_tiers();
  if (auto pfc = sim.fabric().report_pfc(sim.stats().simulated_ps); !pfc.is_null()) j["pfc"] = pfc;
  add_faults(r, sim);
  if (sim.monitor()) j["health"] = sim.health_results();
  add_device_reports(j, sim);
  const nlohmann::ordered_json warnings = output_warnings(sim);
  if (!warnings.empty()) j["warnings"] = warnings;
  j["sim"] = sim_stats(sim);
  char buf[256];
  std::snprintf(buf, sizeof buf, "  simulated        %s in %.2f s wall, %llu events%s\n",
                format_time_s(sec(sim.stats().simulated_ps)).c_str(), sim.stats().wall_s,
                static_cast<unsigned long long>(sim.stats().events), fidelity_note(sim).c_str());
  sum << buf << warnings_summary(warnings);
  r.summary = sum.str();
}

RunResults bench_results(const Simulation& sim) {
  using ojson = nlohmann::ordered_json;
  const Scenario& s = sim.scenario();
  RunResults r;
  ojson& j = r.json;
  j["trainvp_version"] = TRAINVP_VERSION;
  j["build"] = build_record();
  j["scenario"] = scenario_as_run(sim);
  std::ostringstream csv, sum;
  csv << "bytes,time_s,algbw_GBps,busbw_GBps\n";
  char buf[256];
  sum << "trainvp: " << s.name << ": " << op_name(s.bench.op) << " (" << algo_name(s.bench.algorithm) << ") over "
      << s.bench.communicator.size() << " ranks, " << s.bench.iterations << " iterations per size\n";
  std::snprintf(buf, sizeof buf, "  %14s %14s %12s %12s\n", "bytes", "time (us)", "algbw GB/s", "busbw GB/s");
  sum << buf;
  for (const BenchRow& b : sim.bench()->rows()) {
    csv << b.bytes << ',' << ojson(b.time_s).dump() << ',' << ojson(b.algbw_Bps / 1e9).dump() << ','
        << ojson(b.busbw_Bps / 1e9).dump() << '\n';
    std::snprintf(buf, sizeof buf, "  %14llu %14.2f %12.2f %12.2f\n", static_cast<unsigned long long>(b.bytes),
                  b.time_s * 1e6, b.algbw_Bps / 1e9, b.busbw_Bps / 1e9);
    sum << buf;
  }
  j["collectives"] = sim.bench()->report();
  if (s.validation.given) {
    j["validation"] = validation_report(s.validation, j, s.bench.communicator.size());
    sum << validation_summary(j);
  }
  finish_run_results(r, sim, sum);
  r.csv = csv.str();
  return r;
}

// /workload/chakra: the traces' makespan and, per rank, where its time went; the collectives and
// sends they ran; the fabric.
RunResults chakra_results(const Simulation& sim) {
  using ojson = nlohmann::ordered_json;
  const Scenario& s = sim.scenario();
  const ChakraRun& run = *sim.chakra();
  RunResults r;
  ojson& j = r.json;
  j["trainvp_version"] = TRAINVP_VERSION;
  j["build"] = build_record();
  j["scenario"] = scenario_as_run(sim);
  j["chakra"] = run.report();
  std::ostringstream csv, sum;
  csv << "rank,end_s,gpu_busy_s,cpu_busy_s,communication_s,exposed_communication_s\n";
  const int p = static_cast<int>(s.chakra_workload.trace_of.size());
  ChakraRun::RankTimes slowest;
  int slowest_rank = 0;
  for (int k = 0; k < p; ++k) {
    const ChakraRun::RankTimes t = run.times(k);
    csv << k << ',' << ojson(sec(t.end_ps)).dump() << ',' << ojson(sec(t.gpu_ps)).dump() << ','
        << ojson(sec(t.cpu_ps)).dump() << ',' << ojson(sec(t.comm_ps)).dump() << ','
        << ojson(sec(t.exposed_comm_ps)).dump() << '\n';
    if (k == 0 || t.end_ps > slowest.end_ps) slowest = t, slowest_rank = k;
  }
  char buf[256];
  sum << "trainvp: " << s.name << ": Chakra traces " << s.chakra_workload.traces << " on " << p << " ranks ("
      << j["chakra"]["nodes"].get<std::size_t>() << " nodes, " << j["chakra"]["collectives"].get<std::size_t>()
      << " collectives, " << j["chakra"]["point_to_point"].get<std::size_t>() << " sends)\n";
  std::snprintf(buf, sizeof buf, "  time             %s (the last rank to finish: %d)\n",
                format_time_s(sec(slowest.end_ps)).c_str(), slowest_rank);
  sum << buf;
  std::snprintf(buf, sizeof buf, "  that rank        GPU busy %s, CPU busy %s, communication %s (exposed %s)\n",
                format_time_s(sec(slowest.gpu_ps)).c_str(), format_time_s(sec(slowest.cpu_ps)).c_str(),
                format_time_s(sec(slowest.comm_ps)).c_str(), format_time_s(sec(slowest.exposed_comm_ps)).c_str());
  sum << buf;
  if (s.output.collectives) j["collectives"] = collective_records(sim);
  else j["collective_totals"] = collective_totals(sim);
  finish_run_results(r, sim, sum);
  r.csv = csv.str();
  return r;
}

IterationMeans iteration_means(const std::vector<ClusterIteration>& iters, int warm, int n) {
  IterationMeans m;
  for (int i = warm; i < n; ++i) {
    const ClusterIteration& c = iters[static_cast<std::size_t>(i)];
    m.time += sec(c.duration), m.compute += c.compute, m.comm += c.comm, m.exposed += c.exposed, m.bubble += c.bubble;
  }
  const double measured = n - warm;
  m.time /= measured, m.compute /= measured, m.comm /= measured, m.exposed /= measured, m.bubble /= measured;
  return m;
}

nlohmann::ordered_json iteration_list(const std::vector<ClusterIteration>& iters, int warm, bool pipelined,
                                      std::ostream& csv, const std::string& csv_prefix) {
  using ojson = nlohmann::ordered_json;
  ojson list = ojson::array();
  for (std::size_t k = 0; k < iters.size(); ++k) {
    const ClusterIteration& c = iters[k];
    const int i = static_cast<int>(k);
    list.push_back({{"index", i},
                    {"warmup", i < warm},
                    {"start_s", sec(c.start)},
                    {"end_s", sec(c.end)},
                    {"duration_s", sec(c.duration)},
                    {"compute_s", c.compute},
                    {"comm_s", c.comm},
                    {"exposed_comm_s", c.exposed}});
    if (pipelined) list.back()["bubble_s"] = c.bubble;
    // JSON's number rendering is shortest-round-trip and deterministic; reuse it for the CSV.
    csv << csv_prefix << i << ',' << (i < warm ? 1 : 0) << ',' << ojson(sec(c.start)).dump() << ','
        << ojson(sec(c.end)).dump() << ',' << ojson(sec(c.duration)).dump() << ',' << ojson(c.compute).dump() << ','
        << ojson(c.comm).dump() << ',' << ojson(c.exposed).dump() << '\n';
  }
  return list;
}

void add_time_split(nlohmann::ordered_json& o, const Workload& w, double samples, double flops, const IterationMeans& m,
                    bool pipelined) {
  using ojson = nlohmann::ordered_json;
  ojson tp = {{"samples_per_s", samples / m.time}};
  if (w.sequence_model) tp["tokens_per_s"] = samples * w.shape.seq / m.time;
  tp["model_flops_per_s"] = flops / m.time;
  o["throughput"] = tp;
  o["compute_time_s"] = m.compute;
  o["comm_time_s"] = m.comm;
  o["exposed_comm_s"] = m.exposed;
  // Fraction of communication hidden under compute; undefined (null) without communication.
  o["overlap_ratio"] = m.comm > 0 ? ojson(1.0 - m.exposed / m.comm) : ojson(nullptr);
  // Pipeline parallelism: waiting for another stage is the bubble, not exposed communication.
  if (pipelined) o["bubble_s"] = m.bubble;
}

}  // namespace report_detail

using namespace report_detail;

static RunResults training_results(const Simulation& sim);

RunResults collect_results(const Simulation& sim) {
  RunResults r = sim.bench()           ? bench_results(sim)
                 : sim.chakra()        ? chakra_results(sim)
                 : !sim.jobs().empty() ? job_results(sim)
                                       : training_results(sim);
  std::vector<std::string> jobs;
  for (const JobConfig& j : sim.scenario().jobs) jobs.push_back(j.name);
  r.link_series = sim.fabric().report_series(sim.stats().simulated_ps, jobs);
  return r;
}

// One training job's results (the single-job run).
static RunResults training_results(const Simulation& sim) {
  const Scenario& s = sim.scenario();
  const Workload& w = s.workload;
  auto gpus = sim.gpus();
  const int n = s.training.iterations, warm = s.training.warmup, measured = n - warm;
  auto iters = cluster_iterations(gpus, n, sim.strategy());

  const IterationMeans m = iteration_means(iters, warm, n);
  const double iter_time = m.time;

  using ojson = nlohmann::ordered_json;
  RunResults r;
  ojson& j = r.json;
  j["trainvp_version"] = TRAINVP_VERSION;
  j["build"] = build_record();
  j["scenario"] = scenario_as_run(sim);
  j["iteration_time_s"] = iter_time;

  const bool pipelined = sim.parallel() && sim.parallel()->stages.size() > 1;
  std::ostringstream csv;
  csv << "iteration,warmup,start_s,end_s,duration_s,compute_s,comm_s,exposed_comm_s\n";
  j["iterations"] = iteration_list(iters, warm, pipelined, csv, "");

  const double samples = sim.parallel()
                             ? parallel_samples(sim)
                             : static_cast<double>(w.samples_per_iteration()) * static_cast<double>(gpus.size());
  // Every GPU's own work (its pipeline stage's TP shard in hybrid parallelism; recomputation included).
  double flops = flops_per_iteration(w) * static_cast<double>(gpus.size());
  if (sim.parallel()) {
    flops = 0;
    for (const Gpu* g : gpus) flops += flops_per_iteration(g->workload());
  }
  add_time_split(j, w, samples, flops, m, pipelined);

  j["workload"] = {
      {"model", w.model},
      {"layers", w.layers.size()},
      {"parameters", w.total_params()},
      {"gradient_bytes", w.total_grad_bytes()},
      {"flops_per_gpu_iteration", sim.parallel() ? flops / static_cast<double>(gpus.size()) : flops_per_iteration(w)},
      {"global_batch", sim.parallel() ? static_cast<std::uint64_t>(samples) : w.samples_per_iteration() * gpus.size()}};

  ojson ranks = ojson::array();
  for (const Gpu* g : gpus) {
    ojson o;
    g->report(o, warm);
    ranks.push_back(o);
  }
  j["ranks"] = ranks;

  add_sync_results(j, sim);
  add_train_results(j, sim);
  if (sim.parallel()) add_parallel_results(j, sim, iter_time);
  if (s.output.collectives) j["collectives"] = collective_records(sim);
  else j["collective_totals"] = collective_totals(sim);
  j["links"] = sim.fabric().report_links(sim.stats().simulated_ps);
  j["link_tiers"] = sim.fabric().report_tiers();
  if (auto pfc = sim.fabric().report_pfc(sim.stats().simulated_ps); !pfc.is_null()) j["pfc"] = pfc;
  add_faults(r, sim);
  if (sim.faults() || s.slo.given)
    j["degradation"] = degradation_report(sim, iters, sim.faults() ? j["faults"] : nlohmann::ordered_json::array());
  if (sim.monitor()) j["health"] = sim.health_results();
  add_device_reports(j, sim);
  if (const FunctionalData* f = sim.functional())  // every GPU checked every element it received
    j["functional"] = {{"elements_checked", f->elements_checked()},
                       {"elements_per_gpu", f->elements_checked() / gpus.size()},
                       {"mismatches", 0}};
  const ojson warnings = output_warnings(sim);
  if (!warnings.empty()) j["warnings"] = warnings;  // absent when none: results stay as they were
  if (const FastForward* ff = sim.fast_forward()) j["fast_forward"] = ff->report();
  if (s.validation.given) j["validation"] = validation_report(s.validation, j, gpus.size());
  const SimStats& st = sim.stats();
  j["sim"] = sim_stats(sim);
  r.csv = csv.str();
  r.train_csv = train_csv(sim);

  char buf[512];
  std::ostringstream sum;
  sum << "trainvp: " << s.name << ": " << w.model << " (" << w.layers.size() << " layers, " << w.total_params()
      << " parameters) on " << gpus.size() << " GPU" << (gpus.size() == 1 ? "" : "s") << " (" << s.cluster.nodes
      << " node" << (s.cluster.nodes == 1 ? "" : "s") << " x " << s.cluster.gpus_per_node << " "
      << gpu_models(s.cluster) << ")\n";
  std::snprintf(buf, sizeof buf, "  iteration time   %s (mean of %d measured, %d warm-up)\n",
                format_time_s(iter_time).c_str(), measured, warm);
  sum << buf;
  std::snprintf(buf, sizeof buf, "  compute          %s   communication %s   exposed %s\n",
                format_time_s(m.compute).c_str(), format_time_s(m.comm).c_str(), format_time_s(m.exposed).c_str());
  sum << buf;
  std::snprintf(buf, sizeof buf, "  throughput       %.1f samples/s", samples / iter_time);
  sum << buf;
  if (w.sequence_model) {
    std::snprintf(buf, sizeof buf, ", %.0f tokens/s", samples * w.shape.seq / iter_time);
    sum << buf;
  }
  double peak = 0;  // the dense tensor peak of every GPU together
  for (const auto& g : s.cluster.gpus) peak += g.params.compute_peak(w.shape.dtype);
  // Explicit layers with measured times may give no FLOP count: then the MFU is unknown, not 0%.
  if (flops > 0 && peak > 0 && iter_time > 0) {
    std::snprintf(buf, sizeof buf, ", %.1f%% of peak FLOP/s (MFU)\n", 100.0 * flops / iter_time / peak);
    sum << buf;
  } else {
    sum << ", n/a of peak FLOP/s (MFU; the layers give no FLOP count)\n";
  }
  sum << sync_summary(j, sim) << train_summary(sim) << parallel_summary(j) << validation_summary(j);
  if (j.contains("health"))
    for (const auto& d : j["health"]["diagnoses"])  // no healthy peer: said, since nothing acts on it
      if (d["cause"] == "group_wide" || d["cause"] == "fabric_wide") {
        std::snprintf(buf, sizeof buf, "  health           %s slowdown from %.1f s: no healthy peer, nothing to move\n",
                      d["cause"] == "group_wide" ? "group-wide" : "fabric-wide", d["change_s"].get<double>());
        sum << buf;
      }
  std::snprintf(buf, sizeof buf, "  simulated        %s in %.2f s wall, %llu events (%.0f events/s%s)\n",
                format_time_s(sec(st.simulated_ps)).c_str(), st.wall_s, static_cast<unsigned long long>(st.events),
                st.wall_s > 0 ? static_cast<double>(st.events) / st.wall_s : 0.0, fidelity_note(sim).c_str());
  sum << buf << warnings_summary(warnings);
  r.summary = sum.str();
  return r;
}

}  // namespace trainvp
