// The reference model of the gradient-aggregation engine (models/cxl/reduce_ref.hpp) checked
// against independent arithmetic: binary32 against the host FPU (SSE, round to nearest even,
// with and without DAZ/FTZ), bfloat16 against an exact double sum rounded to bfloat16.
// The RTL test bench (rtl/tests) then checks the Verilated engine against this model.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <vector>

#if defined(__SSE2__)
#include <xmmintrin.h>
#endif

#include "models/cxl/reduce_ref.hpp"
#include "platform/core/hash.hpp"

namespace trainvp {
namespace test_reduce_ref {  // named for the file: unity builds join test files (cmake/unit_tests.cmake)

struct Rng : SplitMix64 {
  std::uint32_t u32() { return static_cast<std::uint32_t>(next() >> 32); }
  std::uint32_t below(std::uint32_t n) { return static_cast<std::uint32_t>((std::uint64_t{u32()} * n) >> 32); }
};

float as_float(std::uint32_t b) {
  float f;
  std::memcpy(&f, &b, 4);
  return f;
}
std::uint32_t as_bits(float f) {
  std::uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}
bool is_nan32(std::uint32_t b) { return (b & 0x7F800000u) == 0x7F800000u && (b & 0x7FFFFFu); }
bool is_nan16(std::uint16_t b) { return (b & 0x7F80u) == 0x7F80u && (b & 0x7Fu); }

// Operands that make an adder's hard cases common: raw bits, nearby exponents (cancellation),
// short significands at staggered exponents (ties), subnormals, the overflow range, specials.
std::uint32_t operand(Rng& r, int eb_base, int mb) {
  const std::uint32_t man = r.u32() & ((1u << mb) - 1), sign = (r.u32() & 1u) << (mb + 8);
  int e;
  switch (r.below(8)) {
    case 0: return r.u32() & static_cast<std::uint32_t>((std::uint64_t{1} << (mb + 9)) - 1);  // fp32: 32 bits
    case 1: e = static_cast<int>(r.below(3)); break;                                          // subnormal / tiny
    case 2: e = 250 + static_cast<int>(r.below(5)); break;                                    // near overflow
    case 3: {                                                                                 // ties
      e = eb_base - static_cast<int>(r.below(static_cast<std::uint32_t>(mb) + 3));
      std::uint32_t m = man & ~((1u << r.below(static_cast<std::uint32_t>(mb) + 1)) - 1);
      if (e < 0) e = 0;
      return sign | (static_cast<std::uint32_t>(e) << mb) | m;
    }
    case 4: {  // specials
      const std::uint32_t sp[] = {0u, 0xFFu << mb,    (0xFFu << mb) | 1u, (0xFFu << mb) | (1u << (mb - 1)),
                                  1u, (1u << mb) - 1, 1u << mb,           (0xFEu << mb) | ((1u << mb) - 1)};
      return sign | sp[r.below(8)];
    }
    default: e = eb_base + static_cast<int>(r.below(7)) - 3; break;  // clustered
  }
  if (e < 0) e = 0;
  if (e > 254) e = 254;
  return sign | (static_cast<std::uint32_t>(e) << mb) | man;
}

std::uint32_t host_add(std::uint32_t a, std::uint32_t b) {
  volatile float x = as_float(a), y = as_float(b);
  volatile float z = x + y;
  return as_bits(z);
}

void expect_same32(std::uint32_t got, std::uint32_t host, std::uint32_t a, std::uint32_t b, bool ftz, int& failures) {
  bool ok = is_nan32(host) ? got == kFp32CanonicalNaN : got == host;
  if (!ok && ++failures <= 10)
    ADD_FAILURE() << std::hex << "fp32_add(0x" << a << ", 0x" << b << ", ftz=" << ftz << ") = 0x" << got << ", host 0x"
                  << host;
}

TEST(ReduceRef, Fp32MatchesHostFpu) {
  Rng r{1};
  int failures = 0;
  for (int i = 0; i < 4000000; ++i) {
    int base = 1 + static_cast<int>(r.below(253));
    std::uint32_t a = operand(r, base, 23), b = operand(r, base, 23);
    expect_same32(fp32_add(a, b, false), host_add(a, b), a, b, false, failures);
    expect_same32(fp32_add(b, a, false), host_add(a, b), b, a, false, failures);  // commutative
  }
  EXPECT_EQ(failures, 0);
}

#if defined(__SSE2__)
// DAZ + FTZ on the host: subnormal operands read as signed zero, subnormal results flushed to
// zero of the result's sign, which is the model's ftz = true.
TEST(ReduceRef, Fp32FtzMatchesHostDazFtz) {
  const unsigned saved = _mm_getcsr();
  _mm_setcsr(saved | 0x8040u);  // FTZ (bit 15) | DAZ (bit 6)
  Rng r{2};
  int failures = 0;
  for (int i = 0; i < 2000000; ++i) {
    int base = 1 + static_cast<int>(r.below(6));  // mostly near the subnormal range
    if (i % 4 == 0) base = 1 + static_cast<int>(r.below(253));
    std::uint32_t a = operand(r, base, 23), b = operand(r, base, 23);
    expect_same32(fp32_add(a, b, true), host_add(a, b), a, b, true, failures);
  }
  _mm_setcsr(saved);
  EXPECT_EQ(failures, 0);
}
#endif

// bfloat16 -> double, exactly.
double bf16_to_double(std::uint16_t b) { return static_cast<double>(as_float(std::uint32_t{b} << 16)); }

// An exact (finite) double rounded once to bfloat16, nearest even, optional flush to zero.
std::uint16_t double_to_bf16(double s, bool ftz) {
  if (std::isnan(s)) return kBf16CanonicalNaN;
  const std::uint16_t sign = std::signbit(s) ? 0x8000 : 0;
  if (std::isinf(s)) return sign | 0x7F80;
  if (s == 0) return sign;
  double m = std::fabs(s);
  int e = std::ilogb(m);
  if (e < -126) e = -126;  // subnormal: fixed quantum 2^-133
  const double quantum = std::ldexp(1.0, e - 7);
  const double q = std::nearbyint(m / quantum);  // exact division; nearbyint: ties to even
  const double v = q * quantum;
  if (v >= std::ldexp(1.0, 128)) return sign | 0x7F80;
  std::uint16_t bits = static_cast<std::uint16_t>(as_bits(static_cast<float>(v)) >> 16);
  if (ftz && (bits & 0x7F80) == 0 && bits != 0) bits = 0;
  return sign | bits;
}

std::uint16_t exact_bf16_add(std::uint16_t a, std::uint16_t b, bool ftz) {
  if (is_nan16(a) || is_nan16(b)) return kBf16CanonicalNaN;
  if (ftz && (a & 0x7F80) == 0) a &= 0x8000;  // DAZ
  if (ftz && (b & 0x7F80) == 0) b &= 0x8000;
  const double da = bf16_to_double(a), db = bf16_to_double(b);
  if (std::isinf(da) || std::isinf(db)) {
    const double s = da + db;  // inf - inf: NaN
    return std::isnan(s) ? kBf16CanonicalNaN : static_cast<std::uint16_t>((std::signbit(s) ? 0x8000 : 0) | 0x7F80);
  }
  if (da != 0 && db != 0 && std::abs(std::ilogb(da) - std::ilogb(db)) > 40) {
    // Not exact in double. The smaller is below a quarter ulp of the larger (8-bit
    // significands), so the exact sum rounds to the larger, whatever its sign.
    return std::fabs(da) > std::fabs(db) ? double_to_bf16(da, ftz) : double_to_bf16(db, ftz);
  }
  return double_to_bf16(da + db, ftz);  // exact in double (at most 49 bits)
}

TEST(ReduceRef, Bf16MatchesExactSumRoundedOnce) {
  Rng r{3};
  int failures = 0;
  for (int i = 0; i < 4000000; ++i) {
    const bool ftz = (i & 1) != 0;
    int base = 1 + static_cast<int>(r.below(253));
    std::uint16_t a = static_cast<std::uint16_t>(operand(r, base, 7));
    std::uint16_t b = static_cast<std::uint16_t>(operand(r, base, 7));
    std::uint16_t got = bf16_add(a, b, ftz), want = exact_bf16_add(a, b, ftz);
    if (got != want && ++failures <= 10)
      ADD_FAILURE() << std::hex << "bf16_add(0x" << a << ", 0x" << b << ", ftz=" << ftz << ") = 0x" << got
                    << ", exact 0x" << want;
  }
  EXPECT_EQ(failures, 0);
}

// Every bf16 value against a set of partners that hit each path (zeros, subnormals, ties
// around 1, the overflow edge, infinities, NaNs).
TEST(ReduceRef, Bf16AllValuesAgainstEdgePartners) {
  const std::uint16_t partners[] = {0x0000, 0x8000, 0x0001, 0x8001, 0x007F, 0x0080, 0x8080, 0x3F80,
                                    0xBF80, 0x3B80, 0xBB80, 0x3F81, 0x7F7F, 0xFF7F, 0x7B00, 0x7F80,
                                    0xFF80, 0x7FC0, 0x7F81, 0x4380, 0xC37F, 0x0100, 0x8100};
  int failures = 0;
  for (std::uint32_t a = 0; a < 0x10000; ++a)
    for (std::uint16_t b : partners)
      for (bool ftz : {false, true}) {
        std::uint16_t x = static_cast<std::uint16_t>(a);
        std::uint16_t got = bf16_add(x, b, ftz), want = exact_bf16_add(x, b, ftz);
        if (got != want && ++failures <= 10)
          ADD_FAILURE() << std::hex << "bf16_add(0x" << x << ", 0x" << b << ", ftz=" << ftz << ") = 0x" << got
                        << ", exact 0x" << want;
      }
  EXPECT_EQ(failures, 0);
}

TEST(ReduceRef, SpecialValuePolicy) {
  // canonical NaN whatever the payload and sign; inf - inf
  EXPECT_EQ(fp32_add(0xFFC00001u, 0x3F800000u, false), kFp32CanonicalNaN);
  EXPECT_EQ(fp32_add(0x7F800001u, 0x7F800000u, false), kFp32CanonicalNaN);
  EXPECT_EQ(fp32_add(0x7F800000u, 0xFF800000u, false), kFp32CanonicalNaN);
  EXPECT_EQ(bf16_add(0xFFC1u, 0x0000u, false), kBf16CanonicalNaN);
  EXPECT_EQ(bf16_add(0xFF80u, 0x7F80u, true), kBf16CanonicalNaN);
  // signed zeros
  EXPECT_EQ(fp32_add(0x80000000u, 0x80000000u, false), 0x80000000u);
  EXPECT_EQ(fp32_add(0x80000000u, 0x00000000u, false), 0x00000000u);
  EXPECT_EQ(fp32_add(0x3F800000u, 0xBF800000u, false), 0x00000000u);
  EXPECT_EQ(bf16_add(0x8000u, 0x8000u, false), 0x8000u);
  // FTZ keeps the sign of a flushed result
  EXPECT_EQ(fp32_add(0x80800001u, 0x00800000u, true), 0x80000000u);
  EXPECT_EQ(fp32_add(0x80800001u, 0x00800000u, false), 0x80000001u);
  // overflow
  EXPECT_EQ(fp32_add(0x7F7FFFFFu, 0x73000000u, false), 0x7F800000u);
  EXPECT_EQ(bf16_add(0xFF7Fu, 0xFB00u, false), 0xFF80u);
}

TEST(ReduceRef, ReductionIsInContributorOrderFromNegativeZero) {
  Rng r{4};
  const std::size_t n = 64;
  std::vector<std::vector<std::uint32_t>> c(5, std::vector<std::uint32_t>(n));
  for (auto& v : c)
    for (auto& x : v) x = operand(r, 120, 23);
  std::vector<const std::uint32_t*> ptrs;
  for (auto& v : c) ptrs.push_back(v.data());
  for (bool ftz : {false, true}) {
    std::vector<std::uint32_t> out(n), line(n);
    reduce_fp32(ptrs, n, out.data(), ftz);
    reduce_line(DType::FP32, ptrs, n, line.data(), ftz);
    EXPECT_EQ(out, line);
    for (std::size_t i = 0; i < n; ++i) {
      std::uint32_t acc = kFp32NegZero;
      for (auto& v : c) acc = fp32_add(acc, v[i], ftz);
      EXPECT_EQ(out[i], acc);
    }
  }
  // bf16 lanes: the low half of each 32-bit lane; the high half is ignored, zero on output
  std::vector<std::vector<std::uint16_t>> h(3, std::vector<std::uint16_t>(n));
  std::vector<std::vector<std::uint32_t>> lanes(3, std::vector<std::uint32_t>(n));
  for (std::size_t k = 0; k < 3; ++k)
    for (std::size_t i = 0; i < n; ++i) {
      h[k][i] = static_cast<std::uint16_t>(operand(r, 120, 7));
      lanes[k][i] = (r.u32() & 0xFFFF0000u) | h[k][i];
    }
  std::vector<const std::uint16_t*> hp{h[0].data(), h[1].data(), h[2].data()};
  std::vector<const std::uint32_t*> lp{lanes[0].data(), lanes[1].data(), lanes[2].data()};
  std::vector<std::uint16_t> packed(n);
  std::vector<std::uint32_t> wide(n);
  reduce_bf16(hp, n, packed.data(), false);
  reduce_line(DType::BF16, lp, n, wide.data(), false);
  for (std::size_t i = 0; i < n; ++i) {
    EXPECT_EQ(wide[i], packed[i]);
    EXPECT_EQ(packed[i], bf16_add(bf16_add(bf16_add(kBf16NegZero, h[0][i], false), h[1][i], false), h[2][i], false));
  }
  // one contributor: canonicalized; none: the identity -0
  std::uint32_t nan_in = 0x7FA00001u, out1 = 0, out0 = 0;
  reduce_fp32({&nan_in}, 1, &out1, false);
  EXPECT_EQ(out1, kFp32CanonicalNaN);
  reduce_fp32({}, 1, &out0, false);
  EXPECT_EQ(out0, kFp32NegZero);
  EXPECT_THROW(reduce_line(DType::FP16, lp, n, wide.data(), false), std::invalid_argument);
}

}  // namespace test_reduce_ref
}  // namespace trainvp
