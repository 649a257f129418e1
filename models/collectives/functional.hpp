#pragma once
// Functional mode for training (docs/cxl.md): every rank's gradients are deterministic synthetic
// values of (seed, iteration, rank, layer, element). The collective engine puts them into the
// chunks a GPU sends (fill), the CXL devices reduce what arrives, and every GPU checks what it
// receives (check) against a reference sum computed here directly from the generator, in the
// engine's documented order (docs/rtl.md, "Numerics"; docs/cxl.md for the algorithms' order).
#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "models/collectives/program.hpp"
#include "models/workload/dtype.hpp"

namespace trainvp {

// What a collective's buffer holds: layers' gradients one after another.
struct BufferLayout {
  int iteration = 0;
  std::string what;                                   // "bucket 3", for messages
  std::vector<std::pair<int, std::uint64_t>> layers;  // (layer index, bytes), in buffer order
  std::uint64_t bytes() const;
};

// A gradient value: fp32 bits, or a bfloat16 in the low 16 bits. Spread over a few binades
// around 1e-3 with both signs, as gradients are.
std::uint32_t synthetic_gradient(std::uint64_t seed, int iteration, int rank, int layer, std::uint64_t element,
                                 bool bf16);

class FunctionalData {
 public:
  // `comm`: the collectives' ranks in communicator order; `nodes_of[r]`: rank r's node;
  // `chunk`: the segment size of the cxl programs; `layer_names` for messages.
  FunctionalData(std::uint64_t seed, DType dtype, bool ftz, CollectiveAlgo algo, std::vector<int> comm,
                 std::vector<int> nodes_of, std::uint64_t chunk, std::vector<std::string> layer_names);

  // Writes transfer bytes [o, o + n) of `d`, from rank's gradients, to out.
  void fill(const BufferLayout& l, int rank, const DataRange& d, std::uint64_t o, std::uint64_t n,
            unsigned char* out) const;
  // Checks transfer bytes [o, o + n) of `d` that `gpu` received; on the first mismatch
  // records failure() and returns false.
  bool check(const BufferLayout& l, const std::string& gpu, const DataRange& d, std::uint64_t o, std::uint64_t n,
             const unsigned char* in);
  // The reduced value every rank must receive for element e of the buffer.
  std::uint32_t reference(const BufferLayout& l, std::uint64_t e) const;

  std::uint64_t elements_checked() const { return checked_; }
  const std::string& failure() const { return failure_; }

 private:
  std::uint32_t add(std::uint32_t a, std::uint32_t b) const;
  std::uint32_t value(const BufferLayout& l, int rank, std::uint64_t e) const;
  std::pair<int, std::uint64_t> locate(const BufferLayout& l, std::uint64_t e) const;  // (layer index, element in it)

  std::uint64_t seed_;
  bool bf16_, ftz_;
  std::uint32_t esize_;
  CollectiveAlgo algo_;
  std::vector<int> comm_;
  std::vector<std::vector<int>> node_ranks_;  // per node in communicator order: its ranks in order
  std::uint64_t chunk_;
  std::vector<std::string> layer_names_;
  // Reference values of a piece, computed once for all the ranks that receive it.
  struct Cached {
    std::vector<std::uint32_t> values;
    std::size_t uses_left;
  };
  std::map<std::tuple<const BufferLayout*, std::uint64_t, std::uint64_t>, Cached> cache_;
  std::uint64_t checked_ = 0;
  std::string failure_;
};

}  // namespace trainvp
