#pragma once
// The hash the traffic objects' typed keys share (TpCollective, PipelineInput, ZeroGatherKey,
// Zero3Gather): fields packed two to a 64-bit word, which loses no bit, and the words folded by the
// project's fmix64 (platform/core/hash.hpp). Equality compares the fields, so a key of any size is
// its own; the hash only spreads them. Also what builds their collectives' labels (Label).
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "platform/core/hash.hpp"

namespace trainvp {

constexpr std::uint64_t key_word(int high, int low) {
  return (static_cast<std::uint64_t>(static_cast<std::uint32_t>(high)) << 32) | static_cast<std::uint32_t>(low);
}

constexpr std::size_t key_hash(std::uint64_t a, std::uint64_t b, std::uint64_t c = 0) {
  return static_cast<std::size_t>(fmix64(fmix64(fmix64(a) ^ b) ^ c));
}

// A collective's label ("tp it0 mb3 h5.attn fwd s2d1") built on the stack and allocated once at
// its size: the traffic objects launch hundreds of thousands per iteration, and each label stays
// in the engine's records until they are folded.
class Label {
 public:
  Label& operator<<(std::string_view s) {
    if (spilled_ || n_ + s.size() > sizeof buf_) {  // a long layer name: on the heap
      if (!spilled_) spill_.assign(buf_, n_), spilled_ = true;
      spill_.append(s);
    } else {
      std::memcpy(buf_ + n_, s.data(), s.size());
      n_ += s.size();
    }
    return *this;
  }
  Label& operator<<(int v) {
    char d[16];
    return *this << std::string_view(d, static_cast<std::size_t>(std::to_chars(d, d + sizeof d, v).ptr - d));
  }
  std::string str() { return spilled_ ? std::move(spill_) : std::string(buf_, n_); }

 private:
  char buf_[96];
  std::size_t n_ = 0;
  bool spilled_ = false;
  std::string spill_;
};

}  // namespace trainvp
