#pragma once
// results.json's `validation` (docs/validation.md): the published figure the scenario reproduces
// (/validation), trainvp's figure of the same metric from the results, and the error.
#include <string>

#include <nlohmann/json.hpp>

#include "platform/config/validation.hpp"

namespace trainvp {

// From the finished results `j` of a run on `gpus` GPUs. Throws RunError when the results lack
// what the metric needs (a busbw row of another size, a TFLOP/s count without a transformer).
nlohmann::ordered_json validation_report(const ValidationConfig& v, const nlohmann::ordered_json& j, std::size_t gpus);

// "  validation       published 13.75 s, trainvp 13.2 s (-4.0%): SOURCE\n", or "" without one.
std::string validation_summary(const nlohmann::ordered_json& j);

}  // namespace trainvp
