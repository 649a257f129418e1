#pragma once
// What an NCCL interposer sees (GREYHOUND's tracking layer): on each rank, the start and end of
// every collective call, with the call's communicator and size, and nothing of the fabric below.
// The engine announces them through its trace sources call_started and call_ended.
#include <cstdint>

namespace trainvp {

struct CollectiveRecord;

struct CollectiveCall {
  int id = 0;                                // the engine's collective id
  int rank = 0;                              // the rank that called (or returned)
  const CollectiveRecord* record = nullptr;  // op, bytes, label
  const int* communicator = nullptr;         // the GPU ranks taking part, in the program's order
  int comm_size = 0;
  std::int64_t start_ps = 0;  // when this rank called
  std::int64_t end_ps = -1;   // when the call returned on this rank (-1: at the start)
};

}  // namespace trainvp
