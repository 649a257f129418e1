#include "platform/config/validation.hpp"

namespace trainvp {

const NameTable<ValidationMetric>& validation_metric_names() {
  static const NameTable<ValidationMetric> t = {{"iteration_s", ValidationMetric::IterationTime},
                                                {"tflops_per_gpu", ValidationMetric::TflopsPerGpu},
                                                {"mfu", ValidationMetric::Mfu},
                                                {"iterations_per_min", ValidationMetric::IterationsPerMinute},
                                                {"busbw_GBps", ValidationMetric::BusBandwidth}};
  return t;
}

const ParamSet<ValidationConfig>& validation_schema() {
  static const ParamSet<ValidationConfig> s = [] {
    ParamSet<ValidationConfig> p(
        "validation", "/validation",
        "A published measurement this scenario reproduces (docs/validation.md): results.json's "
        "`validation` sets trainvp's figure and the error beside it. It changes nothing in the run.");
    p.choice("metric", &ValidationConfig::metric, nullptr, validation_metric_names(),
             "iteration_s: the mean measured iteration; tflops_per_gpu: Megatron-LM's count (the recomputed forward "
             "included under full recomputation) per second per GPU, in TFLOP/s; mfu: model FLOPs over the GPUs' dense "
             "peak; iterations_per_min; busbw_GBps: a collective benchmark's bus bandwidth at `bytes`")
        .number("published", &ValidationConfig::published, nullptr, "The published value, in the metric's unit",
                Range::positive())
        .text("source", &ValidationConfig::source, nullptr,
              "Where it is published: paper and table, or repository and file")
        .size("bytes", &ValidationConfig::bytes, nullptr, "busbw_GBps: the message size of the published row",
              Range::positive())
        .required("metric")
        .required("published")
        .required("source");
    return p;
  }();
  return s;
}

json load_validation(ValidationConfig& v, const json& value) {
  if (value.is_null()) return nullptr;
  json resolved = validation_schema().load(v, value, "/validation");
  if (v.metric == ValidationMetric::BusBandwidth && v.bytes == 0)
    throw ScenarioError("/validation/bytes", "the message size of the published busbw row is required with busbw_GBps");
  v.given = true;
  return resolved;
}

}  // namespace trainvp
