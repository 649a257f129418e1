#pragma once
// A synchronization strategy's communication streams: per rank and stream, the work ready but not
// yet joined (an iteration and a bucket or unit), in the order it became ready, and whether the
// stream is running one, and when each piece of work last started on each rank (its busy interval
// begins there). A stream runs one collective at a time per rank, as work on one CUDA stream is
// serialized (NCCL's collectives on a stream run in issue order); DdpSync and UnitSync share it.
#include <cstddef>
#include <cstdint>
#include <deque>
#include <optional>
#include <vector>

namespace trainvp {

class StreamQueues {
 public:
  struct Work {
    int iteration;
    int index;  // the bucket or unit
  };
  // `indices`: how many buckets or units there are.
  void reset(std::size_t ranks, int streams, std::size_t indices) {
    queue_.assign(ranks, std::vector<std::deque<Work>>(static_cast<std::size_t>(streams)));
    busy_.assign(ranks, std::vector<char>(static_cast<std::size_t>(streams), 0));
    started_.assign(ranks, std::vector<std::int64_t>(indices, -1));
  }
  void push(std::size_t rank, int stream, Work w) { queue_[rank][static_cast<std::size_t>(stream)].push_back(w); }
  // The oldest work of (rank, stream) when the stream is free: it is now running, from now_ps.
  std::optional<Work> start_next(std::size_t rank, int stream, std::int64_t now_ps) {
    std::deque<Work>& q = queue_[rank][static_cast<std::size_t>(stream)];
    char& busy = busy_[rank][static_cast<std::size_t>(stream)];
    if (busy || q.empty()) return std::nullopt;
    const Work w = q.front();
    q.pop_front();
    busy = 1;
    started_[rank][static_cast<std::size_t>(w.index)] = now_ps;
    return w;
  }
  void finished(std::size_t rank, int stream) { busy_[rank][static_cast<std::size_t>(stream)] = 0; }
  bool busy(std::size_t rank, int stream) const { return busy_[rank][static_cast<std::size_t>(stream)] != 0; }
  // When bucket or unit `index` last started on `rank` (-1: never).
  std::int64_t started_ps(std::size_t rank, int index) const { return started_[rank][static_cast<std::size_t>(index)]; }
  std::size_t waiting(std::size_t rank, int stream) const {
    return queue_[rank][static_cast<std::size_t>(stream)].size();
  }

 private:
  std::vector<std::vector<std::deque<Work>>> queue_;  // [rank][stream]
  std::vector<std::vector<char>> busy_;               // [rank][stream]
  std::vector<std::vector<std::int64_t>> started_;    // [rank][index]
};

}  // namespace trainvp
