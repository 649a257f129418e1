#include "platform/config/schema_registry.hpp"

#include "platform/config/scenario.hpp"

namespace trainvp {

std::vector<SchemaInfo> all_schemas() {
  std::vector<SchemaInfo> out = {
      scenario_schema().info(),      cluster_schema().info(),     node_schema().info(),
      gpu_schema().info(),           nvlink_schema().info(),      pcie_schema().info(),
      fabric_schema().info(),        nccl_schema().info(),        dcqcn_schema().info(),
      pfc_schema().info(),           override_schema().info(),    workload_schema().info(),
      train_schema().info(),         transformer_schema().info(), layer_schema().info(),
      tp_replicated_schema().info(), kernel_schema().info(),      bench_schema().info(),
      chakra_schema().info(),        training_schema().info(),    fast_forward_schema().info(),
      parallel_schema().info(),      sync_schema().info(),        job_schema().info(),
      placement_schema().info(),     checkpoint_schema().info(),  slo_schema().info(),
      validation_schema().info(),    health_schema().info(),      detector_schema().info(),
      mitigation_schema().info(),    compression_schema().info(), class_streams_schema().info(),
      elastic_schema().info(),       retry_schema().info(),       profile_schema().info(),
      cxl_schema().info(),           aggregators_schema().info(), cpu_schema().info()};
  for (auto& kind : fault_kind_names()) out.push_back(fault_kind_schema(kind.second).info());
  for (SchemaInfo& g : fault_generator_schemas()) out.push_back(std::move(g));
  out.push_back(output_schema().info());
  return out;
}

namespace {

std::string code(const std::string& text) { return text.empty() ? "" : "`" + text + "`"; }

std::string default_cell(const ParamInfo& p) {
  if (p.required) return "*required*";
  return p.default_value.is_null() ? "" : code(p.default_value.dump());
}

std::string allowed_cell(const ParamInfo& p) {
  if (p.choices.empty()) return code(p.range);
  std::string s;
  for (auto& c : p.choices) s += (s.empty() ? "" : ", ") + code(c);
  return s;
}

}  // namespace

std::string schema_key_table() {
  std::string out = "| Schema (where) | Key | Type | Default | Allowed |\n|---|---|---|---|---|\n";
  for (const SchemaInfo& s : all_schemas())
    for (std::size_t i = 0; i < s.params.size(); ++i) {
      const ParamInfo& p = s.params[i];
      out += "| " + (i == 0 ? code(s.name) + " (" + code(s.where) + ")" : std::string()) + " | " + code(p.name) +
             " | " + p.type + " | " + default_cell(p) + " | " + allowed_cell(p) + " |\n";
    }
  return out;
}

}  // namespace trainvp
