#pragma once
// A FIFO kept as a std::vector read from a head index: for queues that are empty most of the
// time and short otherwise (a link direction's per-flow queues, a switch port's waiting chunks),
// where a std::deque allocates its blocks whenever one is made and costs a second cache line to
// read. pop_front keeps the vector from growing without bound under a queue that never drains.
#include <cstddef>
#include <vector>

namespace trainvp {

// Takes q[head] and moves head on; when that empties the queue it restarts at the vector's
// beginning (capacity kept), and a dead prefix of at least 64 elements and half the vector is cut.
template <class T>
T pop_front(std::vector<T>& q, std::size_t& head) {
  T v = q[head++];
  if (head == q.size()) {
    q.clear();
    head = 0;
  } else if (head >= 64 && 2 * head >= q.size()) {
    q.erase(q.begin(), q.begin() + static_cast<std::ptrdiff_t>(head));
    head = 0;
  }
  return v;
}

}  // namespace trainvp
