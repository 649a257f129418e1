// Integer IEEE-754 addition, written independently of the RTL's datapath: the RTL aligns to a
// 27-bit significand with guard/round/sticky; this forms the exact sum as a 64-bit integer
// times a power of two and rounds it with a general "round m * 2^q to the format" step.
#include "models/cxl/reduce_ref.hpp"

#include <stdexcept>

namespace trainvp {
namespace {

template <int EB, int MB>
struct Format {
  static constexpr int kBias = (1 << (EB - 1)) - 1;
  static constexpr std::uint64_t kExpMax = (1u << EB) - 1;  // all ones: inf / NaN
  static constexpr std::uint64_t kManMask = (std::uint64_t{1} << MB) - 1;
  static constexpr std::uint64_t kHidden = std::uint64_t{1} << MB;
  static constexpr int kSignShift = EB + MB;
  static constexpr std::uint64_t kCanonicalNaN = (kExpMax << MB) | (std::uint64_t{1} << (MB - 1));

  static std::uint64_t pack(bool neg, std::uint64_t exp_field, std::uint64_t man) {
    return (std::uint64_t{neg} << kSignShift) | (exp_field << MB) | man;
  }
};

int msb_index(std::uint64_t v) { return 63 - __builtin_clzll(v); }

// Rounds (neg ? -1 : 1) * mag * 2^q (mag > 0) to the format, nearest-even.
template <class F, int MB>
std::uint64_t round_pack(bool neg, std::uint64_t mag, int q, bool ftz) {
  constexpr int kEmin = 1 - F::kBias;          // exponent of the smallest normal
  int e = msb_index(mag) + q;                  // mag * 2^q is in [2^e, 2^(e+1))
  int lsb_exp = (e < kEmin ? kEmin : e) - MB;  // weight of the result's last bit
  int drop = lsb_exp - q;                      // low bits of mag that go
  std::uint64_t r;
  if (drop <= 0) {
    r = mag << -drop;  // exact (result has at most MB+1 bits)
  } else if (drop >= 64) {
    r = 0;  // far below half an ulp (cannot happen
  } else {  // for sums of two values; kept total)
    r = mag >> drop;
    std::uint64_t rem = mag & ((std::uint64_t{1} << drop) - 1);
    std::uint64_t half = std::uint64_t{1} << (drop - 1);
    if (rem > half || (rem == half && (r & 1))) ++r;
  }
  if (r >> (MB + 1)) {  // rounding carried to a new binade
    r >>= 1;
    ++lsb_exp;
  }
  if (r >= F::kHidden) {  // normal
    std::int64_t exp_field = std::int64_t{lsb_exp} + MB + F::kBias;
    if (exp_field >= static_cast<std::int64_t>(F::kExpMax)) return F::pack(neg, F::kExpMax, 0);
    return F::pack(neg, static_cast<std::uint64_t>(exp_field), r - F::kHidden);
  }
  if (r == 0 || ftz) return F::pack(neg, 0, 0);  // (r == 0 only from the drop >= 64 path)
  return F::pack(neg, 0, r);                     // subnormal
}

template <int EB, int MB>
std::uint64_t add_bits(std::uint64_t a, std::uint64_t b, bool ftz) {
  using F = Format<EB, MB>;
  const bool sa = (a >> F::kSignShift) & 1, sb = (b >> F::kSignShift) & 1;
  const std::uint64_t ea = (a >> MB) & F::kExpMax, eb = (b >> MB) & F::kExpMax;
  std::uint64_t ma = a & F::kManMask, mb = b & F::kManMask;

  const bool a_nan = ea == F::kExpMax && ma != 0, b_nan = eb == F::kExpMax && mb != 0;
  const bool a_inf = ea == F::kExpMax && ma == 0, b_inf = eb == F::kExpMax && mb == 0;
  if (a_nan || b_nan) return F::kCanonicalNaN;
  if (a_inf && b_inf) return sa == sb ? a : F::kCanonicalNaN;
  if (a_inf) return a;
  if (b_inf) return b;

  if (ftz && ea == 0) ma = 0;  // DAZ
  if (ftz && eb == 0) mb = 0;
  // value = sig * 2^(x - bias - MB), x = max(e, 1)
  std::uint64_t sig_a = ea ? (ma | F::kHidden) : ma, sig_b = eb ? (mb | F::kHidden) : mb;
  int xa = ea ? static_cast<int>(ea) : 1, xb = eb ? static_cast<int>(eb) : 1;

  if (sig_a == 0 && sig_b == 0) return F::pack(sa && sb, 0, 0);
  if (sig_a == 0) return round_pack<F, MB>(sb, sig_b, xb - F::kBias - MB, ftz);
  if (sig_b == 0) return round_pack<F, MB>(sa, sig_a, xa - F::kBias - MB, ftz);

  // Exact integer sum at the smaller operand's scale. The shift is capped: beyond it the smaller
  // operand is below a quarter ulp of any possible result, and a stand-in of 1 unit with its
  // sign rounds the same way as its true value.
  constexpr int kMaxShift = 62 - (MB + 1);
  bool big_is_a = xa > xb || (xa == xb && sig_a >= sig_b);
  std::uint64_t sig_l = big_is_a ? sig_a : sig_b, sig_s = big_is_a ? sig_b : sig_a;
  int x_l = big_is_a ? xa : xb, x_s = big_is_a ? xb : xa;
  bool s_l = big_is_a ? sa : sb, s_s = big_is_a ? sb : sa;
  int d = x_l - x_s;
  if (d > kMaxShift) {
    d = kMaxShift;
    sig_s = 1;
  }
  std::int64_t big = static_cast<std::int64_t>(sig_l << d);
  std::int64_t small = static_cast<std::int64_t>(sig_s);
  std::int64_t sum = (s_l ? -big : big) + (s_s ? -small : small);
  int q = (x_l - d) - F::kBias - MB;
  if (sum == 0) return F::pack(false, 0, 0);  // exact cancellation: +0 under RNE
  bool neg = sum < 0;
  return round_pack<F, MB>(neg, static_cast<std::uint64_t>(neg ? -sum : sum), q, ftz);
}

}  // namespace

std::uint32_t fp32_add(std::uint32_t a, std::uint32_t b, bool ftz) {
  return static_cast<std::uint32_t>(add_bits<8, 23>(a, b, ftz));
}

std::uint16_t bf16_add(std::uint16_t a, std::uint16_t b, bool ftz) {
  return static_cast<std::uint16_t>(add_bits<8, 7>(a, b, ftz));
}

void reduce_fp32(const std::vector<const std::uint32_t*>& in, std::size_t n, std::uint32_t* out, bool ftz) {
  for (std::size_t i = 0; i < n; ++i) {
    std::uint32_t r = kFp32NegZero;
    for (const std::uint32_t* c : in) r = fp32_add(r, c[i], ftz);
    out[i] = r;
  }
}

void reduce_bf16(const std::vector<const std::uint16_t*>& in, std::size_t n, std::uint16_t* out, bool ftz) {
  for (std::size_t i = 0; i < n; ++i) {
    std::uint16_t r = kBf16NegZero;
    for (const std::uint16_t* c : in) r = bf16_add(r, c[i], ftz);
    out[i] = r;
  }
}

void reduce_line(DType dtype, const std::vector<const std::uint32_t*>& in, std::size_t lanes, std::uint32_t* out,
                 bool ftz) {
  if (dtype == DType::FP32) {
    reduce_fp32(in, lanes, out, ftz);
  } else if (dtype == DType::BF16) {
    for (std::size_t i = 0; i < lanes; ++i) {
      std::uint16_t r = kBf16NegZero;
      for (const std::uint32_t* c : in) r = bf16_add(r, static_cast<std::uint16_t>(c[i]), ftz);
      out[i] = r;
    }
  } else {
    throw std::invalid_argument(std::string("reduce_line: dtype ") + dtype_name(dtype) +
                                " is not supported (fp32 or bf16)");
  }
}

}  // namespace trainvp
