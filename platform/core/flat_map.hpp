#pragma once
// A hash map from 64-bit keys (ids, packed tuples, pointers) to small values, for lookups made once
// per chunk or transfer. std::unordered_map reaches a value through a bucket array and a list node
// (two dependent cache misses on a large cluster's tables); here a lookup usually costs one probe
// of a flat array. Open addressing with linear probing, at most half full; erase shifts the probe
// run back (no tombstones), so tables with steady insert/erase churn do not degrade.
// Iteration order is unspecified: use it only where nothing depends on the order.
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "platform/core/hash.hpp"

namespace trainvp {

template <class V>
class FlatMap64 {
 public:
  // The value of `key`, or null. Valid until the next insertion or erase.
  V* find(std::uint64_t key) {
    if (size_ == 0) return nullptr;
    for (std::size_t i = home(key);; i = (i + 1) & mask_) {
      Slot& s = slots_[i];
      if (!s.used) return nullptr;
      if (s.key == key) return &s.value;
    }
  }
  const V* find(std::uint64_t key) const { return const_cast<FlatMap64*>(this)->find(key); }
  bool contains(std::uint64_t key) const { return find(key) != nullptr; }

  // The value of `key`, value-initialized when absent.
  V& operator[](std::uint64_t key) {
    if (2 * (size_ + 1) > slots_.size()) grow();
    std::size_t i = home(key);
    for (; slots_[i].used; i = (i + 1) & mask_)
      if (slots_[i].key == key) return slots_[i].value;
    slots_[i].used = true;
    slots_[i].key = key;
    slots_[i].value = V{};
    ++size_;
    return slots_[i].value;
  }

  // Removes `key`; returns whether it was there.
  bool erase(std::uint64_t key) {
    if (size_ == 0) return false;
    std::size_t i = home(key);
    for (;; i = (i + 1) & mask_) {
      if (!slots_[i].used) return false;
      if (slots_[i].key == key) break;
    }
    // Backward shift: an entry later in the run moves into the hole when its home does not lie
    // cyclically in (hole, entry], so every entry stays reachable from its home.
    for (std::size_t j = (i + 1) & mask_; slots_[j].used; j = (j + 1) & mask_) {
      const std::size_t h = home(slots_[j].key);
      if (((j - h) & mask_) >= ((j - i) & mask_)) {
        slots_[i].key = slots_[j].key;
        slots_[i].value = std::move(slots_[j].value);
        i = j;
      }
    }
    slots_[i].used = false;
    slots_[i].value = V{};
    --size_;
    return true;
  }

  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  void clear() {
    slots_.clear();
    mask_ = 0;
    size_ = 0;
  }
  // Calls f(key, value) for every entry, in unspecified order.
  template <class F>
  void for_each(F f) {
    for (Slot& s : slots_)
      if (s.used) f(s.key, s.value);
  }
  template <class F>
  void for_each(F f) const {
    for (const Slot& s : slots_)
      if (s.used) f(s.key, s.value);
  }

 private:
  struct Slot {
    std::uint64_t key = 0;
    V value{};
    bool used = false;
  };
  std::size_t home(std::uint64_t k) const { return static_cast<std::size_t>(fmix64(k)) & mask_; }
  void grow() {
    std::vector<Slot> old = std::move(slots_);
    slots_ = std::vector<Slot>(old.empty() ? 16 : 2 * old.size());
    mask_ = slots_.size() - 1;
    for (Slot& s : old)
      if (s.used) {
        std::size_t i = home(s.key);
        while (slots_[i].used) i = (i + 1) & mask_;
        slots_[i].used = true;
        slots_[i].key = s.key;
        slots_[i].value = std::move(s.value);
      }
  }

  std::vector<Slot> slots_;
  std::size_t mask_ = 0;
  std::size_t size_ = 0;
};

}  // namespace trainvp
