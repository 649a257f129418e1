#include "platform/config/layer_list.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "platform/config/section.hpp"
#include "platform/core/checked.hpp"

namespace trainvp {

const ParamSet<LayerRaw>& layer_schema() {
  static const ParamSet<LayerRaw> s = [] {
    ParamSet<LayerRaw> p("layer", "/workload/layers/*",
                         "One explicit layer. Give FLOPs (timed by roofline) or measured times per phase; "
                         "bwd_flops/bwd_time split evenly into the dX and dW halves.");
    p.text("name", &LayerRaw::name, nullptr, "Unique layer name")
        .integer64("params", &LayerRaw::params, 0, "Trainable parameters (the gradient's elements)")
        .number("fwd_flops", &LayerRaw::fwd_flops, nullptr, "Forward FLOPs per micro-batch", Range::non_negative())
        .number("bwd_flops", &LayerRaw::bwd_flops, nullptr, "Backward FLOPs (dX + dW) per micro-batch",
                Range::non_negative())
        .number("bwd_input_flops", &LayerRaw::bwd_input_flops, nullptr, "Backward dX FLOPs", Range::non_negative())
        .number("bwd_weight_flops", &LayerRaw::bwd_weight_flops, nullptr, "Backward dW FLOPs", Range::non_negative())
        .size("fwd_bytes", &LayerRaw::fwd_bytes, "0B", "Forward memory traffic")
        .size("bwd_input_bytes", &LayerRaw::bwd_input_bytes, "0B", "Backward dX memory traffic")
        .size("bwd_weight_bytes", &LayerRaw::bwd_weight_bytes, "0B", "Backward dW memory traffic")
        .size("activation_bytes", &LayerRaw::activation_bytes, "0B", "Activations kept for backward")
        .time("fwd_time", &LayerRaw::fwd_time, nullptr, "Measured forward time (replaces the roofline)")
        .time("bwd_time", &LayerRaw::bwd_time, nullptr, "Measured backward time (dX + dW)")
        .time("bwd_input_time", &LayerRaw::bwd_input_time, nullptr, "Measured backward dX time")
        .time("bwd_weight_time", &LayerRaw::bwd_weight_time, nullptr, "Measured backward dW time")
        .integer("kernels", &LayerRaw::kernels, 1, "Kernel launches per phase (roofline only)", Range::non_negative())
        // The keys below resolve only when given (no default), so a list without them resolves as before.
        .integer("fwd_kernels", &LayerRaw::fwd_kernels, nullptr, "Forward kernel launches; default `kernels`",
                 Range::non_negative())
        .integer("bwd_input_kernels", &LayerRaw::bwd_input_kernels, nullptr,
                 "Backward dX kernel launches; default `kernels`", Range::non_negative())
        .integer("bwd_weight_kernels", &LayerRaw::bwd_weight_kernels, nullptr,
                 "Backward dW kernel launches; default `kernels`", Range::non_negative())
        .choice("part", &LayerRaw::part, nullptr,
                {{"other", Layer::Part::Other}, {"attention", Layer::Part::Attention}, {"mlp", Layer::Part::Mlp}},
                "Which half of a transformer layer it is (with /workload/transformer: the activation-memory closed "
                "form of training.parallel); default other")
        .size("tp_fwd_bytes", &LayerRaw::tp_fwd_bytes, nullptr,
              "Tensor parallelism: the activation all-reduce its forward ends with, per micro-batch; default none")
        .size("tp_bwd_bytes", &LayerRaw::tp_bwd_bytes, nullptr,
              "Tensor parallelism: the input-gradient all-reduce of its backward, per micro-batch; default none")
        .nested("tp_replicated", "object", nullptr,
                "Tensor parallelism: the work a TP split leaves whole on every rank (see `layer_tp_replicated`); "
                "default none: all of it splits")
        .nested("matrices", "array", nullptr,
                "The weight matrices among `params`, [[rows, cols], ...] (PowerSGD, TP sharding); default one "
                "near-square matrix")
        .nested(
            "kernel_shapes", "object", nullptr,
            "The kernels of each phase with their shapes, {fwd: [...], bwd_input: [...], bwd_weight: [...]} of "
            "`layer_kernel` objects, timed one by one by the kernel model (docs/models.md#kernels; `trainvp convert` "
            "writes a zoo layer's); default none: the roofline of the FLOPs and bytes")
        .required("name");
    return p;
  }();
  return s;
}

const ParamSet<Layer::Replicated>& tp_replicated_schema() {
  static const ParamSet<Layer::Replicated> s = [] {
    using R = Layer::Replicated;
    ParamSet<R> p("layer_tp_replicated", "/workload/layers/*/tp_replicated",
                  "The part of a layer's work per micro-batch that a tensor-parallel split leaves whole on every rank "
                  "(norms, residual adds); the rest divides by tp.");
    p.number("fwd_flops", &R::fwd_flops, 0, "Forward FLOPs left whole", Range::non_negative())
        .number("bwd_input_flops", &R::bwd_input_flops, 0, "Backward dX FLOPs left whole", Range::non_negative())
        .number("bwd_weight_flops", &R::bwd_weight_flops, 0, "Backward dW FLOPs left whole", Range::non_negative())
        .number("fwd_bytes", &R::fwd_bytes, 0, "Forward bytes left whole", Range::non_negative())
        .number("bwd_input_bytes", &R::bwd_input_bytes, 0, "Backward dX bytes left whole", Range::non_negative())
        .number("bwd_weight_bytes", &R::bwd_weight_bytes, 0, "Backward dW bytes left whole", Range::non_negative());
    return p;
  }();
  return s;
}

const ParamSet<Kernel>& kernel_schema() {
  static const ParamSet<Kernel> s = [] {
    ParamSet<Kernel> p("layer_kernel", "/workload/layers/*/kernel_shapes/{fwd,bwd_input,bwd_weight}/*",
                       "One kernel of a layer's phase (docs/models.md#kernels): count GEMMs of (m x k) x (k x n), a "
                       "fused attention over count heads of m queries and n keys of width k, or a memory-bound kernel "
                       "moving `bytes`.");
    p.choice("kind", &Kernel::kind, nullptr,
             {{"gemm", Kernel::Kind::Gemm}, {"attention", Kernel::Kind::Attention}, {"memory", Kernel::Kind::Memory}},
             "gemm, attention or memory")
        .choice(
            "split", &Kernel::split, "replicated",
            {{"replicated", Kernel::Split::Replicated},
             {"m", Kernel::Split::M},
             {"n", Kernel::Split::N},
             {"k", Kernel::Split::K},
             {"heads", Kernel::Split::Heads},
             {"bytes", Kernel::Split::Bytes}},
            "What tensor parallelism divides: m, n or k of a GEMM, attention's heads, the bytes; replicated: nothing "
            "(the bytes with sequence parallelism)")
        .number("m", &Kernel::m, 0, "GEMM rows; attention queries", Range::non_negative())
        .number("n", &Kernel::n, 0, "GEMM columns; attention keys per query", Range::non_negative())
        .number("k", &Kernel::k, 0, "GEMM inner dimension; attention head width", Range::non_negative())
        .number("count", &Kernel::count, 1, "GEMMs of this shape; attention heads", Range::non_negative())
        .number("bytes", &Kernel::bytes, 0, "HBM bytes moved", Range::non_negative())
        .flag("causal", &Kernel::causal, false, "Attention: each query sees the keys before it")
        .flag("backward", &Kernel::backward, false, "Attention: the backward kernel (2.5x the forward's work)")
        .required("kind");
    return p;
  }();
  return s;
}

namespace {

// {fwd: [...], bwd_input: [...], bwd_weight: [...]} of kernel objects.
PhaseKernels load_kernels(const json& v, const std::string& path, json& resolved) {
  if (!v.is_object()) fail_expected(path, "an object {fwd, bwd_input, bwd_weight} of kernel lists", v);
  PhaseKernels pk;
  resolved = json::object();
  for (auto it = v.begin(); it != v.end(); ++it) {
    std::vector<Kernel>* list = it.key() == "fwd"          ? &pk.fwd
                                : it.key() == "bwd_input"  ? &pk.bwd_input
                                : it.key() == "bwd_weight" ? &pk.bwd_weight
                                                           : nullptr;
    const std::string lp = ptr_join(path, it.key());
    if (!list) throw ScenarioError(lp, "unknown key: the phases are fwd, bwd_input and bwd_weight");
    if (!it.value().is_array()) fail_expected(lp, "an array of kernel objects", it.value());
    json out = json::array();
    for (std::size_t i = 0; i < it.value().size(); ++i) {
      Kernel k;
      out.push_back(kernel_schema().load(k, it.value()[i], ptr_join(lp, i)));
      list->push_back(k);
    }
    resolved[it.key()] = out;
  }
  return pk;
}

// [[rows, cols], ...], holding at most `params` elements in all.
std::vector<Layer::Matrix> load_matrices(const json& v, const std::string& path, std::uint64_t params) {
  if (!v.is_array()) fail_expected(path, "an array of [rows, cols] pairs", v);
  std::vector<Layer::Matrix> out;
  std::uint64_t elems = 0;
  for (std::size_t i = 0; i < v.size(); ++i) {
    const std::string p = ptr_join(path, i);
    const json& m = v[i];
    auto dim = [&](std::size_t k) -> std::uint64_t {
      const json& x = m[k];
      const bool ok = x.is_number_integer() &&
                      !(x.is_number_unsigned() && x.get<std::uint64_t>() > (std::uint64_t{1} << 32)) &&
                      x.get<std::int64_t>() >= 1 && x.get<std::int64_t>() <= (std::int64_t{1} << 32);
      if (!ok) fail_expected(ptr_join(p, k), "an integer in [1, 2^32]", x);
      return x.get<std::uint64_t>();
    };
    if (!m.is_array() || m.size() != 2) fail_expected(p, "a [rows, cols] pair of integers", m);
    const Layer::Matrix mat{dim(0), dim(1)};
    const auto sum = checked_add<std::uint64_t>(elems, mat.rows * mat.cols);
    if (!sum || *sum > params)
      fail_expected(p, "matrices of at most `params` (" + std::to_string(params) + ") elements in all", m);
    elems = *sum;
    out.push_back(mat);
  }
  return out;
}

}  // namespace

Layer load_layer(const json& value, const std::string& path, DType grad_dtype, json& resolved) {
  LayerRaw r;
  resolved = layer_schema().load(r, value, path);
  Layer l;
  l.name = r.name;
  l.params = r.params;
  const auto grad_bytes = checked_mul<std::uint64_t>(static_cast<std::uint64_t>(r.params), dtype_bytes(grad_dtype));
  if (!grad_bytes || *grad_bytes > static_cast<std::uint64_t>(INT64_MAX))
    fail_expected(
        ptr_join(path, "params"),
        "a parameter count whose gradient (x " + std::to_string(dtype_bytes(grad_dtype)) + " bytes) fits in 2^63 bytes",
        json(r.params));
  l.grad_bytes = *grad_bytes;
  l.activation_bytes = r.activation_bytes;
  l.fwd_bytes = static_cast<double>(r.fwd_bytes);
  l.bwd_input_bytes = static_cast<double>(r.bwd_input_bytes);
  l.bwd_weight_bytes = static_cast<double>(r.bwd_weight_bytes);
  l.fwd_kernels = r.fwd_kernels >= 0 ? r.fwd_kernels : r.kernels;
  l.bwd_input_kernels = r.bwd_input_kernels >= 0 ? r.bwd_input_kernels : r.kernels;
  l.bwd_weight_kernels = r.bwd_weight_kernels >= 0 ? r.bwd_weight_kernels : r.kernels;
  l.part = r.part;
  l.tp_fwd_bytes = r.tp_fwd_bytes;
  l.tp_bwd_bytes = r.tp_bwd_bytes;
  if (const json& rep = member(value, "tp_replicated"); !rep.is_null())
    resolved["tp_replicated"] = tp_replicated_schema().load(l.tp_replicated, rep, ptr_join(path, "tp_replicated"));
  if (const json& m = member(value, "matrices"); !m.is_null())
    l.matrices = load_matrices(m, ptr_join(path, "matrices"), l.params);
  if (const json& k = member(value, "kernel_shapes"); !k.is_null())
    l.kernels = load_kernels(k, ptr_join(path, "kernel_shapes"), resolved["kernel_shapes"]);
  bool split_flops = r.bwd_input_flops >= 0 || r.bwd_weight_flops >= 0;
  bool split_time = r.bwd_input_time >= 0 || r.bwd_weight_time >= 0;
  if (r.bwd_flops >= 0 && split_flops)
    throw ScenarioError(ptr_join(path, "bwd_flops"),
                        "give either bwd_flops or bwd_input_flops/bwd_weight_flops, not both");
  if (r.bwd_time >= 0 && split_time)
    throw ScenarioError(ptr_join(path, "bwd_time"), "give either bwd_time or bwd_input_time/bwd_weight_time, not both");
  if (r.fwd_flops < 0 && r.fwd_time < 0)
    throw ScenarioError(ptr_join(path, "fwd_flops"), "missing forward work: expected fwd_flops or fwd_time");
  // Each backward half takes a measured time if one is given, else FLOPs; a half with neither
  // is an error rather than a silent zero.
  double dx_flops = r.bwd_flops >= 0 ? r.bwd_flops / 2 : r.bwd_input_flops;
  double dw_flops = r.bwd_flops >= 0 ? r.bwd_flops / 2 : r.bwd_weight_flops;
  std::int64_t dx_time = r.bwd_time >= 0 ? r.bwd_time / 2 : r.bwd_input_time;
  std::int64_t dw_time = r.bwd_time >= 0 ? r.bwd_time - r.bwd_time / 2 : r.bwd_weight_time;
  if (dx_flops < 0 && dx_time < 0)
    throw ScenarioError(ptr_join(path, "bwd_input_flops"),
                        "missing backward dX work: expected bwd_flops, bwd_time, bwd_input_flops or bwd_input_time");
  if (dw_flops < 0 && dw_time < 0)
    throw ScenarioError(ptr_join(path, "bwd_weight_flops"),
                        "missing backward dW work: expected bwd_flops, bwd_time, bwd_weight_flops or bwd_weight_time");
  l.fwd_flops = std::max(0.0, r.fwd_flops);
  l.bwd_input_flops = std::max(0.0, dx_flops);
  l.bwd_weight_flops = std::max(0.0, dw_flops);
  l.fwd_time_ps = r.fwd_time;
  l.bwd_input_time_ps = dx_time;
  l.bwd_weight_time_ps = dw_time;
  return l;
}

namespace {

// Sizes and times as the schema reads them: whole bytes ("123B"), picoseconds ("5ps"). Zoo byte
// counts are whole numbers (elements x bytes per element).
std::string bytes_text(double b) { return std::to_string(static_cast<std::uint64_t>(std::llround(b))) + "B"; }

}  // namespace

nlohmann::ordered_json layer_json(const Layer& l) {
  nlohmann::ordered_json j;
  j["name"] = l.name;
  j["params"] = l.params;
  j["fwd_flops"] = l.fwd_flops;
  j["bwd_input_flops"] = l.bwd_input_flops;
  j["bwd_weight_flops"] = l.bwd_weight_flops;
  j["fwd_bytes"] = bytes_text(l.fwd_bytes);
  j["bwd_input_bytes"] = bytes_text(l.bwd_input_bytes);
  j["bwd_weight_bytes"] = bytes_text(l.bwd_weight_bytes);
  j["activation_bytes"] = bytes_text(static_cast<double>(l.activation_bytes));
  if (l.fwd_time_ps >= 0) j["fwd_time"] = std::to_string(l.fwd_time_ps) + "ps";
  if (l.bwd_input_time_ps >= 0) j["bwd_input_time"] = std::to_string(l.bwd_input_time_ps) + "ps";
  if (l.bwd_weight_time_ps >= 0) j["bwd_weight_time"] = std::to_string(l.bwd_weight_time_ps) + "ps";
  j["fwd_kernels"] = l.fwd_kernels;
  j["bwd_input_kernels"] = l.bwd_input_kernels;
  j["bwd_weight_kernels"] = l.bwd_weight_kernels;
  if (l.part != Layer::Part::Other) j["part"] = l.part == Layer::Part::Attention ? "attention" : "mlp";
  if (l.tp_fwd_bytes > 0) j["tp_fwd_bytes"] = bytes_text(static_cast<double>(l.tp_fwd_bytes));
  if (l.tp_bwd_bytes > 0) j["tp_bwd_bytes"] = bytes_text(static_cast<double>(l.tp_bwd_bytes));
  const Layer::Replicated& r = l.tp_replicated;
  if (r.fwd_flops > 0 || r.bwd_input_flops > 0 || r.bwd_weight_flops > 0 || r.fwd_bytes > 0 || r.bwd_input_bytes > 0 ||
      r.bwd_weight_bytes > 0)
    j["tp_replicated"] = {
        {"fwd_flops", r.fwd_flops}, {"bwd_input_flops", r.bwd_input_flops}, {"bwd_weight_flops", r.bwd_weight_flops},
        {"fwd_bytes", r.fwd_bytes}, {"bwd_input_bytes", r.bwd_input_bytes}, {"bwd_weight_bytes", r.bwd_weight_bytes}};
  if (!l.matrices.empty()) {
    nlohmann::ordered_json m = nlohmann::ordered_json::array();
    for (const Layer::Matrix& x : l.matrices) m.push_back({x.rows, x.cols});
    j["matrices"] = m;
  }
  if (!l.kernels.empty()) {
    static const char* kinds[] = {"gemm", "attention", "memory"};
    static const char* splits[] = {"replicated", "m", "n", "k", "heads", "bytes"};
    nlohmann::ordered_json phases;
    for (auto [name, list] : {std::pair<const char*, const std::vector<Kernel>*>{"fwd", &l.kernels.fwd},
                              {"bwd_input", &l.kernels.bwd_input},
                              {"bwd_weight", &l.kernels.bwd_weight}}) {
      nlohmann::ordered_json ks = nlohmann::ordered_json::array();
      for (const Kernel& k : *list) {
        nlohmann::ordered_json o = {{"kind", kinds[static_cast<int>(k.kind)]},
                                    {"split", splits[static_cast<int>(k.split)]}};
        if (k.kind != Kernel::Kind::Memory) o["m"] = k.m, o["n"] = k.n, o["k"] = k.k, o["count"] = k.count;
        o["bytes"] = k.bytes;
        if (k.causal) o["causal"] = true;
        if (k.backward) o["backward"] = true;
        ks.push_back(o);
      }
      phases[name] = ks;
    }
    j["kernel_shapes"] = phases;
  }
  return j;
}

nlohmann::ordered_json frozen_workload(const Workload& w, const nlohmann::ordered_json& original) {
  nlohmann::ordered_json out = nlohmann::ordered_json::object();
  for (auto it = original.begin(); it != original.end(); ++it)
    if (it.key() != "model" && it.key() != "hf_config" && it.key() != "torch_profile" && it.key() != "layers" &&
        it.key() != "name" && it.key() != "sequence" && it.key() != "transformer")
      out[it.key()] = it.value();
  out["name"] = w.model;
  out["sequence"] = w.sequence_model;
  if (w.optimizer_time_ps >= 0) out["optimizer_time"] = std::to_string(w.optimizer_time_ps) + "ps";  // a trace's, kept
  if (w.dims.valid())
    out["transformer"] = {
        {"layers", w.dims.layers}, {"hidden", w.dims.hidden}, {"heads", w.dims.heads}, {"vocab", w.dims.vocab}};
  nlohmann::ordered_json layers = nlohmann::ordered_json::array();
  for (const Layer& l : w.layers) layers.push_back(layer_json(l));
  out["layers"] = layers;
  return out;
}

}  // namespace trainvp
