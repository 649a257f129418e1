#include "models/aggregator/aggregator.hpp"

#include <string>

#include "platform/core/errors.hpp"
#include "platform/core/sim_time.hpp"

namespace trainvp {

Aggregator::Aggregator(sc_core::sc_module_name name, const AggregatorParams& p, int elem_bytes, RunContext& ctx)
    : sc_module(name), p_(p), elem_bytes_(elem_bytes), ctx_(ctx) {
  for (int i = 0; i < p.nics; ++i) ports.push_back(std::make_unique<AggregatorPort>(("p" + std::to_string(i)).c_str()));
  track_ = ctx.trace.enabled() ? ctx.trace.track(basename(), "cpu") : -1;
  SC_HAS_PROCESS(Aggregator);
  SC_THREAD(run);
}

void Aggregator::reduce(std::uint64_t bytes, int contributors, std::function<void()> done, ReduceData) {
  queue_.push_back({bytes, contributors, std::move(done)});
  submitted_.notify(sc_core::SC_ZERO_TIME);
}

// One reduction at a time: BytePS's summation spreads each over all cores (OpenMP), so jobs that
// arrive together queue rather than share the cores.
void Aggregator::run() {
  for (;;) {
    while (queue_.empty()) wait(submitted_);
    Job job = std::move(queue_.front());
    queue_.pop_front();
    const std::int64_t t0 = now_ps(), d = cpu_reduce_ps(p_.cpu, job.bytes, job.contributors, elem_bytes_);
    wait(sc_core::sc_time(static_cast<double>(d), sc_core::SC_PS));
    ++stats_.jobs;
    stats_.bytes_in += job.bytes * static_cast<std::uint64_t>(job.contributors);
    stats_.bytes_out += job.bytes;
    stats_.busy_ps += d;
    if (track_ >= 0)
      ctx_.trace.slice(track_, "reduce", "aggregator", t0, t0 + d,
                       {{"bytes", job.bytes}, {"contributors", job.contributors}});
    job.done();
  }
}

const ModelInfo& Aggregator::info() {
  static const ModelInfo i{
      "aggregator",
      "A CPU aggregator node (parameter server, as BytePS): NIC ports on the network, and a CPU that sums the "
      "contributions of each part at the roofline of its SIMD adds and memory bandwidth.",
      {"aggregators", "cpu"},
      "aggregators[*]",
      {{"ports[i].dma", "initiator, TLM-2.0 AT (multi-passthrough)",
        "the port's PCIe link to its NIC: sums back to the GPUs"},
       {"ports[i].mem", "target, TLM-2.0 AT (multi-passthrough)",
        "the NIC's PCIe link into host memory: the GPUs' pushes"}},
      {{"jobs", "count", "reductions run"},
       {"bytes_reduced", "bytes", "contribution bytes summed (contributors x bytes per reduction)"},
       {"bytes_out", "bytes", "bytes of reduction results"},
       {"port_bytes_in", "bytes", "per port: bytes pushed into it"},
       {"port_bytes_out", "bytes", "per port: bytes sent back from it"},
       {"busy_s", "s", "time the CPU was summing"}}};
  return i;
}

void Aggregator::report(nlohmann::ordered_json& out) const {
  std::vector<std::uint64_t> in, sent;
  for (auto& p : ports) in.push_back(p->bytes_in()), sent.push_back(p->bytes_out());
  out["name"] = basename();
  out["cpu"] = p_.cpu.model;
  out["jobs"] = stats_.jobs;
  out["bytes_reduced"] = stats_.bytes_in;
  out["bytes_out"] = stats_.bytes_out;
  out["port_bytes_in"] = in;
  out["port_bytes_out"] = sent;
  out["busy_s"] = sec(stats_.busy_ps);
}

}  // namespace trainvp
