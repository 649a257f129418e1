#include "models/workload/kernel.hpp"

#include <cmath>

namespace trainvp {

double Kernel::flops() const {
  switch (kind) {
    case Kind::Gemm: return 2.0 * m * n * k * count;
    case Kind::Attention: {
      const double fwd = 4.0 * m * n * k * count * (causal ? 0.5 : 1.0);
      return backward ? 2.5 * fwd : fwd;
    }
    case Kind::Memory: return 0;
  }
  return 0;
}

Kernel tp_shard(const Kernel& k, int t, bool sequence_parallel) {
  if (t <= 1) return k;
  const double td = t;
  Kernel s = k;
  switch (k.split) {
    // A shard is padded up, as Megatron pads a vocabulary that does not divide.
    case Kernel::Split::M: s.m = std::ceil(k.m / td), s.bytes = k.bytes / td; break;
    case Kernel::Split::N: s.n = std::ceil(k.n / td), s.bytes = k.bytes / td; break;
    case Kernel::Split::K: s.k = std::ceil(k.k / td), s.bytes = k.bytes / td; break;
    case Kernel::Split::Heads: s.count = std::ceil(k.count / td), s.bytes = k.bytes / td; break;
    case Kernel::Split::Bytes: s.bytes = k.bytes / td; break;
    case Kernel::Split::Replicated:
      if (sequence_parallel) {
        s.bytes = k.bytes / td;
        if (k.kind == Kernel::Kind::Gemm) s.m = std::ceil(k.m / td);
      }
      break;
  }
  return s;
}

}  // namespace trainvp
