#include "platform/report/parallel_results.hpp"

#include <cstdio>

#include "models/parallel/parallel_sync.hpp"
#include "models/workload/dtype.hpp"
#include "platform/config/parallel.hpp"
#include "platform/core/sim_time.hpp"
#include "platform/core/units.hpp"
#include "platform/system/fast_forward/fast_forward.hpp"

namespace trainvp {

namespace {

using ojson = nlohmann::ordered_json;

// Narayanan et al. (SC'21), eq. 3: a GPT's FLOPs per iteration, B samples of s tokens, with the
// backward's forward recomputed (96) or not (72).
double gpt_flops(const Workload& w, double global_batch, bool recompute) {
  const double s = w.shape.seq, l = w.dims.layers, h = w.dims.hidden, V = w.dims.vocab;
  if (recompute) return 96 * global_batch * s * l * h * h * (1 + s / (6 * h) + V / (16 * l * h));
  return 72 * global_batch * s * l * h * h * (1 + s / (6 * h) + V / (12 * l * h));
}

double gib(std::uint64_t b) { return static_cast<double>(b) / (1024.0 * 1024.0 * 1024.0); }

}  // namespace

double parallel_samples(const Simulation& sim) {
  const ParallelConfig& c = sim.scenario().training.parallel;
  return static_cast<double>(sim.scenario().workload.shape.batch) * c.micro_batches * c.dp;
}

void add_parallel_results(ojson& j, const Simulation& sim, double iteration_s) {
  const std::map<std::string, FastForward::Sum> sums = collective_sums(sim);
  add_parallel_section(j, *sim.parallel(), sim.scenario(), sim.gpus(), iteration_s, &sums);
}

void add_parallel_section(ojson& j, const ParallelPlan& plan, const Scenario& s, const std::vector<const Gpu*>& gpus,
                          double iteration_s, const std::map<std::string, FastForward::Sum>* sums) {
  const ParallelConfig& c = plan.layout.config();
  const double samples = static_cast<double>(s.workload.shape.batch) * c.micro_batches * c.dp;
  ojson& o = j["parallel"];
  ojson stages = o.contains("stages") ? o["stages"] : ojson::array();  // ParallelSync::report's timing
  o = ojson::object();
  o["tp"] = c.tp, o["pp"] = c.pp, o["dp"] = c.dp;
  o["micro_batches"] = c.micro_batches;
  o["schedule"] = name_in(pipeline_schedule_names(), c.schedule);
  o["virtual_stages"] = c.virtual_stages;
  o["sequence_parallel"] = c.sequence_parallel;
  o["zero"] = c.zero;
  o["recompute"] = name_in(recompute_names(), c.recompute);
  o["global_batch"] = samples;
  o["boundary_bytes"] = plan.boundary_bytes;

  const Workload& full = s.workload;
  if (full.dims.valid()) {
    const double B = samples;
    const bool full_recompute = c.recompute == RecomputeKind::Full;
    double peak = 0;
    for (const Gpu* g : gpus) peak += g->params().compute_peak(full.shape.dtype);
    const double model = gpt_flops(full, B, false), counted = gpt_flops(full, B, full_recompute);
    o["model_flops_per_iteration"] = model;
    o["flops_per_iteration"] = counted;  // as Megatron-LM counts them: with the recomputed forward
    if (peak > 0 && iteration_s > 0) {
      o["mfu"] = model / iteration_s / peak;
      o["utilization"] = counted / iteration_s / peak;
    }
  }

  for (std::size_t st = 0; st < stages.size() && st < plan.memory.size(); ++st) {
    const StageMemory& m = plan.memory[st];
    const auto ranks = plan.layout.stage_ranks(static_cast<int>(st));
    const std::uint64_t hbm = s.cluster.gpus[static_cast<std::size_t>(ranks.front())].params.mem_capacity;
    stages[st]["memory"] = {{"weights_bytes", m.weights},
                            {"gradients_bytes", m.gradients},
                            {"optimizer_bytes", m.optimizer},
                            {"activations_bytes", m.activations},
                            {"total_bytes", m.total()},
                            {"hbm_bytes", hbm},
                            {"in_flight_micro_batches", plan.in_flight[st]}};
    if (m.gathered) stages[st]["memory"]["zero3_gathered_bytes"] = m.gathered;  // in total_bytes
  }
  o["stages"] = stages;

  // TP and PP traffic, summed by kind.
  if (sums) {
    ojson kinds = ojson::object();
    for (const char* kind : {"tp", "pp"}) {
      const auto it = sums->find(kind);
      const FastForward::Sum sum = it == sums->end() ? FastForward::Sum{} : it->second;
      kinds[kind] = {{"collectives", sum.collectives}, {"bytes", sum.bytes}, {"time_s", sum.time_s}};
    }
    o["traffic"] = kinds;
  }

  ojson place = ojson::array();
  for (const Gpu* g : gpus) {
    const ParallelCoord pc = plan.layout.coord(g->rank());
    place.push_back({{"gpu", g->name()}, {"rank", g->rank()}, {"tp", pc.tp}, {"pp", pc.pp}, {"dp", pc.dp}});
  }
  o["placement"] = place;
}

std::map<std::string, FastForward::Sum> collective_sums(const Simulation& sim) {
  std::map<std::string, FastForward::Sum> sums;
  if (const FastForward* ff = sim.fast_forward()) sums = ff->folded();  // the oldest records, summed in order
  for (const CollectiveRecord& r : sim.engine().records()) {
    if (r.end_ps < 0) continue;
    FastForward::Sum& s = sums[r.label.substr(0, r.label.find(' '))];
    s.collectives += 1, s.bytes += r.bytes, s.time_s += sec(r.end_ps - r.start_ps);
  }
  if (const FastForward* ff = sim.fast_forward())  // skipped iterations' copies, summed as they were made
    for (const auto& [kind, sum] : ff->summed()) {
      FastForward::Sum& s = sums[kind];
      s.collectives += sum.collectives, s.bytes += sum.bytes, s.time_s += sum.time_s;
    }
  return sums;
}

std::string parallel_summary(const ojson& j) {
  if (!j.contains("parallel")) return "";
  const ojson& o = j["parallel"];
  char buf[256];
  std::string out;
  std::snprintf(buf, sizeof buf, "  parallel         tp %d x pp %d x dp %d, %s, %d micro-batches", o["tp"].get<int>(),
                o["pp"].get<int>(), o["dp"].get<int>(), o["schedule"].get<std::string>().c_str(),
                o["micro_batches"].get<int>());
  out += buf;
  if (o.contains("utilization")) {
    std::snprintf(buf, sizeof buf, ", %.1f%% utilization (MFU %.1f%%)", 100 * o["utilization"].get<double>(),
                  100 * o["mfu"].get<double>());
    out += buf;
  }
  out += "\n";
  for (const ojson& st : o["stages"]) {
    std::snprintf(
        buf, sizeof buf, "    stage %d: compute %s, bubble %s, exposed tp %s dp %s, memory %.1f of %.0f GiB\n",
        st["stage"].get<int>(), format_time_s(st["compute_s"].get<double>()).c_str(),
        format_time_s(st["bubble_s"].get<double>()).c_str(), format_time_s(st["tp_exposed_s"].get<double>()).c_str(),
        format_time_s(st["dp_exposed_s"].get<double>()).c_str(),
        st.contains("memory") ? gib(st["memory"]["total_bytes"].get<std::uint64_t>()) : 0.0,
        st.contains("memory") ? gib(st["memory"]["hbm_bytes"].get<std::uint64_t>()) : 0.0);
    out += buf;
  }
  return out;
}

}  // namespace trainvp
