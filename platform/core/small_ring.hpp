#pragma once
// A FIFO whose first N elements live inside the object: for queues that hold a few elements nearly
// always and touched on every event (a link direction's chunks in flight). A std::deque keeps them
// in a separate block, one more cache miss per access when thousands of such queues are in use;
// here the common case reads the owner's own cache lines. Beyond N it moves to a heap buffer,
// doubling. Not copyable: the buffer may point into the object itself.
#include <cstddef>
#include <vector>

namespace trainvp {

template <class T, std::size_t N>
class SmallRing {
  static_assert(N > 0 && (N & (N - 1)) == 0, "N: a power of two");

 public:
  SmallRing() = default;
  SmallRing(const SmallRing&) = delete;
  SmallRing& operator=(const SmallRing&) = delete;

  bool empty() const { return size_ == 0; }
  std::size_t size() const { return size_; }
  T& front() { return buf_[head_]; }
  const T& front() const { return buf_[head_]; }
  void pop_front() {
    head_ = (head_ + 1) & (cap_ - 1);
    --size_;
  }
  void push_back(const T& v) {
    if (size_ == cap_) grow();
    buf_[(head_ + size_) & (cap_ - 1)] = v;
    ++size_;
  }

 private:
  void grow() {
    std::vector<T> bigger(2 * cap_);
    for (std::size_t i = 0; i < size_; ++i) bigger[i] = buf_[(head_ + i) & (cap_ - 1)];
    heap_.swap(bigger);
    buf_ = heap_.data();
    cap_ *= 2;
    head_ = 0;
  }

  T inline_[N]{};
  T* buf_ = inline_;
  std::size_t cap_ = N, head_ = 0, size_ = 0;
  std::vector<T> heap_;
};

}  // namespace trainvp
