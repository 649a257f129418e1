#include "models/gpu/gpu_params.hpp"

#include "platform/core/preset.hpp"

namespace trainvp {

double GpuParams::compute_peak(DType d) const {
  switch (d) {
    case DType::FP32: return peak_fp32;
    case DType::TF32: return peak_tf32;
    case DType::BF16: return peak_bf16;
    case DType::FP16: return peak_fp16;
    case DType::FP8: return peak_fp8;
  }
  return 0;
}

const NameTable<KernelModel>& kernel_model_names() {
  static const NameTable<KernelModel> t = {{"shapes", KernelModel::Shapes}, {"roofline", KernelModel::Roofline}};
  return t;
}

const ParamSet<GpuParams>& gpu_schema() {
  static const ParamSet<GpuParams> s = [] {
    ParamSet<GpuParams> p("gpu", "/cluster/node/gpu, /cluster/gpu_overrides/*/gpu",
                          "One GPU: a preset name, or an object with `preset` plus overrides, or every key below "
                          "(a custom GPU). A phase whose kernels have shapes (zoo and Hugging Face models) takes "
                          "the sum of its kernels' times (kernel_model, docs/models.md#kernels); any other takes "
                          "max(FLOPs / (peak x efficiency), bytes / (mem_bw x mem_efficiency)) + kernels x "
                          "kernel_launch. Either is divided by speed.");
    p.nested("preset", "string", nullptr,
             "Preset to start from (see `trainvp describe`); keys given beside it override it")
        .text("model", &GpuParams::model, nullptr, "Name shown in reports (defaults to the preset name)")
        .flop_rate("peak_fp32", &GpuParams::peak_fp32, nullptr, "Dense FP32 peak (non-tensor)", Range::non_negative())
        .flop_rate("peak_tf32", &GpuParams::peak_tf32, nullptr, "Dense TF32 tensor peak", Range::non_negative())
        .flop_rate("peak_bf16", &GpuParams::peak_bf16, nullptr, "Dense BF16 tensor peak", Range::non_negative())
        .flop_rate("peak_fp16", &GpuParams::peak_fp16, nullptr, "Dense FP16 tensor peak", Range::non_negative())
        .flop_rate("peak_fp8", &GpuParams::peak_fp8, "0FLOPS", "Dense FP8 tensor peak; 0 = no FP8 support",
                   Range::non_negative())
        .bandwidth("mem_bw", &GpuParams::mem_bw, nullptr, "Memory (HBM/GDDR) bandwidth")
        .size("mem_capacity", &GpuParams::mem_capacity, nullptr, "Memory capacity", Range::positive())
        .time("mem_latency", &GpuParams::mem_latency_ps, "600ns",
              "Latency of a DMA access into this GPU's memory (our default)")
        .bandwidth("nvlink_bw", &GpuParams::nvlink_bw, "0bps", "NVLink bandwidth per direction; 0 = no NVLink",
                   Range::non_negative())
        .number(
            "efficiency", &GpuParams::efficiency, 0.5,
            "Roofline: fraction of the tensor peak the kernels of a phase without shapes reach (our default; MFU 0.3-0.6 is typical)",
            Range::unit_open_closed())
        .number(
            "mem_efficiency", &GpuParams::mem_efficiency, 0.8,
            "Fraction of memory bandwidth kernels reach (presets: STREAM Triad over the data sheet; else our default)",
            Range::unit_open_closed())
        .time("kernel_launch", &GpuParams::kernel_launch_ps, "4us",
              "Roofline: launch overhead paid per kernel (our default)")
        .number("speed", &GpuParams::speed, 1.0, "Speed factor: phase times are divided by it (0.8 = 20% slower)",
                Range::positive())
        .choice(
            "kernel_model", &GpuParams::kernel_model, "shapes", kernel_model_names(),
            "shapes: a phase whose kernels have shapes takes the sum of their times by the kernel model; roofline: every "
            "phase by the roofline at `efficiency` (the closed-form tests' model)")
        .integer("sms", &GpuParams::sms, 0,
                 "Streaming multiprocessors (data sheet); 0: no kernel model, every phase by the roofline",
                 Range::non_negative())
        .number("gemm_efficiency", &GpuParams::gemm_efficiency, 0.8,
                "Kernel model: fraction of the tensor peak a large GEMM's tiles reach (presets: from published GEMM "
                "microbenchmarks; else our default)",
                Range::unit_open_closed())
        .number(
            "attention_efficiency", &GpuParams::attention_efficiency, 0.5,
            "Kernel model: fraction of the tensor peak fused attention reaches at 16k keys, head width 128, no mask "
            "(presets: FlashAttention-2's measured rate; else our default)",
            Range::unit_open_closed())
        .time(
            "kernel_tail", &GpuParams::kernel_tail_ps, "2us",
            "Kernel model: GPU time between back-to-back kernels (fitted with the GEMM tiles to cuBLASLt's A100 sweep)");
    for (const char* k : {"peak_fp32", "peak_tf32", "peak_bf16", "peak_fp16", "mem_bw", "mem_capacity"}) p.required(k);
    return p;
  }();
  return s;
}

const std::vector<GpuPreset>& gpu_presets() {
  static const std::vector<GpuPreset> presets = [] {
    // Vendor data-sheet figures, dense (no sparsity). NVLink is per direction. H800 and H200 are
    // H100 with the keys they change (a null drops a key: the schema's default then).
    const json h100 = {{"peak_fp32", "67TFLOPS"},  {"peak_tf32", "494.5TFLOPS"},    {"peak_bf16", "989TFLOPS"},
                       {"peak_fp16", "989TFLOPS"}, {"peak_fp8", "1979TFLOPS"},      {"mem_bw", "3.35TB/s"},
                       {"mem_capacity", "80GiB"},  {"nvlink_bw", "450GB/s"},        {"sms", 132},
                       {"gemm_efficiency", 0.776}, {"attention_efficiency", 0.342}, {"mem_efficiency", 0.887}};
    auto with = [](json v, const json& changes) {
      for (const auto& [k, x] : changes.items()) x.is_null() ? (void)v.erase(k) : (void)(v[k] = x);
      return v;
    };
    return std::vector<GpuPreset>{
        // Kernel model (docs/models.md#kernels), A100: 108 SMs (NVIDIA, Matrix Multiplication Background
        // User's Guide); gemm_efficiency fitted with the tile model to cuBLASLt FP16 on A100-SXM4-80GB
        // (Azure/AI-benchmarking-guide: 256.5 TFLOP/s at 16384^3); attention_efficiency FlashAttention-2's
        // 203 TFLOP/s (forward + backward, 16k, head width 128; Dao 2023) over 312; mem_efficiency
        // STREAM Triad's 1.70 TB/s over 2.039 (Azure/AI-benchmarking-guide, ND A100 v4).
        {"A100-SXM4-80GB",
         "NVIDIA A100 SXM4 80GB, HBM2e, NVLink 3",
         {{"peak_fp32", "19.5TFLOPS"},
          {"peak_tf32", "156TFLOPS"},
          {"peak_bf16", "312TFLOPS"},
          {"peak_fp16", "312TFLOPS"},
          {"peak_fp8", "0FLOPS"},
          {"mem_bw", "2.039TB/s"},
          {"mem_capacity", "80GiB"},
          {"nvlink_bw", "300GB/s"},
          {"sms", 108},
          {"gemm_efficiency", 0.84},
          {"attention_efficiency", 0.651},
          {"mem_efficiency", 0.834}}},
        // H100 SXM5: 132 SMs (chipsandcheese, "Nvidia's H100: Funny L2, and Tons of Bandwidth"); no
        // per-shape BF16 sweep is published, so gemm_efficiency is A100's 0.84 scaled by the two GPUs'
        // maximum achievable BF16 matmul rates (stas00/ml-engineering: 794.5 of 989 against 271.2 of
        // 312, 0.803 / 0.869); attention_efficiency FlashAttention-2's 338 TFLOP/s on H100 (16k, head
        // width 128) over 989; mem_efficiency STREAM Triad's 2.97 TB/s over 3.35 (ND H100 v5).
        {"H100-SXM5-80GB", "NVIDIA H100 SXM5 80GB, HBM3, NVLink 4", h100},
        {"H800-SXM", "NVIDIA H800 SXM: H100 compute, NVLink cut to 200 GB/s per direction",
         with(h100, {{"nvlink_bw", "200GB/s"}})},
        // H200: H100's compute ("H200 is the same" in stas00/ml-engineering's matmul table); no
        // published STREAM measurement of its HBM3e, so mem_efficiency stays our default.
        {"H200", "NVIDIA H200 SXM 141GB: H100 compute, HBM3e",
         with(h100, {{"mem_bw", "4.8TB/s"}, {"mem_capacity", "141GB"}, {"mem_efficiency", nullptr}})},
        // No published GEMM or attention microbenchmark found: no kernel model (sms 0), the roofline.
        {"RTX-A6000",
         "NVIDIA RTX A6000 48GB GDDR6, PCIe Gen4, no NVSwitch",
         {{"peak_fp32", "38.7TFLOPS"},
          {"peak_tf32", "77.4TFLOPS"},
          {"peak_bf16", "154.8TFLOPS"},
          {"peak_fp16", "154.8TFLOPS"},
          {"peak_fp8", "0FLOPS"},
          {"mem_bw", "768GB/s"},
          {"mem_capacity", "48GiB"},
          {"nvlink_bw", "0bps"}}},
    };
  }();
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
