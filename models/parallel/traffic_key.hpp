#pragma once
// The hash the traffic objects' typed keys share (TpCollective, PipelineInput, ZeroGatherKey,
// Zero3Gather): fields packed two to a 64-bit word, which loses no bit, and the words folded by the
// project's fmix64 (platform/core/hash.hpp). Equality compares the fields, so a key of any size is
// its own; the hash only spreads them.
#include <cstddef>
#include <cstdint>

#include "platform/core/hash.hpp"

namespace trainvp {

constexpr std::uint64_t key_word(int high, int low) {
  return (static_cast<std::uint64_t>(static_cast<std::uint32_t>(high)) << 32) | static_cast<std::uint32_t>(low);
}

constexpr std::size_t key_hash(std::uint64_t a, std::uint64_t b, std::uint64_t c = 0) {
  return static_cast<std::size_t>(fmix64(fmix64(fmix64(a) ^ b) ^ c));
}

}  // namespace trainvp
