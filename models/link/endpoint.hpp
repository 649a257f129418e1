#pragma once
// A fabric endpoint that sends chunks: a GPU's copy engines, a CXL device's ports.
#include <cstdint>
#include <functional>
#include <vector>

#include <tlm>

namespace trainvp {

class ChunkEndpoint {
 public:
  virtual ~ChunkEndpoint() = default;
  // Sends a payload carrying a ChunkExt out of the endpoint's port route->ports[0].
  virtual void send_chunk(tlm::tlm_generic_payload* chunk) = 0;
  virtual const char* endpoint_name() const = 0;
};

// A device that reduces data itself (a CXL aggregation engine): a program's reduce step runs
// there and `done` is called when its result is in the device's memory.
// In functional mode `data` says what to reduce: window slots `slots` (in the engine's contributor
// order) of the collective's bytes [offset, offset + bytes), into slot kSlotAcc.
struct ReduceData {
  int collective = -1;  // -1: no data (timing only)
  std::uint64_t offset = 0;
  std::vector<int> slots;
};

class ReduceDevice {
 public:
  virtual ~ReduceDevice() = default;
  virtual void reduce(std::uint64_t bytes, int contributors, std::function<void()> done, ReduceData data = {}) = 0;
  // The collective is over: its window data may go.
  virtual void release(int collective) { (void)collective; }
};

}  // namespace trainvp
