#include "models/train/slices.hpp"

namespace trainvp {

std::vector<Slice> proportional_slices(const std::vector<std::uint64_t>& weights, std::size_t n) {
  unsigned __int128 total = 0;
  for (std::uint64_t w : weights) total += w;
  std::vector<Slice> out;
  unsigned __int128 before = 0;
  auto cut = [&](unsigned __int128 c) { return total == 0 ? 0 : static_cast<std::size_t>(c * n / total); };
  for (std::uint64_t w : weights) {
    out.push_back({cut(before), cut(before + w)});
    before += w;
  }
  return out;
}

}  // namespace trainvp
