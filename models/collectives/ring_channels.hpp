#pragma once
// NCCL's channels and ring search for flat rings (docs/fabric.md#channels-and-ring-order): how many
// rings run at once, and in which order each visits the ranks so that its traffic between nodes
// stays on one rail.
#include <vector>

#include "models/collectives/program.hpp"

namespace trainvp {

// The channels of a flat ring over `comm`: layout.channels when given; otherwise 1 in rank order,
// and in topology order one per NIC the communicator uses on a node when it spans several nodes
// (what NCCL's search finds on an HGX node, one ring per NIC at that NIC's bandwidth), else 1.
int ring_channels(const RingLayout& layout, const std::vector<int>& comm, const std::vector<int>& nodes_of);

// Topology order: per channel, the ring as communicator positions. The ring visits the nodes in
// the order the communicator first names them and all of a node's ranks in one stretch: it enters
// a node at a GPU beside the channel's NIC, crosses the node's other GPUs (over NVLink), and leaves
// from a GPU beside a NIC of the same rail as the next node's entry, so that every hop between
// nodes joins two NICs of one index. Channel c uses rail c mod (NICs per node). Where that NIC
// serves two or more of the node's ranks the ring enters and leaves through it; where it serves one
// (one NIC per GPU, as on DGX H100), the channel alternates between its rail and a partner rail
// (even nodes enter on one and leave on the other, odd nodes the reverse; NCCL instead relays the
// last GPU's data over NVLink to the NIC's GPU, PXN, which trainvp's GPUs cannot forward). Channels
// 2k and 2k+1 are partners, so every NIC sends one channel and receives one. With an odd number of
// nodes the hop into the last node takes a third rail (two rails only: the hop back crosses rails).
std::vector<std::vector<int>> topology_rings(const std::vector<int>& comm, const std::vector<int>& nodes_of,
                                             const std::vector<int>& nic_of, int channels);

}  // namespace trainvp
