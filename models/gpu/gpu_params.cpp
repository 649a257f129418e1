#include "models/gpu/gpu_params.hpp"

#include "platform/core/preset.hpp"

namespace trainvp {

double GpuParams::compute_rate(DType d) const {
  double peak = 0;
  switch (d) {
    case DType::FP32: peak = peak_fp32; break;
    case DType::TF32: peak = peak_tf32; break;
    case DType::BF16: peak = peak_bf16; break;
    case DType::FP16: peak = peak_fp16; break;
    case DType::FP8: peak = peak_fp8; break;
  }
  return peak * efficiency;
}

const ParamSet<GpuParams>& gpu_schema() {
  static const ParamSet<GpuParams> s = [] {
    ParamSet<GpuParams> p("gpu", "/cluster/node/gpu, /cluster/gpu_overrides/*/gpu",
                          "One GPU: a preset name, or an object with `preset` plus overrides, or every key below "
                          "(a custom GPU). Phase time = max(FLOPs / (peak x efficiency), bytes / (mem_bw x "
                          "mem_efficiency)) + kernels x kernel_launch, divided by speed.");
    p.nested("preset", "string", nullptr, "Preset to start from (see `trainvp describe`); keys given beside it override it")
        .text("model", &GpuParams::model, nullptr, "Name shown in reports (defaults to the preset name)")
        .flop_rate("peak_fp32", &GpuParams::peak_fp32, nullptr, "Dense FP32 peak (non-tensor)", Range::non_negative())
        .flop_rate("peak_tf32", &GpuParams::peak_tf32, nullptr, "Dense TF32 tensor peak", Range::non_negative())
        .flop_rate("peak_bf16", &GpuParams::peak_bf16, nullptr, "Dense BF16 tensor peak", Range::non_negative())
        .flop_rate("peak_fp16", &GpuParams::peak_fp16, nullptr, "Dense FP16 tensor peak", Range::non_negative())
        .flop_rate("peak_fp8", &GpuParams::peak_fp8, "0FLOPS", "Dense FP8 tensor peak; 0 = no FP8 support", Range::non_negative())
        .bandwidth("mem_bw", &GpuParams::mem_bw, nullptr, "Memory (HBM/GDDR) bandwidth")
        .size("mem_capacity", &GpuParams::mem_capacity, nullptr, "Memory capacity", Range::positive())
        .time("mem_latency", &GpuParams::mem_latency_ps, "600ns", "Latency of a DMA access into this GPU's memory (our default)")
        .bandwidth("nvlink_bw", &GpuParams::nvlink_bw, "0bps", "NVLink bandwidth per direction; 0 = no NVLink", Range::non_negative())
        .number("efficiency", &GpuParams::efficiency, 0.5, "Fraction of the tensor peak kernels reach (MFU 0.3-0.6 is typical)", Range::unit_open_closed())
        .number("mem_efficiency", &GpuParams::mem_efficiency, 0.8, "Fraction of memory bandwidth kernels reach", Range::unit_open_closed())
        .time("kernel_launch", &GpuParams::kernel_launch_ps, "4us", "Launch overhead paid per kernel (our default)")
        .number("speed", &GpuParams::speed, 1.0, "Speed factor: phase times are divided by it (0.8 = 20% slower)", Range::positive());
    for (const char* k : {"peak_fp32", "peak_tf32", "peak_bf16", "peak_fp16", "mem_bw", "mem_capacity"}) p.required(k);
    return p;
  }();
  return s;
}

const std::vector<GpuPreset>& gpu_presets() {
  // Vendor data-sheet figures, dense (no sparsity). NVLink is per direction.
  static const std::vector<GpuPreset> presets = {
      {"A100-SXM4-80GB", "NVIDIA A100 SXM4 80GB, HBM2e, NVLink 3",
       {{"peak_fp32", "19.5TFLOPS"}, {"peak_tf32", "156TFLOPS"}, {"peak_bf16", "312TFLOPS"}, {"peak_fp16", "312TFLOPS"},
        {"peak_fp8", "0FLOPS"}, {"mem_bw", "2.039TB/s"}, {"mem_capacity", "80GiB"}, {"nvlink_bw", "300GB/s"}}},
      {"H100-SXM5-80GB", "NVIDIA H100 SXM5 80GB, HBM3, NVLink 4",
       {{"peak_fp32", "67TFLOPS"}, {"peak_tf32", "494.5TFLOPS"}, {"peak_bf16", "989TFLOPS"}, {"peak_fp16", "989TFLOPS"},
        {"peak_fp8", "1979TFLOPS"}, {"mem_bw", "3.35TB/s"}, {"mem_capacity", "80GiB"}, {"nvlink_bw", "450GB/s"}}},
      {"H800-SXM", "NVIDIA H800 SXM: H100 compute, NVLink cut to 200 GB/s per direction",
       {{"peak_fp32", "67TFLOPS"}, {"peak_tf32", "494.5TFLOPS"}, {"peak_bf16", "989TFLOPS"}, {"peak_fp16", "989TFLOPS"},
        {"peak_fp8", "1979TFLOPS"}, {"mem_bw", "3.35TB/s"}, {"mem_capacity", "80GiB"}, {"nvlink_bw", "200GB/s"}}},
      {"H200", "NVIDIA H200 SXM 141GB: H100 compute, HBM3e",
       {{"peak_fp32", "67TFLOPS"}, {"peak_tf32", "494.5TFLOPS"}, {"peak_bf16", "989TFLOPS"}, {"peak_fp16", "989TFLOPS"},
        {"peak_fp8", "1979TFLOPS"}, {"mem_bw", "4.8TB/s"}, {"mem_capacity", "141GB"}, {"nvlink_bw", "450GB/s"}}},
      {"RTX-A6000", "NVIDIA RTX A6000 48GB GDDR6, PCIe Gen4, no NVSwitch",
       {{"peak_fp32", "38.7TFLOPS"}, {"peak_tf32", "77.4TFLOPS"}, {"peak_bf16", "154.8TFLOPS"}, {"peak_fp16", "154.8TFLOPS"},
        {"peak_fp8", "0FLOPS"}, {"mem_bw", "768GB/s"}, {"mem_capacity", "48GiB"}, {"nvlink_bw", "0bps"}}},
  };
  return presets;
}

const GpuPreset* find_gpu_preset(const std::string& name) {
  for (auto& p : gpu_presets())
    if (p.name == name) return &p;
  return nullptr;
}

json load_gpu(GpuParams& out, const json& value, const std::string& path) {
  return load_from_preset(gpu_schema(), out, value, path, gpu_presets(), "GPU");
}

}  // namespace trainvp
