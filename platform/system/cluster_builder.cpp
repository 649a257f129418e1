#include "platform/system/cluster_builder.hpp"

namespace trainvp {

Node::Node(sc_core::sc_module_name name, int index, const Scenario& s, RunContext& ctx, const ParallelPlan* parallel,
           const std::vector<const JobConfig*>* job_of, const std::vector<const ParallelPlan*>* plan_of)
    : sc_module(name) {
  std::string node_name = basename();
  for (int g = 0; g < s.cluster.gpus_per_node; ++g) {
    const GpuInstance& inst = s.cluster.gpus[static_cast<std::size_t>(index * s.cluster.gpus_per_node + g)];
    const JobConfig* job = job_of ? (*job_of)[static_cast<std::size_t>(inst.rank)] : nullptr;
    const Scenario& runs = job ? *job->scenario : s;
    int track = ctx.trace.track(job ? job->name + ": " + node_name : node_name, "gpu" + std::to_string(g));
    const ParallelPlan* plan = plan_of ? (*plan_of)[static_cast<std::size_t>(inst.rank)] : parallel;
    const ParallelStage* stage =
        plan ? &plan->stages[static_cast<std::size_t>(plan->layout.coord(inst.rank).pp)] : nullptr;
    const int iterations = job_of && !job  ? 0
                           : runs.trains() ? runs.training.iterations
                                           : 0;  // a GPU no job holds idles
    gpus.push_back(std::make_unique<Gpu>(("gpu" + std::to_string(g)).c_str(), inst.params, inst.rank,
                                         stage ? stage->workload : runs.workload, iterations, ctx, track,
                                         stage ? stage->schedule : PhaseSchedule{}));
    if (job) gpus.back()->set_start(job->start_ps);
  }
}

Cluster build_cluster(const Scenario& s, RunContext& ctx, const WaveOptions& waves, const ParallelPlan* parallel,
                      const std::vector<const JobConfig*>* job_of, const std::vector<const ParallelPlan*>* plan_of) {
  Cluster c;
  for (int n = 0; n < s.cluster.nodes; ++n)
    c.nodes.push_back(
        std::make_unique<Node>(("node" + std::to_string(n)).c_str(), n, s, ctx, parallel, job_of, plan_of));
  for (auto& n : c.nodes)
    for (auto& g : n->gpus) c.gpus.push_back(g.get());
  for (auto& g : s.cluster.gpus) c.nodes_of.push_back(g.node);
  std::vector<CxlDevice*> cxl;
  for (int n = 0; s.cluster.cxl.present && n < s.cluster.nodes; ++n) {
    DType dt = s.trains() ? s.workload.shape.grad_dtype : DType::FP32;
    c.cxl.push_back(std::make_unique<CxlDevice>(("node" + std::to_string(n) + "_cxl").c_str(), s.cluster.cxl,
                                                s.cluster.cxl_ports, dt, ctx, n == 0 ? waves : WaveOptions{},
                                                s.output.waves_from_ps, s.output.waves_to_ps));
    c.cxl.back()->set_functional(s.collective_bench && s.bench.functional, s.seed);
    cxl.push_back(c.cxl.back().get());
  }
  std::vector<Aggregator*> aggs;
  for (int a = 0; a < s.cluster.aggregators.count; ++a) {
    const int elem = s.collective_bench ? 4 : static_cast<int>(dtype_bytes(s.workload.shape.grad_dtype));
    c.aggregators.push_back(
        std::make_unique<Aggregator>(("agg" + std::to_string(a)).c_str(), s.cluster.aggregators, elem, ctx));
    aggs.push_back(c.aggregators.back().get());
  }
  std::vector<NvlsUnit*> nvls;
  for (int n = 0; s.cluster.nvls && n < s.cluster.nodes; ++n) {
    if (!nvls_capable(s.cluster, n)) {
      nvls.push_back(nullptr);
      continue;
    }
    c.nvls.push_back(std::make_unique<NvlsUnit>(("node" + std::to_string(n) + "_nvls").c_str()));
    nvls.push_back(c.nvls.back().get());
  }
  c.fabric = std::make_unique<Fabric>(s, c.gpus, cxl, ctx, aggs, nvls);
  c.fabric->trace_nics();
  c.engine = std::make_unique<CollectiveEngine>("collectives", c.fabric->endpoints(c.gpus), *c.fabric,
                                                s.cluster.fabric.chunk, ctx);
  for (CxlDevice* d : cxl)
    for (auto& port : d->ports) c.engine->add_device_endpoint(port.get(), d);
  for (Aggregator* a : aggs)  // after the CXL ports, as the fabric numbers them
    for (auto& port : a->ports) c.engine->add_device_endpoint(port.get(), a);
  for (auto& u : c.nvls) c.engine->add_device_endpoint(&u->port, u.get());  // after the aggregators' ports
  c.engine->set_device_map(c.fabric->device_map());
  RingLayout rings{s.cluster.fabric.nccl.channels, s.cluster.fabric.nccl.order, {}, s.cluster.fabric.nccl.buffsize};
  // GPU g of a node uses NIC floor(g x nics / gpus) of it (docs/fabric.md#inside-a-node).
  for (int n = 0; n < s.cluster.nodes; ++n)
    for (int g = 0; g < s.cluster.gpus_per_node; ++g)
      rings.nic_of.push_back(g * s.cluster.nics_per_node / s.cluster.gpus_per_node);
  c.engine->set_ring_layout(std::move(rings));
  if (c.fabric->flow() && s.cluster.fabric.group_ring_steps) c.engine->set_flow_network(c.fabric->flow());
  if (s.cluster.fabric.nccl.tuner) {
    // NCCL's protocol costs: each GPU's payload rate into its node, a NIC's, and whether the GPUs
    // are Hopper-class (FP8 tensor cores) for the per-channel caps.
    NcclCosts nc;
    nc.on = true;
    nc.node_of = c.nodes_of;
    const FabricConfig& f = s.cluster.fabric;
    for (const GpuInstance& g : s.cluster.gpus) {
      const bool nvlink = g.params.nvlink_bw > 0;
      const double rate = nvlink ? g.params.nvlink_bw : s.cluster.pcie.bandwidth_bps();
      const double mtu = nvlink ? s.cluster.nvlink.mtu : s.cluster.pcie.mtu;
      const double framing = nvlink ? s.cluster.nvlink.framing : s.cluster.pcie.framing;
      nc.intra_Bps.push_back(rate / 8 * mtu / (mtu + framing));
      nc.nvlink_Bps.push_back(g.params.nvlink_bw / 8);
      nc.hopper = nc.hopper || g.params.peak_fp8 > 0;
    }
    nc.inter_Bps = f.link_bw / 8 * f.mtu / (f.mtu + f.framing);
    c.engine->set_nccl_costs(std::move(nc));
  }
  return c;
}

}  // namespace trainvp
