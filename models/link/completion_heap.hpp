#pragma once
// The flow network's projected completions: at most one entry per flow, its key changed in place
// when the flow's rate changes (an indexed binary min-heap). A heap of (time, flow, version)
// entries with stale ones skipped on pop grew by the size of every recomputed component per event
// and paid for the stale entries twice: pushed, then popped past.
//
// Order: earliest time first, ties by the sequence number given with the key (the flow network
// gives increasing ones in the order it computes completions: deterministic runs).
#include <cstdint>
#include <utility>
#include <vector>

namespace trainvp {

class CompletionHeap {
 public:
  struct Entry {
    std::int64_t at;
    std::uint64_t seq;
    int id;
  };
  bool empty() const { return heap_.empty(); }
  std::size_t size() const { return heap_.size(); }
  const Entry& top() const { return heap_.front(); }
  bool contains(int id) const { return id < static_cast<int>(pos_.size()) && pos_[static_cast<std::size_t>(id)] >= 0; }

  // Sets id's completion (adding it, or moving its entry).
  void set(int id, std::int64_t at, std::uint64_t seq) {
    if (id >= static_cast<int>(pos_.size())) pos_.resize(static_cast<std::size_t>(id) + 1, -1);
    int& p = pos_[static_cast<std::size_t>(id)];
    if (p < 0) {
      p = static_cast<int>(heap_.size());
      heap_.push_back({at, seq, id});
      up(static_cast<std::size_t>(p));
      return;
    }
    Entry& e = heap_[static_cast<std::size_t>(p)];
    const bool earlier = before({at, seq, id}, e);
    e.at = at, e.seq = seq;
    if (earlier) up(static_cast<std::size_t>(p));
    else down(static_cast<std::size_t>(p));
  }
  // Drops id's entry, if it has one.
  void erase(int id) {
    if (!contains(id)) return;
    const auto p = static_cast<std::size_t>(pos_[static_cast<std::size_t>(id)]);
    pos_[static_cast<std::size_t>(id)] = -1;
    const Entry last = heap_.back();
    heap_.pop_back();
    if (p == heap_.size()) return;
    heap_[p] = last;
    pos_[static_cast<std::size_t>(last.id)] = static_cast<int>(p);
    if (p > 0 && before(heap_[p], heap_[(p - 1) / 2])) up(p);
    else down(p);
  }
  void pop() { erase(heap_.front().id); }

 private:
  static bool before(const Entry& a, const Entry& b) { return a.at != b.at ? a.at < b.at : a.seq < b.seq; }
  void place(std::size_t i, const Entry& e) {
    heap_[i] = e;
    pos_[static_cast<std::size_t>(e.id)] = static_cast<int>(i);
  }
  void up(std::size_t i) {
    const Entry e = heap_[i];
    while (i > 0 && before(e, heap_[(i - 1) / 2])) {
      place(i, heap_[(i - 1) / 2]);
      i = (i - 1) / 2;
    }
    place(i, e);
  }
  void down(std::size_t i) {
    const Entry e = heap_[i];
    const std::size_t n = heap_.size();
    for (;;) {
      std::size_t c = 2 * i + 1;
      if (c >= n) break;
      if (c + 1 < n && before(heap_[c + 1], heap_[c])) ++c;
      if (!before(heap_[c], e)) break;
      place(i, heap_[c]);
      i = c;
    }
    place(i, e);
  }

  std::vector<Entry> heap_;
  std::vector<int> pos_;  // per id: its index in heap_, -1 if none
};

}  // namespace trainvp
