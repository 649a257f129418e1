#pragma once
// Collective algorithms as programs: a DAG of point-to-point transfers (src -> dst, bytes) with
// dependencies on earlier transfers' arrival. The engine runs a program as real chunked traffic
// over the fabric; nothing here knows about time.
//
// Rings are step-synchronous, as in the textbook analysis (Thakur, Rabenseifner and Gropp 2005):
// a rank sends its step-t segment once its step-(t-1) segment has fully arrived, so an
// uncongested ring all-reduce takes 2(p-1) x (alpha + n/(p beta)). Trees and broadcasts are
// pipelined chunk by chunk, as NCCL runs them.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "models/link/chunk.hpp"
#include "platform/core/name_table.hpp"

namespace trainvp {

enum class CollectiveOp { AllReduce, ReduceScatter, AllGather, Broadcast, SendRecv, AllToAll, Reduce, Gather, Scatter };
enum class CollectiveAlgo { Ring, Tree, Hierarchical, CxlAllReduce, CxlHierarchical, Ps, Nvls };

// The names scenarios and results use, in the order `trainvp describe` lists them.
const NameTable<CollectiveOp>& collective_op_names();
const NameTable<CollectiveAlgo>& collective_algo_names();
const char* op_name(CollectiveOp op);
const char* algo_name(CollectiveAlgo a);

struct Transfer {
  int src = 0, dst = 0;  // global ranks (GPUs), or endpoint ids of devices (>= GPUs)
  std::uint64_t bytes = 0;
  std::vector<int> deps;            // transfers that must have arrived first
  int reduce_contributors = 0;      // > 0: not a transfer but a reduction of `bytes` from that many
                                    // contributions, run on device endpoint `src` (== dst)
  DataRange data{};                 // functional mode: the bytes it carries (a reduction: [offset, +bytes))
  std::vector<int> reduce_slots{};  // a reduction's input slots in contributor order (into kSlotAcc)
  int stream = 0;  // NCCL's channel: transfers of one (src, dst) on different streams are different flows
};

// Where reduction devices sit: per node, the endpoint ids of its CXL device's ports (empty when the
// node has none). The HDM decoder interleaves the reduction window over a device's ports (ways =
// ports) at `interleave` bytes: a segment's bytes at window address a go to port (a / interleave)
// mod ways.
// `ports_of_aggregator`: per CPU aggregator node, the endpoint ids of its ports (one per NIC).
// `nvls_of_node`: per node, the endpoint id of its NVSwitch's NVLS unit, -1 without one.
struct DeviceMap {
  std::vector<std::vector<int>> ports_of_node;
  std::uint64_t interleave = 256;
  std::vector<std::vector<int>> ports_of_aggregator;
  std::vector<int> nvls_of_node;
};

// NCCL 2.18.3's NVLS pipelining (src/enqueue.cc, src/transport/nvls.cc): 16 NVLS channels, each
// with one head per GPU of the node, each head moving chunks of at most 128 KiB, smaller for
// small buffers (the chunk size this returns).
constexpr int kNvlsChannels = 16;
std::uint64_t nvls_chunk_bytes(std::uint64_t bytes, int gpus);

// Bytes of [offset, offset + bytes) that an interleave of `ways` at `granule` maps to `way`.
std::uint64_t hdm_bytes(std::uint64_t offset, std::uint64_t bytes, std::uint64_t granule, int ways, int way);
// Part k of n bytes split into `parts` at 4-byte boundaries (whole fp32/bf16 elements), sizes
// differing by at most 4 bytes; the last part also takes n mod 4. Returns {offset, bytes}.
std::pair<std::uint64_t, std::uint64_t> element_part(std::uint64_t n, int parts, int k);

// A flat ring over a whole communicator, kept implicit: spelled out, its p x steps transfers
// (2p(p-1) for an all-reduce) take O(p^2) memory and time to build. With C channels (NCCL's
// parallel rings) the buffer is split into C slices, part(bytes, C, c), and channel c's ring runs
// over its own order of the ranks. Transfer x is channel c = x / (steps p), step t and ring
// position i of x mod (steps p) = t p + i: the rank at ring position i -> the one at i+1, carrying
// part(slice, p, segment), after transfer (c, t - 1, i - 1) has arrived. One channel in
// communicator order is exactly what ring() would list, in the same order.
struct RingForm {
  CollectiveOp op = CollectiveOp::AllReduce;  // AllReduce, ReduceScatter or AllGather
  int steps = 0;                              // 0: the program is explicit
  std::uint64_t bytes = 0;
  int channels = 1;
  // order[c][i]: the communicator position at ring position i of channel c, where[c] its inverse;
  // both empty: every channel in communicator order.
  std::vector<std::vector<int>> order, where;

  int per_channel(int p) const { return steps * p; }  // transfers of one channel
  int position(int c, int i) const {
    return order.empty() ? i : order[static_cast<std::size_t>(c)][static_cast<std::size_t>(i)];
  }
  int ring_position(int c, int j) const {
    return where.empty() ? j : where[static_cast<std::size_t>(c)][static_cast<std::size_t>(j)];
  }
};

// How NCCL uses the fabric: how flat rings are laid out (channels and ring search,
// docs/fabric.md#channels-and-ring-order) and how much a tree connection holds in flight.
enum class RingOrder { Rank, Topology };
struct RingLayout {
  int channels = 0;  // 0: automatic (ring_channels)
  RingOrder order = RingOrder::Rank;
  std::vector<int> nic_of;         // per global rank, the index of its NIC in its node (topology order)
  std::uint64_t buffer = 4 << 20;  // NCCL_BUFFSIZE: a tree edge holds max(1, buffer / chunk) chunks
};

struct Program {
  std::vector<Transfer> transfers;
  std::vector<int> ranks;  // participants (communicator order), then device endpoints used
  int gpu_ranks = -1;      // ranks[0 .. gpu_ranks) are GPUs, the rest devices (always "joined");
                           // -1: every rank is a GPU
  RingForm ring{};         // steps > 0: `transfers` is empty and the ring defines them
};

// Transfer x of an implicit ring; dep: the transfer it waits for, -1 for none.
struct RingTransfer {
  int src, dst;
  std::uint64_t bytes;
  int dep;
};
RingTransfer ring_transfer(const Program& p, int x);
// The program with an implicit ring spelled out (tests compare the two forms).
Program explicit_program(const Program& p);

// nodes_of[r]: the node of global rank r (hierarchical uses it to find node-local groups and rails).
// `chunk` is the pipelining granularity of trees and broadcasts. Throws std::invalid_argument for
// a communicator the algorithm cannot use (hierarchical needs equal GPU counts per node).
// `rings` lays out flat rings (all_reduce ring, reduce_scatter, all_gather) and sizes the trees'
// connection buffers; null: one channel in communicator order, NCCL's default buffer.
Program build_program(CollectiveOp op, CollectiveAlgo algo, const std::vector<int>& comm, std::uint64_t bytes,
                      std::uint64_t chunk, const std::vector<int>& nodes_of, int root = 0,
                      const DeviceMap* devices = nullptr, const RingLayout* rings = nullptr);

// NCCL's bus-bandwidth factor: busbw = algbw x factor.
double busbw_factor(CollectiveOp op, int ranks);

}  // namespace trainvp
