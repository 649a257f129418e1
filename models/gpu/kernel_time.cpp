#include "models/gpu/kernel_time.hpp"

#include <algorithm>
#include <array>
#include <cmath>

namespace trainvp {

const std::vector<GemmTile>& gemm_tiles() {
  // 256 x 128 and 128 x 256 are cuBLAS's most efficient tiles, 64 x 64 its least (NVIDIA, Matrix
  // Multiplication Background User's Guide); the relative rates were fitted to the Azure
  // AI-benchmarking-guide's cuBLASLt FP16 sweep on A100-SXM4-80GB (docs/models.md#kernels).
  static const std::vector<GemmTile> t = {{256, 128, 1.0}, {128, 256, 1.0}, {128, 128, 0.95}, {64, 64, 0.4}};
  return t;
}

double flash_attention_shape_factor(double keys, double head_dim, bool causal) {
  // FlashAttention-2 forward + backward TFLOP/s on A100 80GB SXM4 at 512, 1k, 2k, 4k, 8k, 16k
  // keys (Dao-AILab/flash-attention, assets/flash2_a100_fwd_bwd_benchmark.png), over its 203 at
  // 16k, head width 128, no mask.
  static constexpr std::array<double, 6> kHd64 = {132, 153, 162, 171, 175, 176};
  static constexpr std::array<double, 6> kHd128 = {151, 173, 187, 196, 201, 203};
  static constexpr std::array<double, 6> kHd64Causal = {88, 119, 140, 156, 165, 171};
  static constexpr std::array<double, 6> kHd128Causal = {99, 133, 155, 173, 182, 189};
  const auto& lo = causal ? kHd64Causal : kHd64;
  const auto& hi = causal ? kHd128Causal : kHd128;
  const double x = std::clamp(std::log2(std::max(keys, 1.0) / 512.0), 0.0, 5.0);
  const auto at = [x](const std::array<double, 6>& row) {
    const int i = std::min(4, static_cast<int>(x));
    return row[static_cast<std::size_t>(i)] +
           (x - i) * (row[static_cast<std::size_t>(i) + 1] - row[static_cast<std::size_t>(i)]);
  };
  const double w = std::clamp((head_dim - 64.0) / 64.0, 0.0, 1.0);
  return ((1 - w) * at(lo) + w * at(hi)) / 203.0;
}

namespace {

// Whole waves of `blocks` thread blocks, one per SM at a time, over the blocks as if spread evenly.
double wave_fill(double blocks, int sms) {
  if (blocks <= 0) return 1;
  return blocks / (std::ceil(blocks / sms) * sms);
}

double gemm_seconds(const GpuParams& gpu, double peak, const Kernel& k) {
  const double per_sm = peak * gpu.gemm_efficiency / gpu.sms;
  double best = -1;
  for (const GemmTile& t : gemm_tiles()) {
    const double tiles = std::ceil(k.m / t.rows) * std::ceil(k.n / t.cols) * k.count;
    const double waves = std::ceil(tiles / gpu.sms);
    const double s = waves * 2.0 * t.rows * t.cols * (k.k + kGemmKOverhead) / (per_sm * t.efficiency);
    if (best < 0 || s < best) best = s;
  }
  return best;
}

double attention_seconds(const GpuParams& gpu, double peak, const Kernel& k) {
  // FlashAttention-2 gives each thread block 128 queries of one head of one sample.
  const double blocks = std::ceil(k.m / 128.0) * k.count;
  const double rate =
      peak * gpu.attention_efficiency * flash_attention_shape_factor(k.n, k.k, k.causal) * wave_fill(blocks, gpu.sms);
  return k.flops() / rate;
}

}  // namespace

double kernel_seconds(const GpuParams& gpu, DType dtype, const Kernel& k) {
  const double tail = static_cast<double>(gpu.kernel_tail_ps) * 1e-12;
  const double peak = gpu.compute_peak(dtype);
  switch (k.kind) {
    case Kernel::Kind::Gemm:
      if (k.m <= 0 || k.n <= 0 || k.k <= 0 || k.count <= 0) return tail;
      return gemm_seconds(gpu, peak, k) + tail;
    case Kernel::Kind::Attention:
      if (k.flops() <= 0) return tail;
      return attention_seconds(gpu, peak, k) + tail;
    case Kernel::Kind::Memory: return k.bytes / gpu.mem_bytes_per_s() + tail;
  }
  return tail;
}

double kernel_efficiency(const GpuParams& gpu, DType dtype, const Kernel& k) {
  const double peak = gpu.compute_peak(dtype);
  if (k.kind == Kernel::Kind::Memory || peak <= 0) return 0;
  // Attention's FLOPs as the model counts them: the causal half skipped is not work done.
  return k.flops() / (kernel_seconds(gpu, dtype, k) * peak);
}

}  // namespace trainvp
