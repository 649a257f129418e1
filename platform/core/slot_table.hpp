#pragma once
// Objects keyed by dense, increasing ids (collective ids: one per launch, in order), found by an
// index instead of a hash: a slot per id from the oldest one still held, trimmed from the front as
// the oldest complete. Objects live on the heap, so a reference stays valid until its own erase.
#include <cstddef>
#include <deque>
#include <memory>
#include <stdexcept>

namespace trainvp {

template <class T>
class SlotTable {
 public:
  // Adds the object of `id`, which must be above every id added before.
  T& add(int id) {
    if (slots_.empty()) base_ = id;
    if (id < base_ + static_cast<int>(slots_.size())) throw std::logic_error("SlotTable: ids must increase");
    slots_.resize(static_cast<std::size_t>(id - base_));
    slots_.push_back(std::make_unique<T>());
    ++count_;
    return *slots_.back();
  }
  // The object of `id`, or null when it was erased or never added.
  T* find(int id) const {
    if (id < base_ || id >= base_ + static_cast<int>(slots_.size())) return nullptr;
    return slots_[static_cast<std::size_t>(id - base_)].get();
  }
  bool contains(int id) const { return find(id) != nullptr; }
  // Takes the object of `id` out (null when there is none).
  std::unique_ptr<T> take(int id) {
    T* p = find(id);
    if (!p) return nullptr;
    std::unique_ptr<T> out = std::move(slots_[static_cast<std::size_t>(id - base_)]);
    --count_;
    while (!slots_.empty() && !slots_.front()) slots_.pop_front(), ++base_;
    return out;
  }
  void erase(int id) { take(id); }
  std::size_t size() const { return count_; }
  // f(id, object) for every object held, in id order.
  template <class F>
  void for_each(F f) const {
    for (std::size_t i = 0; i < slots_.size(); ++i)
      if (slots_[i]) f(base_ + static_cast<int>(i), *slots_[i]);
  }

 private:
  int base_ = 0;
  std::deque<std::unique_ptr<T>> slots_;
  std::size_t count_ = 0;
};

}  // namespace trainvp
