#pragma once
// The integer mixers the project uses, once: SplitMix64 (Steele, Lea and Flood 2014: a tiny,
// fully specified generator, identical on every platform, unlike the std:: distributions) and the
// MurmurHash3 finalizers (fmix64, fmix32: every input bit moves every output bit, which ECMP and
// open-addressing tables need), and FNV-1a for byte strings (names and documents). Changing any
// constant here moves results: the fault campaigns, the sweeps' random points and point ids, the
// named random streams, ECMP paths and the synthetic gradients all draw from these.
#include <cstdint>
#include <string_view>

namespace trainvp {

inline constexpr std::uint64_t kGoldenGamma = 0x9e3779b97f4a7c15ull;  // SplitMix64's increment
inline constexpr std::uint32_t kGoldenGamma32 = 0x9e3779b9u;          // its top half, for 32-bit states

// SplitMix64's output function of a state already advanced by kGoldenGamma.
constexpr std::uint64_t splitmix64_mix(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

// The generator: each call advances the state and returns its next value.
struct SplitMix64 {
  std::uint64_t state;
  constexpr std::uint64_t next() { return splitmix64_mix(state += kGoldenGamma); }
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }  // [0, 1)
};

constexpr std::uint64_t fmix64(std::uint64_t k) {
  k ^= k >> 33, k *= 0xff51afd7ed558ccdull, k ^= k >> 33, k *= 0xc4ceb9fe1a85ec53ull, k ^= k >> 33;
  return k;
}

constexpr std::uint32_t fmix32(std::uint32_t h) {
  h ^= h >> 16, h *= 0x85ebca6bu, h ^= h >> 13, h *= 0xc2b2ae35u, h ^= h >> 16;
  return h;
}

inline constexpr std::uint64_t kFnvOffsetBasis = 0xcbf29ce484222325ull;

// 64-bit FNV-1a of `bytes`, starting from `basis` (FNV's offset basis unless a caller folds a seed
// into its own).
constexpr std::uint64_t fnv1a64(std::string_view bytes, std::uint64_t basis = kFnvOffsetBasis) {
  std::uint64_t h = basis;
  for (unsigned char c : bytes) h = (h ^ c) * 0x100000001b3ull;
  return h;
}

}  // namespace trainvp
