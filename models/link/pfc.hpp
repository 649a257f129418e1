#pragma once
// Priority flow control (IEEE 802.1Qbb) as RoCE switches do it, for one traffic class: the device
// at the far end of a link direction counts, for the ingress port that direction enters, the bytes
// that came in through it and are still held there (in any of its egress queues, or waiting to be
// taken). When the count exceeds XOFF it sends a PAUSE frame back on the link; when it falls to
// XON or below, a RESUME (XON) frame. Either acts on the direction's transmitter `delay` later
// (the link's propagation plus one frame time), so the bytes already sent, and those sent until
// the PAUSE arrives, land on top of XOFF: the headroom must hold them, or a real switch would drop
// (here they are kept and counted as headroom overflow). A paused transmitter sends nothing of
// any flow: that is what pauses victims that share only the link (head-of-line blocking).
//
// Chunk level: a chunk counts in full from the moment its first packet arrives (cut-through)
// until it starts on its egress link, so the count moves in whole chunks and XOFF is effectively
// rounded up to a whole number of chunks; a transmitter stops at a chunk boundary (the chunk on
// the wire finishes). Keep fabric.chunk small against XOFF - XON and the headroom (docs/fabric.md#pfc).
// Costs: O(1) per chunk per hop; events only at threshold crossings.
#include <cstdint>
#include <deque>

#include <systemc>

namespace trainvp {

// cluster.fabric.pfc.mode. egress: the PFC-like per-link back-pressure of LinkDir (output queue of
// `buffer` bytes, a sender stops after `headroom` chunks unaccepted); ingress: this model on every
// Ethernet port; off: no pause at all on Ethernet (lossless, switch queues unbounded).
enum class PfcMode { Egress, Ingress, Off };

struct PfcStats {
  std::uint64_t pause_frames = 0;             // XOFF frames the far end sent back on this link
  std::uint64_t resume_frames = 0;            // XON frames
  std::int64_t paused_ps = 0;                 // time this direction's transmitter was held by PAUSE
  std::uint64_t peak_ingress_bytes = 0;       // largest count at the far end's ingress port
  std::uint64_t headroom_overflow_bytes = 0;  // bytes that arrived beyond XOFF + headroom (a real switch drops them)
};

struct PfcPortParams {
  bool pause = true;           // false (mode off): count only, never pause
  std::uint64_t xoff = 0;      // PAUSE when the count exceeds this
  std::uint64_t xon = 0;       // RESUME when it is at or below this (< xoff)
  std::uint64_t headroom = 0;  // bytes above xoff absorbed without overflow
  std::int64_t delay_ps = 0;   // from a crossing to the transmitter acting on its frame
};

// One ingress port's accounting (the far end of a link direction) and the pause state of the
// direction's transmitter. `wake` is the transmitter's event: notified when a frame is due there.
class PfcPort {
 public:
  PfcPort(const PfcPortParams& p, PfcStats& stats, sc_core::sc_event& wake) : p_(p), stats_(stats), wake_(wake) {}
  const PfcPortParams& params() const { return p_; }
  // A chunk's head reached the far end / the chunk started on its egress link there.
  void arrive(std::uint64_t bytes, std::int64_t now_ps);
  void leave(std::uint64_t bytes, std::int64_t now_ps);
  // Applies the frames due by now at the transmitter (and re-arms `wake` for the next).
  void apply_due(std::int64_t now_ps);
  bool paused() const { return paused_; }
  std::uint64_t held_bytes() const { return held_; }
  // Nothing held, no frame on its way, transmitter running.
  bool idle() const { return held_ == 0 && pending_.empty() && !paused_; }
  // Paused time including an open pause, up to now.
  std::int64_t paused_ps(std::int64_t now_ps) const {
    return stats_.paused_ps + (paused_since_ >= 0 ? now_ps - paused_since_ : 0);
  }

 private:
  void send(bool pause, std::int64_t now_ps);

  PfcPortParams p_;
  PfcStats& stats_;
  sc_core::sc_event& wake_;
  std::uint64_t held_ = 0;
  bool xoff_sent_ = false;  // the far end's state: PAUSE sent, RESUME not yet
  bool paused_ = false;     // the transmitter's state
  std::int64_t paused_since_ = -1;
  struct Frame {
    std::int64_t due_ps;
    bool pause;
  };
  std::deque<Frame> pending_;  // in flight to the transmitter, in due order (constant delay)
};

// A chunk remembers the port it is counted at (ChunkExt::pfc); it leaves that count (its `bytes`)
// when it starts on its next link, or ends at a sink bound to the device.
struct ChunkExt;
void pfc_leave(ChunkExt& c, std::uint64_t bytes, std::int64_t now_ps);

}  // namespace trainvp
