// Overflow-checked integer arithmetic for sizes derived from scenario values (docs/reliability.md,
// "Integer overflow"): a product or sum that does not fit is reported, never wrapped.
#pragma once

#include <cstdint>
#include <optional>

namespace trainvp {

// a * b, or nullopt when it does not fit in T.
template <typename T>
std::optional<T> checked_mul(T a, T b) {
  T out;
  if (__builtin_mul_overflow(a, b, &out)) return std::nullopt;
  return out;
}

// a + b, or nullopt when it does not fit in T.
template <typename T>
std::optional<T> checked_add(T a, T b) {
  T out;
  if (__builtin_add_overflow(a, b, &out)) return std::nullopt;
  return out;
}

}  // namespace trainvp
