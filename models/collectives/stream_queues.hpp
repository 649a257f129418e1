#pragma once
// A synchronization strategy's communication streams: per rank and stream, the work ready but not
// yet joined (an iteration and a bucket or unit), in the order it became ready, and whether the
// stream is running one. A stream runs one collective at a time per rank, as work on one CUDA
// stream is serialized (NCCL's collectives on a stream run in issue order); DdpSync and UnitSync
// share it.
#include <cstddef>
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
  void reset(std::size_t ranks, int streams) {
    queue_.assign(ranks, std::vector<std::deque<Work>>(static_cast<std::size_t>(streams)));
    busy_.assign(ranks, std::vector<char>(static_cast<std::size_t>(streams), 0));
  }
  void push(std::size_t rank, int stream, Work w) { queue_[rank][static_cast<std::size_t>(stream)].push_back(w); }
  // The oldest work of (rank, stream) when the stream is free: it is now running.
  std::optional<Work> start_next(std::size_t rank, int stream) {
    std::deque<Work>& q = queue_[rank][static_cast<std::size_t>(stream)];
    char& busy = busy_[rank][static_cast<std::size_t>(stream)];
    if (busy || q.empty()) return std::nullopt;
    const Work w = q.front();
    q.pop_front();
    busy = 1;
    return w;
  }
  void finished(std::size_t rank, int stream) { busy_[rank][static_cast<std::size_t>(stream)] = 0; }
  bool busy(std::size_t rank, int stream) const { return busy_[rank][static_cast<std::size_t>(stream)] != 0; }
  std::size_t waiting(std::size_t rank, int stream) const {
    return queue_[rank][static_cast<std::size_t>(stream)].size();
  }

 private:
  std::vector<std::vector<std::deque<Work>>> queue_;  // [rank][stream]
  std::vector<std::vector<char>> busy_;               // [rank][stream]
};

}  // namespace trainvp
