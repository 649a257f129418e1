#pragma once
// /workload: the model one data-parallel replica trains (a zoo model, a Hugging Face config or
// explicit layers) or, with kind "collective", an nccl-tests style collective benchmark instead of
// training.
#include <cstdint>
#include <string>
#include <vector>

#include "models/collectives/program.hpp"
#include "models/workload/workload.hpp"
#include "platform/config/layer_list.hpp"
#include "platform/core/params.hpp"

namespace trainvp {

// workload.kind "collective": an nccl-tests style benchmark instead of training.
struct CollectiveBenchConfig {
  CollectiveOp op = CollectiveOp::AllReduce;
  CollectiveAlgo algorithm = CollectiveAlgo::Ring;
  std::vector<std::uint64_t> sizes;  // bytes per rank's buffer, in order
  int iterations = 20, warmup = 5;
  std::vector<int> communicator;  // global ranks, in ring order
  int root = 0;                   // broadcast root (a position in the communicator)
  bool functional = false;        // CXL engine jobs on synthetic data, checked against the reference
};

// The keys of /workload, /workload/layers/* and /workload (kind collective) as given.
struct WorkloadRaw {
  std::string model, hf_config, torch_profile, name;
  std::int64_t optimizer_time = -1;
  int batch = 8, seq = 1024, image_size = 224, micro_batches = 1;
  DType dtype = DType::BF16, grad_dtype = DType::BF16;
  bool sequence = false;
  bool functional = false;
  std::uint64_t functional_max_bytes = 64ull << 20;
  bool flash_attention = true;
};
struct BenchRaw {
  bool functional = false;
  std::uint64_t functional_max_bytes = 64ull << 20;
  CollectiveOp op = CollectiveOp::AllReduce;
  CollectiveAlgo algorithm = CollectiveAlgo::Ring;
  std::uint64_t bytes = 0, min_bytes = 0, max_bytes = 0;
  int factor = 2, iterations = 20, warmup = 5, root = 0;
  std::string kind;
};
const ParamSet<WorkloadRaw>& workload_schema();
const ParamSet<BenchRaw>& bench_schema();
// /workload/transformer: an explicit layer list's transformer dimensions.
const ParamSet<TransformerDims>& transformer_schema();

struct Scenario;

// Reads /workload into `s` (whose cluster is loaded): its training workload, or its collective
// benchmark with s.collective_bench set. `raw` receives a training workload's keys as given, for
// check_training_workload. A relative hf_config is looked for in `scenario_dir` (the scenario
// file's directory; "" when the document has no file), then in the current directory. Returns the
// resolved object; throws ScenarioError naming the pointer.
json load_workload_section(Scenario& s, WorkloadRaw& raw, const json& value, const std::string& scenario_dir = "");

// The checks of /workload (`value`, read into `raw`) that need s.training: a gradient dtype the
// CXL engine reduces, and functional mode only where its data paths are.
void check_training_workload(const Scenario& s, const json& value, const WorkloadRaw& raw);

// Every GPU of the cluster computes in the workload's dtype.
void check_workload_dtype_on_gpus(const Scenario& s);

}  // namespace trainvp
