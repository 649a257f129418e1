#pragma once
// Numeric formats a workload computes and communicates in.
#include <cstdint>
#include <optional>
#include <string>

namespace trainvp {

enum class DType { FP32, TF32, BF16, FP16, FP8 };

// Bytes per element in memory (TF32 is stored as FP32).
inline std::uint32_t dtype_bytes(DType d) {
  switch (d) {
    case DType::FP32: case DType::TF32: return 4;
    case DType::BF16: case DType::FP16: return 2;
    case DType::FP8: return 1;
  }
  return 4;
}

inline const char* dtype_name(DType d) {
  switch (d) {
    case DType::FP32: return "fp32";
    case DType::TF32: return "tf32";
    case DType::BF16: return "bf16";
    case DType::FP16: return "fp16";
    case DType::FP8: return "fp8";
  }
  return "fp32";
}

inline std::optional<DType> dtype_from_name(const std::string& s) {
  if (s == "fp32") return DType::FP32;
  if (s == "tf32") return DType::TF32;
  if (s == "bf16") return DType::BF16;
  if (s == "fp16") return DType::FP16;
  if (s == "fp8") return DType::FP8;
  return std::nullopt;
}

}  // namespace trainvp
