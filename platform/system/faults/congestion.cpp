#include "platform/system/faults/congestion.hpp"

#include <algorithm>
#include <cmath>

#include "platform/core/errors.hpp"
#include "platform/core/hash.hpp"

namespace trainvp {

namespace {
std::uint32_t flow_hash(std::uint64_t k) {  // distinct flows, distinct ECMP buckets
  return static_cast<std::uint32_t>(splitmix64_mix(k + kGoldenGamma));
}
}  // namespace

int BackgroundTraffic::sink_port(int nic) {
  auto it = sink_port_.find(nic);
  if (it != sink_port_.end()) return it->second;
  tlm::tlm_target_socket<>* sink = nullptr;  // flow fidelity: FlowSources send to no module
  if (!fabric_.flow()) {
    sinks_.push_back(std::make_unique<TrafficSink>(("bg_sink_device" + std::to_string(nic)).c_str()));
    sink = &sinks_.back()->in;
  }
  const int port = fabric_.attach_sink(nic, sink);
  sink_port_.emplace(nic, port);
  return port;
}

std::vector<std::string> BackgroundTraffic::add(const FaultConfig& f, const std::vector<int>& sources,
                                                const std::vector<int>& destinations) {
  const std::string where = ptr_join(ptr_join("/faults", static_cast<std::size_t>(f.index)), "destination");
  std::vector<std::pair<int, int>> pairs;
  for (int s : sources)
    for (int d : destinations)
      if (s != d) pairs.push_back({s, d});
  if (pairs.empty()) fail_expected(where, "a NIC other than the source", json(f.destination));
  if (pairs.size() * static_cast<std::size_t>(f.flows) > static_cast<std::size_t>(kMaxFlows))
    fail_expected(where,
                  "at most " + std::to_string(kMaxFlows) +
                      " flows per congestion fault (source-destination pairs x flows; " + std::to_string(pairs.size()) +
                      " pairs x " + std::to_string(f.flows) + " here)",
                  json(f.destination));
  pairs_[f.index] = static_cast<int>(pairs.size());
  const std::uint64_t chunk = f.congestion_chunk > 0 ? f.congestion_chunk : default_chunk_;
  // Each flow sends a chunk per interval: chunk bits / (rate / flows).
  const double interval_s = static_cast<double>(chunk) * 8.0 * f.flows / f.congestion_bps;
  const std::int64_t interval_ps = std::max<std::int64_t>(1, std::llround(interval_s * 1e12));
  TrafficPattern pat{f.start_ps, f.duration_ps > 0 ? f.start_ps + f.duration_ps : -1, f.on_ps, f.off_ps};
  std::vector<bool> loads(fabric_.links().size(), false);
  for (auto [s, d] : pairs) {
    const int port = sink_port(d);
    for (int k = 0; k < f.flows; ++k) {
      const std::uint32_t flow =
          flow_hash((static_cast<std::uint64_t>(f.index) << 48) ^ (static_cast<std::uint64_t>(s) << 32) ^
                    (static_cast<std::uint64_t>(d) << 12) ^ static_cast<std::uint64_t>(k));
      const std::string name = "congestion" + std::to_string(f.index) + "_flow" + std::to_string(flows_.size());
      Fabric* fab = &fabric_;
      for (int l : fabric_.nic_route(s, d, port, flow).links)
        loads[static_cast<std::size_t>(fabric_.dirs()[static_cast<std::size_t>(l)].link)] = true;
      if (FlowNetwork* net = fabric_.flow()) {
        auto src = std::make_unique<FlowSource>(
            name.c_str(), *net, pat, f.congestion_bps / 8.0 / f.flows,
            [fab, s = s, d = d, port, flow] { return &fab->nic_route(s, d, port, flow).links; });
        flows_.push_back({f.index, nullptr, std::move(src), chunk});
        continue;
      }
      auto src = std::make_unique<TrafficSource>(
          name.c_str(), pat, interval_ps, static_cast<std::uint32_t>(chunk), flow, static_cast<std::uint64_t>(f.index),
          [fab, s = s, d = d, port, flow] { return &fab->nic_route(s, d, port, flow); });
      fabric_.attach_source(s, src->out);
      flows_.push_back({f.index, std::move(src), nullptr, chunk});
    }
  }
  std::vector<std::string> names;
  for (std::size_t l = 0; l < loads.size(); ++l)
    if (loads[l]) names.push_back(fabric_.links()[l].name);
  return names;
}

BackgroundTraffic::Totals BackgroundTraffic::totals(int fault_index) const {
  Totals t;
  auto it = pairs_.find(fault_index);
  t.pairs = it == pairs_.end() ? 0 : it->second;
  for (const Flow& fl : flows_) {
    if (fl.fault != fault_index) continue;
    if (fl.flow_src) {
      const std::uint64_t b = static_cast<std::uint64_t>(std::llround(fl.flow_src->sent_bytes()));
      t.sent_bytes += b, t.delivered_bytes += b, t.sent_chunks += b / fl.chunk;
      continue;
    }
    t.sent_bytes += fl.src->sent_bytes(), t.sent_chunks += fl.src->sent_chunks();
  }
  for (const auto& s : sinks_) t.delivered_bytes += s->delivered_bytes(static_cast<std::uint64_t>(fault_index));
  return t;
}

}  // namespace trainvp
