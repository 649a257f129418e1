#include "models/collectives/functional.hpp"

#include <cstdio>
#include <cstring>

#include "models/cxl/reduce_ref.hpp"
#include "platform/core/hash.hpp"

namespace trainvp {

std::uint64_t BufferLayout::bytes() const {
  std::uint64_t n = 0;
  for (auto& l : layers) n += l.second;
  return n;
}

std::uint32_t synthetic_gradient(std::uint64_t seed, int iteration, int rank, int layer, std::uint64_t element,
                                 bool bf16) {
  std::uint64_t z = splitmix64_mix(seed + kGoldenGamma);
  z = splitmix64_mix(z ^ static_cast<std::uint64_t>(iteration));
  z = splitmix64_mix(z ^ static_cast<std::uint64_t>(rank));
  z = splitmix64_mix(z ^ static_cast<std::uint64_t>(layer));
  z = splitmix64_mix(z ^ element);
  const std::uint32_t sign = static_cast<std::uint32_t>(z >> 63) << 31;
  const std::uint32_t exponent = 117 + static_cast<std::uint32_t>((z >> 40) % 8);  // 2^-10 .. 2^-3
  const std::uint32_t bits = sign | (exponent << 23) | static_cast<std::uint32_t>(z & 0x7FFFFF);
  return bf16 ? bits >> 16 : bits;
}

FunctionalData::FunctionalData(std::uint64_t seed, DType dtype, bool ftz, CollectiveAlgo algo, std::vector<int> comm,
                               std::vector<int> nodes_of, std::uint64_t chunk, std::vector<std::string> layer_names)
    : seed_(seed),
      bf16_(dtype == DType::BF16),
      ftz_(ftz),
      esize_(dtype_bytes(dtype)),
      algo_(algo),
      comm_(std::move(comm)),
      chunk_(chunk),
      layer_names_(std::move(layer_names)) {
  std::map<int, std::size_t> index;
  for (int r : comm_) {
    const int node = nodes_of.at(static_cast<std::size_t>(r));
    if (!index.count(node)) index[node] = node_ranks_.size(), node_ranks_.emplace_back();
    node_ranks_[index[node]].push_back(r);
  }
}

std::uint32_t FunctionalData::add(std::uint32_t a, std::uint32_t b) const {
  return bf16_ ? bf16_add(static_cast<std::uint16_t>(a), static_cast<std::uint16_t>(b), ftz_) : fp32_add(a, b, ftz_);
}

std::pair<int, std::uint64_t> FunctionalData::locate(const BufferLayout& l, std::uint64_t e) const {
  std::uint64_t first = 0;
  for (auto& [layer, bytes] : l.layers) {
    const std::uint64_t n = bytes / esize_;
    if (e < first + n) return {layer, e - first};
    first += n;
  }
  return {-1, e};
}

std::uint32_t FunctionalData::value(const BufferLayout& l, int rank, std::uint64_t e) const {
  const auto [layer, i] = locate(l, e);
  return synthetic_gradient(seed_, l.iteration, rank, layer, i, bf16_);
}

std::uint32_t FunctionalData::reference(const BufferLayout& l, std::uint64_t e) const {
  // One engine job: -0, then each contributor in contributor order.
  auto job = [&](const std::vector<std::uint32_t>& in) {
    std::uint32_t r = bf16_ ? kBf16NegZero : kFp32NegZero;
    for (std::uint32_t v : in) r = add(r, v);
    return r;
  };
  auto node_sum = [&](const std::vector<int>& ranks) {
    std::vector<std::uint32_t> in;
    for (int r : ranks) in.push_back(value(l, r, e));
    return job(in);
  };
  if (algo_ == CollectiveAlgo::CxlAllReduce) return node_sum(comm_);
  // cxl_hierarchical: each node's device sums its GPUs; part k of a segment is then summed along
  // the ring from device k, the arriving partial first (contributor 0), the device's own second.
  const int nodes = static_cast<int>(node_ranks_.size());
  const std::uint64_t a = e * esize_, off = a / chunk_ * chunk_, b = std::min(chunk_, l.bytes() - off);
  int k = 0;
  while (k + 1 < nodes && a - off >= element_part(b, nodes, k + 1).first) ++k;
  std::uint32_t p = node_sum(node_ranks_[static_cast<std::size_t>(k)]);
  for (int j = 1; j < nodes; ++j) p = job({p, node_sum(node_ranks_[static_cast<std::size_t>((k + j) % nodes)])});
  return p;
}

void FunctionalData::fill(const BufferLayout& l, int rank, const DataRange& d, std::uint64_t o, std::uint64_t n,
                          unsigned char* out) const {
  d.pieces(o, n, [&](std::uint64_t addr, std::uint64_t at, std::uint64_t len) {
    for (std::uint64_t i = 0; i < len / esize_; ++i) {
      const std::uint32_t v = value(l, rank, addr / esize_ + i);
      std::memcpy(out + (at - o) + i * esize_, &v, esize_);  // little-endian: bf16 is the low half
    }
  });
}

bool FunctionalData::check(const BufferLayout& l, const std::string& gpu, const DataRange& d, std::uint64_t o,
                           std::uint64_t n, const unsigned char* in) {
  if (!failure_.empty()) return false;  // the first mismatch is the one reported
  bool ok = true;
  d.pieces(o, n, [&](std::uint64_t addr, std::uint64_t at, std::uint64_t len) {
    if (!ok) return;
    auto key = std::make_tuple(&l, addr, len);
    auto it = cache_.find(key);
    if (it == cache_.end()) {
      Cached c{std::vector<std::uint32_t>(len / esize_), comm_.size()};
      for (std::uint64_t i = 0; i < c.values.size(); ++i) c.values[i] = reference(l, addr / esize_ + i);
      it = cache_.emplace(key, std::move(c)).first;
    }
    const std::vector<std::uint32_t>& ref = it->second.values;
    for (std::uint64_t i = 0; i < ref.size() && ok; ++i) {
      std::uint32_t got = 0;
      std::memcpy(&got, in + (at - o) + i * esize_, esize_);
      if (got != ref[i]) {
        const std::uint64_t e = addr / esize_ + i;
        const auto [layer, li] = locate(l, e);
        char buf[512];
        std::snprintf(
            buf, sizeof buf,
            "functional check failed: %s received a wrong sum in iteration %d, %s, layer %d (%s) element %llu "
            "(buffer element %llu): got 0x%0*x, reference 0x%0*x",
            gpu.c_str(), l.iteration, l.what.c_str(), layer,
            layer >= 0 && layer < static_cast<int>(layer_names_.size())
                ? layer_names_[static_cast<std::size_t>(layer)].c_str()
                : "?",
            static_cast<unsigned long long>(li), static_cast<unsigned long long>(e), bf16_ ? 4 : 8, got, bf16_ ? 4 : 8,
            ref[i]);
        failure_ = buf;
        ok = false;
      }
    }
    checked_ += ok ? ref.size() : 0;
    if (--it->second.uses_left == 0) cache_.erase(it);
  });
  return ok;
}

}  // namespace trainvp
