#include "platform/report/validation_results.hpp"

#include <cstdio>

#include "platform/core/errors.hpp"

namespace trainvp {

namespace {

using ojson = nlohmann::ordered_json;

const char* unit_of(ValidationMetric m) {
  switch (m) {
    case ValidationMetric::IterationTime: return "s";
    case ValidationMetric::TflopsPerGpu: return "TFLOP/s per GPU";
    case ValidationMetric::Mfu: return "MFU";
    case ValidationMetric::IterationsPerMinute: return "iterations/min";
    case ValidationMetric::BusBandwidth: return "GB/s busbw";
  }
  return "";
}

double predicted(const ValidationConfig& v, const ojson& j, std::size_t gpus) {
  const auto need = [&](bool ok, const char* what) {
    if (!ok) throw RunError(std::string("/validation/metric: the results have no ") + what);
  };
  switch (v.metric) {
    case ValidationMetric::IterationTime:
      need(j.contains("iteration_time_s"), "iteration time");
      return j["iteration_time_s"].get<double>();
    case ValidationMetric::IterationsPerMinute:
      need(j.contains("iteration_time_s"), "iteration time");
      return 60.0 / j["iteration_time_s"].get<double>();
    case ValidationMetric::TflopsPerGpu:
      need(j.contains("parallel") && j["parallel"].contains("flops_per_iteration"),
           "Megatron-LM FLOP count (a transformer under training.parallel)");
      return j["parallel"]["flops_per_iteration"].get<double>() / j["iteration_time_s"].get<double>() /
             static_cast<double>(gpus) / 1e12;
    case ValidationMetric::Mfu:
      need(j.contains("parallel") && j["parallel"].contains("mfu"), "MFU (a transformer under training.parallel)");
      return j["parallel"]["mfu"].get<double>();
    case ValidationMetric::BusBandwidth: {
      need(j.contains("collectives"), "collective benchmark");
      for (const ojson& c : j["collectives"])
        if (c.contains("bytes") && c["bytes"].get<std::uint64_t>() == v.bytes) return c["busbw_GBps"].get<double>();
      need(false, "busbw row of /validation/bytes");
    }
  }
  return 0;
}

}  // namespace

ojson validation_report(const ValidationConfig& v, const ojson& j, std::size_t gpus) {
  const double p = predicted(v, j, gpus);
  ojson o = {{"metric", name_in(validation_metric_names(), v.metric)},
             {"published", v.published},
             {"trainvp", p},
             {"error", p / v.published - 1.0},
             {"source", v.source}};
  if (v.metric == ValidationMetric::BusBandwidth) o["bytes"] = v.bytes;
  return o;
}

std::string validation_summary(const ojson& j) {
  if (!j.contains("validation")) return "";
  const ojson& v = j["validation"];
  ValidationMetric m = ValidationMetric::IterationTime;
  for (const auto& [name, metric] : validation_metric_names())
    if (name == v["metric"].get<std::string>()) m = metric;
  char buf[512];
  std::snprintf(buf, sizeof buf, "  validation       published %.4g %s, trainvp %.4g (%+.1f%%): %s\n",
                v["published"].get<double>(), unit_of(m), v["trainvp"].get<double>(), 100 * v["error"].get<double>(),
                v["source"].get<std::string>().c_str());
  return buf;
}

}  // namespace trainvp
