#include "platform/report/kernel_table.hpp"

#include <cstdio>
#include <sstream>
#include <stdexcept>

#include "models/gpu/kernel_time.hpp"
#include "models/parallel/layout.hpp"
#include "platform/core/units.hpp"

namespace trainvp {

namespace {

using ojson = nlohmann::ordered_json;

const char* kind_name(Kernel::Kind k) {
  switch (k) {
    case Kernel::Kind::Gemm: return "gemm";
    case Kernel::Kind::Attention: return "attention";
    case Kernel::Kind::Memory: return "memory";
  }
  return "?";
}

std::string shape_of(const Kernel& k) {
  char buf[160];
  auto n = [](double x) { return static_cast<long long>(x); };
  switch (k.kind) {
    case Kernel::Kind::Gemm:
      std::snprintf(buf, sizeof buf, "%s%lld x %lld x %lld (m n k)",
                    k.count > 1 ? (std::to_string(n(k.count)) + " x ").c_str() : "", n(k.m), n(k.n), n(k.k));
      break;
    case Kernel::Kind::Attention:
      std::snprintf(buf, sizeof buf, "%lld heads, %lld queries x %lld keys, width %lld%s%s", n(k.count), n(k.m), n(k.n),
                    n(k.k), k.causal ? ", causal" : "", k.backward ? ", backward" : "");
      break;
    case Kernel::Kind::Memory: return format_bytes(k.bytes);
  }
  return buf;
}

}  // namespace

ojson kernel_table_json(const Workload& w, const KernelView& view) {
  const GpuPreset* preset = find_gpu_preset(view.gpu);
  if (!preset) throw std::invalid_argument("no GPU preset \"" + view.gpu + "\" (trainvp describe lists them)");
  GpuParams gpu;
  load_gpu(gpu, json(view.gpu), "");
  if (!gpu.times_kernels())
    throw std::invalid_argument(view.gpu + " has no kernel model (its preset gives no SM count)");
  ojson out = {{"model", w.model},
               {"gpu", view.gpu},
               {"tp", view.tp},
               {"sequence_parallel", view.sequence_parallel},
               {"dtype", dtype_name(w.shape.dtype)}};
  ojson layers = ojson::array();
  double total = 0;
  for (const Layer& full : w.layers) {
    const Layer l = tp_shard(full, view.tp, view.sequence_parallel, w.shape.grad_dtype);
    ojson phases = ojson::object();
    double layer_s = 0;
    for (auto [name, list] : {std::pair<const char*, const std::vector<Kernel>*>{"fwd", &l.kernels.fwd},
                              {"bwd_input", &l.kernels.bwd_input},
                              {"bwd_weight", &l.kernels.bwd_weight}}) {
      ojson ks = ojson::array();
      for (const Kernel& k : *list) {
        const double s = kernel_seconds(gpu, w.shape.dtype, k);
        layer_s += s;
        ojson o = {{"kind", kind_name(k.kind)},
                   {"shape", shape_of(k)},
                   {"flops", k.flops()},
                   {"bytes", k.bytes},
                   {"time_s", s}};
        if (k.kind != Kernel::Kind::Memory) o["efficiency"] = kernel_efficiency(gpu, w.shape.dtype, k);
        ks.push_back(o);
      }
      phases[name] = ks;
    }
    total += layer_s;
    layers.push_back({{"name", l.name}, {"time_s", layer_s}, {"kernels", phases}});
  }
  out["time_s"] = total;
  out["layers"] = layers;
  return out;
}

std::string kernel_table_text(const ojson& t) {
  std::ostringstream o;
  o << t["model"].get<std::string>() << " on " << t["gpu"].get<std::string>() << " (" << t["dtype"].get<std::string>()
    << (t["tp"].get<int>() > 1 ? ", one of " + std::to_string(t["tp"].get<int>()) + " tensor-parallel ranks"
                               : std::string())
    << (t["sequence_parallel"].get<bool>() ? ", sequence parallel" : "")
    << "): kernels per micro-batch, kernel model\n";
  char line[320];
  std::snprintf(line, sizeof line, "%-14s %-10s %-9s %-52s %10s %10s %6s\n", "layer", "phase", "kind", "shape", "FLOPs",
                "time", "eff");
  o << line;
  for (const auto& l : t["layers"]) {
    bool first = true;
    for (const char* ph : {"fwd", "bwd_input", "bwd_weight"})
      for (const auto& k : l["kernels"][ph]) {
        const std::string eff = k.contains("efficiency")
                                    ? std::to_string(static_cast<int>(100 * k["efficiency"].get<double>() + 0.5)) + "%"
                                    : "";
        std::snprintf(line, sizeof line, "%-14s %-10s %-9s %-52s %10s %10s %6s\n",
                      first ? l["name"].get<std::string>().c_str() : "", ph, k["kind"].get<std::string>().c_str(),
                      k["shape"].get<std::string>().c_str(),
                      k["flops"].get<double>() > 0 ? format_count(k["flops"].get<double>()).c_str() : "-",
                      format_time_s(k["time_s"].get<double>()).c_str(), eff.c_str());
        o << line;
        first = false;
      }
    std::snprintf(line, sizeof line, "%-14s %-10s %-9s %-52s %10s %10s\n", "", "", "", "", "layer",
                  format_time_s(l["time_s"].get<double>()).c_str());
    o << line;
  }
  o << "total " << format_time_s(t["time_s"].get<double>())
    << " per micro-batch (forward and backward, no communication)\n";
  return o.str();
}

}  // namespace trainvp
