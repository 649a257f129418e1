#pragma once
// Scenario files, format version 1: reading, --set overrides, validation and resolution into
// typed configuration. Everything a run needs is decided here, before any model exists, so a
// bad scenario fails before anything is simulated or written.
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/collectives/program.hpp"
#include "models/cxl/cxl_params.hpp"
#include "models/gpu/gpu_params.hpp"
#include "models/workload/workload.hpp"
#include "platform/config/fabric_config.hpp"
#include "platform/core/params.hpp"
#include "platform/config/sync_config.hpp"

namespace trainvp {

constexpr int kScenarioFormatVersion = 1;

struct GpuInstance {
  std::string name;  // "node3.gpu2"
  int node = 0;
  int local = 0;     // index within the node
  int rank = 0;      // global rank
  GpuParams params;
};

struct ClusterConfig {
  int nodes = 1;
  int gpus_per_node = 8;
  int nics_per_node = 8;
  std::vector<GpuInstance> gpus;  // rank order
  FabricConfig fabric;
  NvlinkConfig nvlink;
  PcieConfig pcie;
  CxlParams cxl;
  int cxl_ports = 0;              // resolved: ports per node's device (0 without a device)
  int leaves = 0, spines = 0;     // resolved for leaf-spine
  int node_of(int rank) const { return rank / gpus_per_node; }
};

enum class SyncStrategyKind { None, Ddp, DdpNoOverlap, Layerwise, Blockwise, Adaptive, AscWfbp, LocalSgd, Plsgd, DreamDdp };

struct SyncConfig {
  SyncStrategyKind strategy = SyncStrategyKind::None;
  std::uint64_t bucket = 25ull << 20;
  std::uint64_t first_bucket = 1ull << 20;
  CollectiveAlgo algorithm = CollectiveAlgo::Ring;
  int comm_streams = 1;
  // Layer-wise and partial synchronization (docs/strategies.md).
  int period = 5;                         // H of localsgd, plsgd, dreamddp
  int block = 2;                          // adjacent layers per unit (blockwise, adaptive)
  int pack = 10;                          // small units merged per all-reduce
  std::uint64_t large_bytes = 10000000;   // size classes of the multi-stream scheduler
  std::uint64_t small_bytes = 1000000;
  bool has_class_streams = false;
  ClassStreams class_streams;
  double util_high = 0.9, util_low = 0.7;  // adaptive
  bool fill_in = false;                   // dreamddp
  std::vector<ProfileEntry> profile;      // dreamddp: explicit profile; empty: measured
  CompressionConfig compression;
};

struct TrainingConfig {
  int iterations = 10;
  int warmup = 1;
  SyncConfig sync;
  std::int64_t time_limit_ps = 0;
  bool functional = false;  // workload.functional: gradients' values travel and are checked (docs/cxl.md)
};

// workload.kind "collective": an nccl-tests style benchmark instead of training.
struct CollectiveBenchConfig {
  CollectiveOp op = CollectiveOp::AllReduce;
  CollectiveAlgo algorithm = CollectiveAlgo::Ring;
  std::vector<std::uint64_t> sizes;  // bytes per rank's buffer, in order
  int iterations = 20, warmup = 5;
  std::vector<int> communicator;     // global ranks, in ring order
  int root = 0;                      // broadcast root (a position in the communicator)
  bool functional = false;           // CXL engine jobs on synthetic data, checked against the reference
};

struct OutputConfig {
  std::string dir;
  bool trace = true;
  bool waves = false;             // VCD of the CXL engine (rtl fidelity) in DIR/waves.vcd
  std::int64_t waves_from_ps = 0, waves_to_ps = -1;
};

// One injected fault (docs/faults.md). Targets are matched against the fabric's names when the
// simulation is elaborated (Simulation throws ScenarioError at /faults/<index>/target).
enum class FaultKind { LinkDegrade, GpuSlowdown, CpuContention, LinkDown, PacketLoss, Congestion };
const char* fault_kind_name(FaultKind k);

struct FaultConfig {
  int index = 0;                     // position in /faults
  FaultKind kind = FaultKind::LinkDegrade;
  std::string target;                // name or glob
  std::int64_t start_ps = 0;
  std::int64_t duration_ps = -1;     // -1: to the end of the run
  double bandwidth_factor = 1.0;     // link_degrade
  std::int64_t added_latency_ps = 0; // link_degrade
  double factor = 1.0;               // gpu_slowdown
  std::int64_t ramp_ps = 0;          // gpu_slowdown
  double launch_factor = 1.0;        // cpu_contention
  double loss_rate = 0;              // packet_loss: probability that a transmitted packet is lost
  std::int64_t loss_timeout_ps = 0;  // packet_loss: retransmission timeout for a lost last packet
  bool generated = false;            // "origin": "generator": drawn by the fault generator
  std::string severity;              // the generator's severity class ("" for explicit faults)
  std::string destination;           // congestion: destination NIC name or glob (`target`: the sources)
  double congestion_bps = 0;         // congestion: payload rate of each source-destination pair
  int flows = 1;                     // congestion: parallel flows per pair, rate / flows each
  std::int64_t on_ps = 0, off_ps = 0;  // congestion: on/off pattern; off 0: always on
  std::uint64_t congestion_chunk = 0;  // congestion: message (chunk) size; 0: the fabric's chunk
  nlohmann::json params;             // the resolved object, for results.json
};

// The seeded random fault campaign (/fault_generator, docs/faults.md#random-campaigns). Events are
// drawn against the fabric's names when the simulation is elaborated (platform/system/faults/campaign.hpp).
enum class DurationDist { Exponential, Lognormal, Fixed };
constexpr int kSeverities = 3;  // weak, medium, severe

// What one generated event hits: a GPU, all GPUs of a node, a link, or (congestion) a pair of NICs.
enum class GeneratorTargets { Gpu, Host, Link, NicPair };

struct FaultGeneratorKind {
  std::string name;                   // its key under /fault_generator, e.g. "gpu_slowdown"
  FaultKind kind = FaultKind::GpuSlowdown;
  GeneratorTargets targets = GeneratorTargets::Gpu;
  double rate_per_h = 0;              // events per hour over the whole job; 0: off
  DurationDist distribution = DurationDist::Exponential;
  std::int64_t mean_ps = 0;           // mean duration
  double sigma = 1.0;                 // lognormal: standard deviation of ln(duration)
  double mix[kSeverities] = {};       // probabilities of weak, medium, severe
  nlohmann::json levels[kSeverities]; // the fault keys each severity sets, e.g. {"factor": 0.8}
  std::int64_t min_duration_ps[kSeverities] = {};  // a level's ramp: events last at least that long
  std::string scope;                  // glob over the fabric's names; "": the kind's default targets
};

struct FaultGeneratorConfig {
  bool enabled = false;               // the scenario has a `fault_generator`
  std::int64_t start_ps = 0, horizon_ps = 0;  // events arrive in [start, horizon)
  std::uint64_t seed = 1;
  std::vector<FaultGeneratorKind> kinds;      // in the generator's table order
  nlohmann::json resolved;
};

// The service level the degraded-throughput report measures against (/slo).
struct SloConfig {
  bool given = false;               // the scenario has an `slo` object
  double fraction = 0.9;            // "degraded" = below fraction x baseline throughput
  std::int64_t baseline_ps = -1;    // declared healthy iteration time; -1: from a fault-free prefix
};

struct Scenario {
  std::string name;
  std::uint64_t seed = 1;
  ClusterConfig cluster;
  Workload workload;
  bool collective_bench = false;     // workload.kind == "collective"
  CollectiveBenchConfig bench;
  TrainingConfig training;
  std::vector<FaultConfig> faults;
  FaultGeneratorConfig fault_generator;
  std::string faults_file;           // `trainvp run --faults F`: the faults were replaced by F's list
  SloConfig slo;
  OutputConfig output;
  nlohmann::json resolved;    // the whole scenario with defaults and overrides applied
};

// Reads and parses a JSON file; parse errors name the line and column.
nlohmann::json read_json_file(const std::string& path);

// Applies "--set /json/pointer=VALUE": VALUE is parsed as JSON, or else taken as a string.
void apply_override(nlohmann::json& doc, const std::string& assignment);

// Validates and resolves a scenario document. `default_name` is used when the file has no name
// (the file's stem). Throws ScenarioError naming the JSON pointer of the first problem.
Scenario load_scenario(const nlohmann::json& doc, const std::string& default_name);

// Convenience: read + overrides + load. A `faults_file` (a list as DIR/faults.json holds it, or an
// object with a `faults` list) replaces the scenario's faults and drops its fault_generator before
// the overrides apply: the replay of a campaign.
Scenario load_scenario_file(const std::string& path, const std::vector<std::string>& overrides,
                            const std::string& faults_file = "");

// The fault schemas and the `faults` loader, shared with the fault generator (whose events pass
// the same validation). `resolved` receives the resolved list.
const ParamSet<FaultConfig>& fault_kind_schema(FaultKind k);
std::vector<FaultConfig> load_fault_list(const nlohmann::json& faults, nlohmann::json& resolved);
const std::vector<std::pair<std::string, FaultKind>>& fault_kind_names();

// Every schema, in the order `trainvp describe` prints them.
std::vector<SchemaInfo> all_schemas();

}  // namespace trainvp
