#pragma once
// How the modelled workload's layers map onto the real model: the real flat parameter vector is
// cut, in order, into one slice per modelled layer, each proportional to that layer's parameter
// count (a layer without parameters gets an empty slice). "Synchronize layer w of GPT-2" then
// means "synchronize slice w of the MLP's values".
#include <cstddef>
#include <cstdint>
#include <vector>

namespace trainvp {

struct Slice {
  std::size_t begin = 0, end = 0;
  std::size_t size() const { return end - begin; }
};

// Slice k is [floor(n C_k / T), floor(n C_(k+1) / T)) with C_k the parameters of layers before k and
// T all of them; every value of the n belongs to exactly one slice. All weights 0: one empty slice each.
std::vector<Slice> proportional_slices(const std::vector<std::uint64_t>& weights, std::size_t n);

}  // namespace trainvp
