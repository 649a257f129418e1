#pragma once
// Numeric formats a workload computes and communicates in.
#include <cstdint>
#include <optional>
#include <string>

#include "platform/core/name_table.hpp"

namespace trainvp {

enum class DType { FP32, TF32, BF16, FP16, FP8 };

// Bytes per element in memory (TF32 is stored as FP32).
inline std::uint32_t dtype_bytes(DType d) {
  switch (d) {
    case DType::FP32:
    case DType::TF32: return 4;
    case DType::BF16:
    case DType::FP16: return 2;
    case DType::FP8: return 1;
  }
  return 4;
}

inline const NameTable<DType>& dtype_names() {
  static const NameTable<DType> t = {
      {"fp32", DType::FP32}, {"tf32", DType::TF32}, {"bf16", DType::BF16}, {"fp16", DType::FP16}, {"fp8", DType::FP8}};
  return t;
}

inline const char* dtype_name(DType d) { return name_in(dtype_names(), d, "fp32"); }

inline std::optional<DType> dtype_from_name(const std::string& s) { return value_in(dtype_names(), s); }

}  // namespace trainvp
