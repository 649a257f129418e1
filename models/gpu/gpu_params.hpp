#pragma once
// Parameters of one GPU: dense tensor peaks per dtype, memory, launch overhead, efficiency knobs.
#include <cstdint>
#include <string>
#include <vector>

#include "models/workload/dtype.hpp"
#include "platform/core/name_table.hpp"
#include "platform/core/params.hpp"

namespace trainvp {

// How phases with kernel shapes are timed: by the kernel model (each kernel from its shape,
// kernel_time.hpp), or by the roofline of their summed FLOPs and bytes at `efficiency`.
enum class KernelModel { Shapes, Roofline };

struct GpuParams {
  std::string model;     // preset or custom name, for reports
  double peak_fp32 = 0;  // FLOP/s (dense, no sparsity)
  double peak_tf32 = 0;
  double peak_bf16 = 0;
  double peak_fp16 = 0;
  double peak_fp8 = 0;              // 0: the GPU has no FP8 tensor cores
  double mem_bw = 0;                // bits/s (HBM/GDDR)
  std::uint64_t mem_capacity = 0;   // bytes
  std::int64_t mem_latency_ps = 0;  // first-byte latency of a DMA access to this GPU's memory
  double nvlink_bw = 0;             // bits/s per direction, 0: no NVLink
  double efficiency = 0.5;          // roofline: fraction of the tensor peak real kernels reach
  double mem_efficiency = 0.8;      // fraction of the memory bandwidth real kernels reach
  std::int64_t kernel_launch_ps = 0;
  double speed = 1.0;  // per-GPU speed factor: phase times are divided by it
  // The kernel model (kernel_time.hpp); `sms` 0 leaves every phase to the roofline.
  KernelModel kernel_model = KernelModel::Shapes;
  int sms = 0;                            // streaming multiprocessors: one GEMM tile or attention block each
  double gemm_efficiency = 0.8;           // large GEMMs' achievable fraction of the tensor peak
  double attention_efficiency = 0.5;      // fused attention's, at 16k keys, head width 128, no mask
  std::int64_t kernel_tail_ps = 2000000;  // GPU time between back-to-back kernels

  // Dense tensor peak for a dtype, FLOP/s; 0 when unsupported.
  double compute_peak(DType d) const;
  // Effective compute rate for a dtype, FLOP/s (peak x efficiency); 0 when unsupported.
  double compute_rate(DType d) const { return compute_peak(d) * efficiency; }
  // Whether phases with kernel shapes are timed by the kernel model.
  bool times_kernels() const { return kernel_model == KernelModel::Shapes && sms > 0; }
  // Effective memory bandwidth, bytes/s.
  double mem_bytes_per_s() const { return mem_bw / 8.0 * mem_efficiency; }
};

const ParamSet<GpuParams>& gpu_schema();
const NameTable<KernelModel>& kernel_model_names();

struct GpuPreset {
  std::string name;
  std::string description;
  json values;  // a JSON object in the gpu schema, exactly as a scenario would write it
};
const std::vector<GpuPreset>& gpu_presets();
const GpuPreset* find_gpu_preset(const std::string& name);

// Reads a GPU from a scenario: either a preset name ("H100-SXM5-80GB"), or an object that
// either names a `preset` and overrides some of its keys, or specifies every key (custom GPU).
// Returns the resolved object (all keys, the preset's values filled in).
json load_gpu(GpuParams& out, const json& value, const std::string& path);

}  // namespace trainvp
