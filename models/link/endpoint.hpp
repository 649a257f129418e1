#pragma once
// A fabric endpoint that sends chunks: a GPU's copy engines, a CXL device's ports.
#include <cstdint>
#include <functional>

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
class ReduceDevice {
 public:
  virtual ~ReduceDevice() = default;
  virtual void reduce(std::uint64_t bytes, int contributors, std::function<void()> done) = 0;
};

}  // namespace trainvp
