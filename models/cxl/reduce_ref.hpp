#pragma once
// Bit-exact reference of the gradient-aggregation engine's arithmetic (rtl/grad_reduce.sv):
// IEEE-754 addition of binary32 and bfloat16 values in integer arithmetic, and the reduction of
// one line in the engine's order. The platform's functional mode computes reductions with it;
// the RTL test bench (rtl/tests) checks the Verilated engine against it bit for bit.
//
// Arithmetic (identical in the RTL, docs/rtl.md "Numerics"):
//  - round to nearest, ties to even; overflow rounds to +-infinity;
//  - bf16 + bf16 is rounded once, to bf16 (never through an fp32 rounding);
//  - a NaN operand or inf + -inf gives the canonical quiet NaN (kFp32CanonicalNaN /
//    kBf16CanonicalNaN), whatever the payloads and signs;
//  - an exact zero sum is +0, except (-0) + (-0) = -0;
//  - ftz = true: subnormal operands read as zero of their sign (DAZ) and a subnormal result is
//    returned as zero of its sign (FTZ); ftz = false: gradual underflow.
//
// Reduction order: r = ((((-0 + c[0]) + c[1]) + ...) + c[n-1]), contributors in id order, so the
// result never depends on the order in which the contributions arrived; a single contribution
// comes out canonicalized like any sum (NaN made canonical, FTZ applied).
#include <cstddef>
#include <cstdint>
#include <vector>

#include "models/workload/dtype.hpp"

namespace trainvp {

constexpr std::uint32_t kFp32CanonicalNaN = 0x7FC00000u;
constexpr std::uint16_t kBf16CanonicalNaN = 0x7FC0u;
constexpr std::uint32_t kFp32NegZero = 0x80000000u;
constexpr std::uint16_t kBf16NegZero = 0x8000u;

// a + b on binary32 bit patterns.
std::uint32_t fp32_add(std::uint32_t a, std::uint32_t b, bool ftz);
// a + b on bfloat16 bit patterns, rounded once to bfloat16.
std::uint16_t bf16_add(std::uint16_t a, std::uint16_t b, bool ftz);

// Element-wise reductions of n elements in contributor order (see above) into out.
// out may alias no input.
void reduce_fp32(const std::vector<const std::uint32_t*>& contributors_in_order, std::size_t n, std::uint32_t* out,
                 bool ftz);
void reduce_bf16(const std::vector<const std::uint16_t*>& contributors_in_order, std::size_t n, std::uint16_t* out,
                 bool ftz);

// One line in the engine's lane format: `lanes` 32-bit lanes per contributor; FP32 uses the
// whole lane, BF16 its low 16 bits (the high 16 are ignored on input and zero on output).
// dtype must be DType::FP32 or DType::BF16 (std::invalid_argument otherwise).
void reduce_line(DType dtype, const std::vector<const std::uint32_t*>& contributors_in_order, std::size_t lanes,
                 std::uint32_t* out, bool ftz);

}  // namespace trainvp
