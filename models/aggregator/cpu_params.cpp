#include "models/aggregator/cpu_params.hpp"

#include <algorithm>
#include <cmath>

#include "platform/core/preset.hpp"

namespace trainvp {

double CpuParams::adds_per_s(int elem_bytes) const {
  const double lanes = static_cast<double>(simd_bits) / (8.0 * elem_bytes);
  return static_cast<double>(cores) * lanes * simd_adds_per_cycle * clock_hz;
}

std::int64_t cpu_reduce_ps(const CpuParams& c, std::uint64_t bytes, int contributors, int elem_bytes) {
  const double n = static_cast<double>(bytes), k = static_cast<double>(contributors);
  const double compute_s = (k - 1) * n / elem_bytes / c.adds_per_s(elem_bytes);
  const double memory_s = (k + 1) * n / c.mem_bytes_per_s();
  return c.job_latency_ps + static_cast<std::int64_t>(std::llround(std::max(compute_s, memory_s) * 1e12));
}

const ParamSet<CpuParams>& cpu_schema() {
  static const ParamSet<CpuParams> s = [] {
    ParamSet<CpuParams> p("cpu", "/cluster/aggregators/cpu",
                          "An aggregator node's CPU: a preset name, or an object with `preset` plus overrides, or "
                          "every key below. Sums gradients at the roofline of its SIMD adds and DRAM bandwidth "
                          "(docs/aggregators.md).");
    p.nested("preset", "string", nullptr,
             "Preset to start from (see `trainvp describe`); keys given beside it override it")
        .text("model", &CpuParams::model, nullptr, "Name shown in reports (defaults to the preset name)")
        .integer("cores", &CpuParams::cores, nullptr, "Cores summing in parallel", {1, 4096})
        .integer("simd_bits", &CpuParams::simd_bits, nullptr,
                 "Vector register width in bits (128 SSE/NEON, 256 AVX2, 512 AVX-512)", {64, 4096})
        .integer("simd_adds_per_cycle", &CpuParams::simd_adds_per_cycle, nullptr,
                 "Vector floating-point adds a core issues per cycle (its FP add or FMA pipes)", {1, 16})
        .frequency("clock", &CpuParams::clock_hz, nullptr, "Sustained all-core clock while summing")
        .bandwidth("mem_bw", &CpuParams::mem_bw, nullptr, "Peak DRAM bandwidth (channels x transfer rate x 8 bytes)")
        .number("mem_efficiency", &CpuParams::mem_efficiency, 0.8,
                "Fraction of mem_bw a streaming sum reaches (the GPU model's default)", Range::unit_open_closed())
        .time("job_latency", &CpuParams::job_latency_ps, "2us",
              "Fixed cost of each reduction: handing it to the summing threads and joining them (our default)")
        .required("cores")
        .required("simd_bits")
        .required("simd_adds_per_cycle")
        .required("clock")
        .required("mem_bw");
    return p;
  }();
  return s;
}

const std::vector<CpuPreset>& cpu_presets() {
  // Vendor product pages (docs/aggregators.md#presets): base clocks, 8 channels of DDR4-3200
  // (8 x 3200 MT/s x 8 B = 204.8 GB/s).
  static const std::vector<CpuPreset> presets = {
      {"xeon-8380",
       "Intel Xeon Platinum 8380 (Ice Lake-SP): 40 cores, 2.3 GHz, AVX-512 (2 FMA units), 8 x DDR4-3200",
       {{"cores", 40}, {"simd_bits", 512}, {"simd_adds_per_cycle", 2}, {"clock", "2.3GHz"}, {"mem_bw", "204.8GB/s"}}},
      {"epyc-7763",
       "AMD EPYC 7763 (Milan, Zen 3): 64 cores, 2.45 GHz, AVX2 (2 FP add pipes), 8 x DDR4-3200",
       {{"cores", 64}, {"simd_bits", 256}, {"simd_adds_per_cycle", 2}, {"clock", "2.45GHz"}, {"mem_bw", "204.8GB/s"}}},
  };
  return presets;
}

json load_cpu(CpuParams& out, const json& value, const std::string& path) {
  return load_from_preset(cpu_schema(), out, value, path, cpu_presets(), "CPU");
}

const ParamSet<AggregatorParams>& aggregators_schema() {
  static const ParamSet<AggregatorParams> s = [] {
    ParamSet<AggregatorParams> p("aggregators", "/cluster/aggregators",
                                 "CPU aggregator nodes without GPUs on the same network (BytePS's servers): the `ps` "
                                 "algorithm pushes part k of every GPU's buffer to aggregator k, which sums it and "
                                 "sends it back (docs/aggregators.md).");
    p.integer("count", &AggregatorParams::count, 0, "Aggregator nodes (named aggA)", {0, 1024})
        .nested("cpu", "string or object", "xeon-8380", "Their CPU: a preset name or a `cpu` object")
        .integer("nics", &AggregatorParams::nics, 1,
                 "RoCE NICs per aggregator; each reaches the CPU's memory over PCIe", {1, 16})
        .bandwidth("nic_bw", &AggregatorParams::nic_bw, "0bps", "Line rate of each NIC; 0: the fabric's link rate",
                   Range::non_negative());
    return p;
  }();
  return s;
}

}  // namespace trainvp
