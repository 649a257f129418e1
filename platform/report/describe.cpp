#include "platform/report/describe.hpp"

#include <cstdio>
#include <sstream>

#include "models/aggregator/aggregator.hpp"
#include "models/nvswitch/nvls_unit.hpp"
#include "models/collectives/engine.hpp"
#include "models/cxl/cxl_device.hpp"
#include "models/gpu/gpu.hpp"
#include "models/health/monitor.hpp"
#include "models/link/flow_network.hpp"
#include "models/link/forwarder.hpp"
#include "models/link/link_dir.hpp"
#include "models/parallel/parallel_sync.hpp"
#include "models/workload/hf_config.hpp"
#include "platform/config/scenario.hpp"
#include "platform/core/units.hpp"

namespace trainvp {

namespace {

std::string default_text(const ParamInfo& p) {
  if (p.required) return "(required)";
  if (p.default_value.is_null()) return "-";
  if (p.default_value.is_string()) return p.default_value.get<std::string>();
  return p.default_value.dump();
}

std::string constraint_text(const ParamInfo& p) {
  if (!p.choices.empty()) {
    std::string s;
    for (auto& c : p.choices) s += (s.empty() ? "" : "|") + c;
    return s;
  }
  return p.range;
}

const ModelInfo* find_platform_model(const std::string& name) {
  for (const ModelInfo* m : platform_models())
    if (m->name == name) return m;
  return nullptr;
}

// A schema's parameters, one line each.
void params_text(std::ostringstream& o, const SchemaInfo& s) {
  for (const ParamInfo& p : s.params) {
    char line[256];
    std::snprintf(line, sizeof line, "  %-18s %-16s %-14s %-12s ", p.name.c_str(), p.type.c_str(),
                  default_text(p).c_str(), constraint_text(p).c_str());
    o << line << p.help << "\n";
  }
}

void sockets_and_statistics_text(std::ostringstream& o, const ModelInfo& m) {
  if (!m.sockets.empty()) o << "  sockets:\n";
  for (const SocketInfo& s : m.sockets)
    o << "    " << s.name << "  " << s.protocol << "; bound to " << s.connects << "\n";
  if (!m.interfaces.empty()) o << "  interfaces (no TLM socket):\n";
  for (const SocketInfo& s : m.interfaces) o << "    " << s.name << "  " << s.protocol << ": " << s.connects << "\n";
  if (!m.trace_sources.empty()) o << "  trace sources:\n";
  for (const TraceSourceInfo& t : m.trace_sources)
    o << "    " << t.name << "  (" << t.arguments << ") " << t.meaning << "\n";
  if (m.statistics.empty()) {
    o << "  statistics: none of its own; " << m.reported_by << "\n";
    return;
  }
  o << "  statistics (results.json " << m.results << "):\n";
  for (const StatInfo& s : m.statistics) {
    char line[256];
    std::snprintf(line, sizeof line, "    %-26s %-9s ", s.name.c_str(), s.unit.c_str());
    o << line << s.meaning << (s.when.empty() ? "" : " (with " + s.when + ")") << "\n";
  }
}

nlohmann::ordered_json schema_json(const SchemaInfo& s) {
  using oj = nlohmann::ordered_json;
  oj params = oj::array();
  for (const ParamInfo& p : s.params) {
    oj e = {{"name", p.name}, {"type", p.type}};
    if (!p.units.empty()) e["units"] = p.units;
    e["required"] = p.required;
    e["default"] = p.default_value;
    if (!p.range.empty()) e["range"] = p.range;
    if (!p.choices.empty()) e["choices"] = p.choices;
    e["help"] = p.help;
    params.push_back(e);
  }
  return {{"name", s.name}, {"where", s.where}, {"help", s.help}, {"params", params}};
}

// The schemas a model is configured by, in the order it names them.
std::vector<const SchemaInfo*> schemas_of(const ModelInfo& m) {
  static const std::vector<SchemaInfo> all = all_schemas();
  std::vector<const SchemaInfo*> out;
  for (const std::string& name : m.schemas)
    for (const SchemaInfo& s : all)
      if (s.name == name) out.push_back(&s);
  return out;
}

nlohmann::ordered_json model_info_json(const ModelInfo& m) {
  using oj = nlohmann::ordered_json;
  oj sockets = oj::array(), interfaces = oj::array(), stats = oj::array(), sources = oj::array();
  for (const SocketInfo& s : m.sockets)
    sockets.push_back({{"name", s.name}, {"protocol", s.protocol}, {"connects", s.connects}});
  for (const SocketInfo& s : m.interfaces)
    interfaces.push_back({{"name", s.name}, {"protocol", s.protocol}, {"connects", s.connects}});
  for (const StatInfo& s : m.statistics) {
    stats.push_back({{"name", s.name}, {"unit", s.unit}, {"meaning", s.meaning}});
    if (!s.when.empty()) stats.back()["when"] = s.when;
  }
  for (const TraceSourceInfo& t : m.trace_sources)
    sources.push_back({{"name", t.name}, {"arguments", t.arguments}, {"meaning", t.meaning}});
  oj out = {{"name", m.name},     {"help", m.help},           {"schemas", m.schemas},     {"results", m.results},
            {"sockets", sockets}, {"interfaces", interfaces}, {"trace_sources", sources}, {"statistics", stats}};
  if (!m.reported_by.empty()) out["reported_by"] = m.reported_by;
  return out;
}

// A markdown cell: a `|` would split it.
std::string cell(const std::string& s) {
  std::string out;
  for (char c : s) out += c == '|' ? std::string("\\|") : std::string(1, c);
  return out;
}

}  // namespace

const std::vector<const ModelInfo*>& platform_models() {
  static const std::vector<const ModelInfo*> models = {
      &Gpu::info(),          &CxlDevice::info(),      &Aggregator::info(),  &NvlsUnit::info(),
      &LinkDir::info(),      &Forwarder::info(),      &FlowNetwork::info(), &CollectiveEngine::info(),
      &ParallelSync::info(), &FailSlowMonitor::info()};
  return models;
}

std::string describe_models_text() {
  std::ostringstream o;
  o << "Models (`trainvp describe model NAME` shows one with its parameters):\n";
  for (const ModelInfo* m : platform_models()) {
    o << m->name << ": " << m->help << "\n";
    sockets_and_statistics_text(o, *m);
  }
  return o.str();
}

std::string model_table() {
  std::ostringstream o;
  o << "| Model | Parameters (schemas) | Sockets or interfaces | Trace sources | Statistics (results.json) |\n"
    << "|---|---|---|---|---|\n";
  for (const ModelInfo* m : platform_models()) {
    std::string schemas, ports, sources, stats;
    for (const std::string& s : m->schemas) schemas += (schemas.empty() ? "" : ", ") + ("`" + s + "`");
    for (const SocketInfo& s : m->sockets) ports += (ports.empty() ? "" : ", ") + ("`" + s.name + "` (TLM)");
    for (const SocketInfo& s : m->interfaces) ports += (ports.empty() ? "" : ", ") + ("`" + s.name + "`");
    for (const TraceSourceInfo& t : m->trace_sources) sources += (sources.empty() ? "" : ", ") + ("`" + t.name + "`");
    for (const StatInfo& s : m->statistics) stats += (stats.empty() ? "" : ", ") + ("`" + s.name + "`");
    stats = m->statistics.empty() ? "none of its own: " + m->reported_by : "`" + m->results + "`: " + stats;
    o << "| `" << m->name << "` | " << schemas << " | " << cell(ports) << " | " << (sources.empty() ? "-" : sources)
      << " | " << cell(stats) << " |\n";
  }
  return o.str();
}

std::string describe_text() {
  std::ostringstream o;
  o << "trainvp " << TRAINVP_VERSION << ": scenario format " << kScenarioFormatVersion << "\n";
  o << "Quantities are strings with units:\n";
  for (Quantity q : {Quantity::Bandwidth, Quantity::Time, Quantity::Size, Quantity::FlopRate, Quantity::Frequency})
    o << "  " << quantity_name(q) << ": " << units_of(q) << "\n";
  for (const SchemaInfo& s : all_schemas()) {
    o << "\n" << s.name << "  [" << s.where << "]\n  " << s.help << "\n";
    params_text(o, s);
  }
  o << "\n" << describe_models_text();
  o << "\nGPU presets (/cluster/node/gpu):\n";
  for (const GpuPreset& g : gpu_presets()) {
    o << "  " << g.name << ": " << g.description << "\n   ";
    for (auto it = g.values.begin(); it != g.values.end(); ++it)
      o << " " << it.key() << "=" << (it.value().is_string() ? it.value().get<std::string>() : it.value().dump());
    o << "\n";
  }
  o << "\nZoo models (/workload/model; `trainvp describe model NAME` shows the layers):\n";
  for (const ZooModelInfo& m : zoo_models()) {
    char line[256];
    std::snprintf(line, sizeof line, "  %-12s %14llu parameters  %s\n", m.name.c_str(),
                  static_cast<unsigned long long>(m.reference_params), m.convention.c_str());
    o << line;
  }
  std::string types;
  for (const std::string& t : hf_model_types()) types += (types.empty() ? "" : ", ") + t;
  o << "\nHugging Face configs (/workload/hf_config: a config.json of model_type " << types
    << "; docs/workloads.md):\n  `trainvp describe workload CONFIG.json` shows the layers\n";
  return o.str();
}

nlohmann::ordered_json describe_json() {
  using oj = nlohmann::ordered_json;
  oj out;
  out["version"] = TRAINVP_VERSION;
  out["format"] = kScenarioFormatVersion;
  oj schemas = oj::array();
  for (const SchemaInfo& s : all_schemas()) schemas.push_back(schema_json(s));
  out["schemas"] = schemas;
  oj presets = oj::array();
  for (const GpuPreset& g : gpu_presets())
    presets.push_back({{"name", g.name}, {"description", g.description}, {"values", g.values}});
  out["gpu_presets"] = presets;
  oj models = oj::array();
  for (const ZooModelInfo& m : zoo_models())
    models.push_back({{"name", m.name},
                      {"family", m.family},
                      {"parameters", m.reference_params},
                      {"convention", m.convention},
                      {"sequence_model", m.sequence_model}});
  out["zoo_models"] = models;
  out["hf_model_types"] = hf_model_types();  // what /workload/hf_config reads
  oj platform = oj::array();
  for (const ModelInfo* m : platform_models()) platform.push_back(model_info_json(*m));
  out["models"] = platform;
  return out;
}

nlohmann::ordered_json workload_table_json(const Workload& w, const std::string& convention) {
  using oj = nlohmann::ordered_json;
  oj out;
  std::uint64_t total = 0;
  double fwd = 0, bwd = 0;
  oj list = oj::array();
  for (const Layer& l : w.layers) {
    total += l.params;
    fwd += l.fwd_flops;
    bwd += l.bwd_input_flops + l.bwd_weight_flops;
    list.push_back({{"name", l.name},
                    {"parameters", l.params},
                    {"fwd_flops", l.fwd_flops},
                    {"bwd_input_flops", l.bwd_input_flops},
                    {"bwd_weight_flops", l.bwd_weight_flops},
                    {"bwd_flops", l.bwd_input_flops + l.bwd_weight_flops},
                    {"fwd_bytes", l.fwd_bytes},
                    {"bwd_input_bytes", l.bwd_input_bytes},
                    {"bwd_weight_bytes", l.bwd_weight_bytes},
                    {"activation_bytes", l.activation_bytes},
                    {"gradient_bytes", l.grad_bytes},
                    {"kernels", {l.fwd_kernels, l.bwd_input_kernels, l.bwd_weight_kernels}}});
    // Measured times (a profiler trace's, or given) replace the FLOPs' roofline.
    if (l.fwd_time_ps >= 0) list.back()["fwd_time_s"] = static_cast<double>(l.fwd_time_ps) * 1e-12;
    if (l.bwd_input_time_ps >= 0) list.back()["bwd_input_time_s"] = static_cast<double>(l.bwd_input_time_ps) * 1e-12;
    if (l.bwd_weight_time_ps >= 0) list.back()["bwd_weight_time_s"] = static_cast<double>(l.bwd_weight_time_ps) * 1e-12;
  }
  const WorkloadShape& shape = w.shape;
  out["model"] = w.model;
  if (!convention.empty()) out["convention"] = convention;
  out["shape"] = {{"batch", shape.batch},
                  {"seq", shape.seq},
                  {"image_size", shape.image_size},
                  {"dtype", dtype_name(shape.dtype)},
                  {"grad_dtype", dtype_name(shape.grad_dtype)}};
  out["parameters"] = total;
  out["fwd_flops"] = fwd;
  out["bwd_flops"] = bwd;
  if (w.optimizer_time_ps >= 0) out["optimizer_time_s"] = static_cast<double>(w.optimizer_time_ps) * 1e-12;
  out["layers"] = list;
  return out;
}

std::string workload_table_text(const nlohmann::ordered_json& j) {
  std::ostringstream o;
  const auto& shape = j["shape"];
  o << j["model"].get<std::string>() << ": " << j["parameters"].get<std::uint64_t>() << " parameters";
  if (j.contains("convention")) o << " (" << j["convention"].get<std::string>() << ")";
  o << "\nbatch " << shape["batch"].get<int>() << ", seq " << shape["seq"].get<int>() << ", image "
    << shape["image_size"].get<int>() << ", dtype " << shape["dtype"].get<std::string>();
  const bool measured = !j["layers"].empty() && j["layers"][0].contains("fwd_time_s");
  o << (measured ? "; measured times per micro-batch\n" : "; FLOPs per micro-batch\n");
  char line[256];
  // Measured layers show their times where the FLOPs would be.
  auto time_of = [](const nlohmann::ordered_json& l, const char* key) {
    return l.contains(key) ? format_time_s(l[key].get<double>()) : std::string("-");
  };
  if (measured) {
    std::snprintf(line, sizeof line, "%-14s %14s %10s %10s %10s %10s\n", "layer", "parameters", "fwd", "bwd_in",
                  "bwd_w", "grad");
    o << line;
    for (auto& l : j["layers"]) {
      std::snprintf(line, sizeof line, "%-14s %14llu %10s %10s %10s %10s\n", l["name"].get<std::string>().c_str(),
                    static_cast<unsigned long long>(l["parameters"].get<std::uint64_t>()),
                    time_of(l, "fwd_time_s").c_str(), time_of(l, "bwd_input_time_s").c_str(),
                    time_of(l, "bwd_weight_time_s").c_str(),
                    format_bytes(static_cast<double>(l["gradient_bytes"].get<std::uint64_t>())).c_str());
      o << line;
    }
    o << "total " << j["parameters"].get<std::uint64_t>() << " parameters";
    if (j.contains("optimizer_time_s")) o << "; optimizer step " << format_time_s(j["optimizer_time_s"].get<double>());
    o << "\n";
    return o.str();
  }
  std::snprintf(line, sizeof line, "%-14s %14s %10s %10s %10s %10s %10s\n", "layer", "parameters", "fwd", "bwd_in",
                "bwd_w", "act", "grad");
  o << line;
  for (auto& l : j["layers"]) {
    std::snprintf(line, sizeof line, "%-14s %14llu %10s %10s %10s %10s %10s\n", l["name"].get<std::string>().c_str(),
                  static_cast<unsigned long long>(l["parameters"].get<std::uint64_t>()),
                  format_count(l["fwd_flops"].get<double>()).c_str(),
                  format_count(l["bwd_input_flops"].get<double>()).c_str(),
                  format_count(l["bwd_weight_flops"].get<double>()).c_str(),
                  format_bytes(static_cast<double>(l["activation_bytes"].get<std::uint64_t>())).c_str(),
                  format_bytes(static_cast<double>(l["gradient_bytes"].get<std::uint64_t>())).c_str());
    o << line;
  }
  std::snprintf(line, sizeof line, "%-14s %14llu %10s %10s\n", "total",
                static_cast<unsigned long long>(j["parameters"].get<std::uint64_t>()),
                format_count(j["fwd_flops"].get<double>()).c_str(), format_count(j["bwd_flops"].get<double>()).c_str());
  o << line;
  return o.str();
}

nlohmann::ordered_json describe_model_json(const std::string& name, const WorkloadShape& shape) {
  using oj = nlohmann::ordered_json;
  if (const ModelInfo* m = find_platform_model(name)) {
    oj out = model_info_json(*m);
    oj params = oj::array();
    for (const SchemaInfo* s : schemas_of(*m)) params.push_back(schema_json(*s));
    out["parameters"] = params;
    return out;
  }
  const ZooModelInfo* info = find_zoo_model(name);
  Workload w;
  w.layers = build_zoo_model(name, shape);  // throws for unknown names
  w.model = info ? info->name : name;       // an alias ("gpt2") shows the zoo's own name
  w.shape = shape;
  return workload_table_json(w, info ? info->convention : "");
}

std::string describe_model_text(const std::string& name, const WorkloadShape& shape) {
  if (const ModelInfo* m = find_platform_model(name)) {
    std::ostringstream o;
    o << m->name << ": " << m->help << "\n";
    for (const SchemaInfo* s : schemas_of(*m)) {
      o << "  parameters " << s->name << "  [" << s->where << "]\n";
      params_text(o, *s);
    }
    sockets_and_statistics_text(o, *m);
    return o.str();
  }
  nlohmann::ordered_json j = describe_model_json(name, shape);
  j["model"] = name;  // the name as asked for
  return workload_table_text(j);
}

}  // namespace trainvp
