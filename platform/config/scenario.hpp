#pragma once
// A scenario: the typed configuration of one run, gathered from the sections of the scenario
// document (one header each, below). document.hpp reads and loads it; schema_registry.hpp lists
// every schema. Code that needs the whole scenario includes this header.
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "platform/config/chakra_workload.hpp"
#include "platform/config/cluster.hpp"
#include "platform/config/document.hpp"
#include "platform/config/fault_generator.hpp"
#include "platform/config/faults.hpp"
#include "platform/config/health.hpp"
#include "platform/config/jobs.hpp"
#include "platform/config/output.hpp"
#include "platform/config/parallel.hpp"
#include "platform/config/schema_registry.hpp"
#include "platform/config/slo.hpp"
#include "platform/config/validation.hpp"
#include "platform/config/sync.hpp"
#include "platform/config/train.hpp"
#include "platform/config/training.hpp"
#include "platform/config/workload.hpp"

namespace trainvp {

struct Scenario {
  std::string name;
  std::uint64_t seed = 1;
  ClusterConfig cluster;
  Workload workload;
  bool collective_bench = false;  // workload.kind == "collective"
  CollectiveBenchConfig bench;
  bool chakra = false;  // /workload/chakra: traces run once instead of training
  ChakraWorkload chakra_workload;
  TrainingConfig training;
  TrainConfig train;  // /workload/train: real training in the loop (off when absent)
  std::vector<FaultConfig> faults;
  FaultGeneratorConfig fault_generator;
  std::string faults_file;  // `trainvp run --faults F`: the faults were replaced by F's list
  SloConfig slo;
  ValidationConfig validation;
  HealthConfig health;
  OutputConfig output;
  // /jobs: several training jobs sharing the cluster (docs/jobs.md); empty: the top-level workload
  // and training are the one job. With jobs, the top level's own workload is empty.
  std::vector<JobConfig> jobs;
  nlohmann::json resolved;  // the whole scenario with defaults and overrides applied

  // Training iterations run: not for a collective benchmark nor for Chakra traces.
  bool trains() const { return !collective_bench && !chakra; }
};

}  // namespace trainvp
