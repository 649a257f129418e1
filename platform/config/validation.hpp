#pragma once
// /validation: the published measurement a scenario reproduces (docs/validation.md). It changes
// nothing in the run; results.json's `validation` sets trainvp's figure beside it.
#include <cstdint>
#include <string>

#include "platform/core/name_table.hpp"
#include "platform/core/params.hpp"

namespace trainvp {

enum class ValidationMetric {
  IterationTime,  // seconds per iteration (the mean of the measured ones)
  TflopsPerGpu,   // Megatron-LM's count (with the recomputed forward under full recomputation) / time / GPUs
  Mfu,            // model FLOPs / time / the GPUs' dense peak
  IterationsPerMinute,
  BusBandwidth,  // nccl-tests' busbw of a collective benchmark at `bytes`, GB/s
};

struct ValidationConfig {
  bool given = false;
  ValidationMetric metric = ValidationMetric::IterationTime;
  double published = 0;
  std::string source;       // paper and table, or repository and file
  std::uint64_t bytes = 0;  // busbw: the message size of the published row
};

const ParamSet<ValidationConfig>& validation_schema();
const NameTable<ValidationMetric>& validation_metric_names();

// Reads /validation (`value`, null when absent). Returns the resolved object, or null.
json load_validation(ValidationConfig& v, const json& value);

}  // namespace trainvp
